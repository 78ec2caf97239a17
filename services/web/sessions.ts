// Web sessions for the athlete's browser. The cookie holds a random token; the store keeps only
// its SHA-256, so a leaked read model does not sign anyone in. Every session, signed in or not,
// has its own CSRF token, which every form posts back.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { sha256Hex } from '../domain/ids.ts';
import type { Doc, ReadStore } from '../store/read-store.ts';

export const SESSIONS = 'web_sessions';
const PARTITION = 'sessions';
export const SESSION_COOKIE = 'repledger_session';
const TTL_MS = 12 * 3600_000;

export interface Session extends Doc {
  athlete_id: string | null;
  csrf: string;
  expires_at: string;
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
    await this.#reads.ensureCollections([{ name: SESSIONS, indexes: [] }]);
  }

  /** The request's live session, if its cookie names one. */
  async current(request: FastifyRequest): Promise<Session | null> {
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return null;
    const session = await this.#reads.get<Session>(SESSIONS, PARTITION, sha256Hex(token));
    if (!session || Date.parse(session.expires_at) <= this.#clock.now().getTime()) return null;
    return session;
  }

  /** The live session, or a new anonymous one (so sign-in forms have a CSRF token too). */
  async currentOrNew(request: FastifyRequest, reply: FastifyReply): Promise<Session> {
    return (await this.current(request)) ?? this.start(reply, null);
  }

  /** Starts a fresh session (a new token: signing in never keeps a token chosen before it). */
  async start(reply: FastifyReply, athleteId: string | null, replacing?: Session | null): Promise<Session> {
    if (replacing) await this.#reads.delete(SESSIONS, PARTITION, replacing.id);
    const token = randomBytes(32).toString('base64url');
    const session: Session = {
      id: sha256Hex(token),
      athlete_id: athleteId,
      csrf: randomBytes(32).toString('base64url'),
      expires_at: new Date(this.#clock.now().getTime() + TTL_MS).toISOString(),
    };
    await this.#reads.upsert(SESSIONS, PARTITION, session);
    void reply.setCookie(SESSION_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.#secure,
      maxAge: TTL_MS / 1000,
    });
    return session;
  }

  async end(reply: FastifyReply, session: Session | null): Promise<void> {
    if (session) await this.#reads.delete(SESSIONS, PARTITION, session.id);
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }
}

export function csrfMatches(session: Session | null, submitted: unknown): boolean {
  if (!session || typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
