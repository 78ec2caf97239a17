// Web sessions for the athlete's browser. The cookie holds a random token; the store keeps only
// its SHA-256, so a leaked read model does not sign anyone in. A session row exists only for a
// signed-in athlete: a visitor who has not signed in gets a CSRF token in a cookie of its own
// (double-submit, on top of the same-origin check), so reading the sign-in page stores nothing.
// Expired rows are swept on a schedule.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { sha256Hex } from '../domain/ids.ts';
import type { CollectionSpec, Doc, ReadStore } from '../store/read-store.ts';
import { SECURITY_POLICY } from '../../contracts/policy.ts';

export const SESSIONS = 'web_sessions';
const PARTITION = 'sessions';
/** One-time values for a session's next page, apart from the session rows themselves. */
const FLASH_PARTITION = 'flash';
/** A one-time value not shown within this long is swept (it may be a new bot token in clear). */
const FLASH_TTL_MS = SECURITY_POLICY.flashMs;
export const sessionCollections: CollectionSpec[] = [
  {
    name: SESSIONS,
    indexes: [
      { name: 'by_expiry', fields: ['expires_at', 'id'] },
      { name: 'by_athlete', fields: ['athlete_id', 'id'] },
    ],
  },
];
export const SESSION_COOKIE = 'repledger_session';
/** The CSRF token of a visitor who has not signed in. */
export const VISITOR_CSRF_COOKIE = 'repledger_csrf';
const TTL_MS = SECURITY_POLICY.sessionMs;
/** How many expired rows one sweep deletes per read, so a sweep never holds the store for long. */
const SWEEP_BATCH = 200;

export interface Session extends Doc {
  athlete_id: string;
  csrf: string;
  expires_at: string;
}

/** Shown once on the session's next page and then dropped (post/redirect/get of a one-time secret). */
export interface Flash {
  kind: 'bot_token';
  name: string;
  token: string;
}

interface FlashDoc extends Doc {
  athlete_id: string;
  expires_at: string;
  flash: Flash;
}

export class Sessions {
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  readonly #secure: boolean;

  constructor(reads: ReadStore, clock: Clock, secureCookies: boolean) {
    this.#reads = reads;
    this.#clock = clock;
    this.#secure = secureCookies;
  }

  async ensureCollection(): Promise<void> {
    await this.#reads.ensureCollections(sessionCollections);
  }

  /** The request's live signed-in session, if its cookie names one. */
  async current(request: FastifyRequest): Promise<Session | null> {
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return null;
    const session = await this.#reads.get<Session>(SESSIONS, PARTITION, sha256Hex(token));
    if (!session?.athlete_id || Date.parse(session.expires_at) <= this.#clock.now().getTime()) return null;
    return session;
  }

  /** The CSRF token the page's forms carry: the session's, or the visitor's cookie (set when missing). */
  csrfFor(request: FastifyRequest, reply: FastifyReply): string {
    if (request.session) return request.session.csrf;
    const known = request.cookies[VISITOR_CSRF_COOKIE];
    if (known && known.length === 43) return known;
    const token = randomBytes(32).toString('base64url');
    request.cookies[VISITOR_CSRF_COOKIE] = token;
    void reply.setCookie(VISITOR_CSRF_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.#secure, maxAge: TTL_MS / 1000 });
    return token;
  }

  /** Signs an athlete in with a fresh session (a new token: signing in never keeps one chosen before it). */
  async start(reply: FastifyReply, athleteId: string, replacing?: Session | null): Promise<Session> {
    if (replacing) await this.#reads.delete(SESSIONS, PARTITION, replacing.id);
    const token = randomBytes(32).toString('base64url');
    const session: Session = {
      id: sha256Hex(token),
      athlete_id: athleteId,
      csrf: randomBytes(32).toString('base64url'),
      expires_at: new Date(this.#clock.now().getTime() + TTL_MS).toISOString(),
    };
    await this.#reads.upsert(SESSIONS, PARTITION, session);
    void reply.setCookie(SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.#secure, maxAge: TTL_MS / 1000 });
    void reply.clearCookie(VISITOR_CSRF_COOKIE, { path: '/' });
    return session;
  }

  async end(reply: FastifyReply, session: Session | null): Promise<void> {
    if (session) await this.#reads.delete(SESSIONS, PARTITION, session.id);
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  /** Signs the athlete out everywhere (after a password change, say); returns how many sessions ended. */
  async endAllOf(athleteId: string): Promise<number> {
    await this.#reads.deleteWhere(SESSIONS, FLASH_PARTITION, 'by_athlete', [athleteId]);
    return this.#reads.deleteWhere(SESSIONS, PARTITION, 'by_athlete', [athleteId]);
  }

  /**
   * Keeps a one-time value for the session's next page, in a row of its own: writing it never
   * touches the session row, so it cannot bring back a session ended meanwhile.
   */
  async setFlash(session: Session, flash: Flash): Promise<void> {
    const expiresAt = new Date(this.#clock.now().getTime() + FLASH_TTL_MS).toISOString();
    await this.#reads.upsert(SESSIONS, FLASH_PARTITION, { id: session.id, athlete_id: session.athlete_id, expires_at: expiresAt, flash } satisfies FlashDoc);
  }

  /** The session's one-time value, removed as it is read. */
  async takeFlash(session: Session): Promise<Flash | null> {
    const doc = await this.#reads.get<FlashDoc>(SESSIONS, FLASH_PARTITION, session.id);
    if (!doc) return null;
    await this.#reads.delete(SESSIONS, FLASH_PARTITION, session.id);
    return Date.parse(doc.expires_at) > this.#clock.now().getTime() ? doc.flash : null;
  }

  /** Deletes every expired session and one-time value; returns how many sessions. */
  async sweep(): Promise<number> {
    await this.#sweep(FLASH_PARTITION);
    return this.#sweep(PARTITION);
  }

  async #sweep(partition: string): Promise<number> {
    const now = this.#clock.now().toISOString();
    let deleted = 0;
    for (;;) {
      const expired = await this.#reads.page<Doc>(SESSIONS, { partition, index: 'by_expiry', direction: 'asc', limit: SWEEP_BATCH, range: { lte: now } });
      for (const doc of expired) await this.#reads.delete(SESSIONS, partition, doc.id);
      deleted += expired.length;
      if (expired.length < SWEEP_BATCH) return deleted;
    }
  }
}

/** Whether a posted form carries the token of the session (or visitor) that was shown it. */
export function csrfMatches(request: FastifyRequest, submitted: unknown): boolean {
  const expected = request.session?.csrf ?? request.cookies[VISITOR_CSRF_COOKIE];
  if (!expected || typeof submitted !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
