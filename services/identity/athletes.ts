// Athlete accounts. An e-mail address is claimed by appending to a stream named after it with
// "no stream expected", which makes addresses unique on every event store.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { athleteEvent, streams, type Actor, type AthleteEvent } from '../../contracts/events.ts';
import { appendEvents } from '../commands/append.ts';
import { decideAndAppend } from '../commands/handler.ts';
import { profile, subscriptionTier, type Profile } from '../../contracts/record.ts';
import { isVisibleText } from '../../contracts/common.ts';
import { ATHLETES, ATHLETES_PARTITION, type AthleteDoc } from '../../projections/athletes.ts';
import { decidePassword, decideProfile, decideTier, evolveAthlete, type AthleteState, type Tier } from '../domain/athlete.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/ids.ts';
import { hashIsCurrent, hashPassword, verifyPassword } from './password.ts';
import { WrongExpectedRevisionError, type EventStore } from '../store/event-store.ts';
import type { KeyValue, ReadStore } from '../store/read-store.ts';

/** The one password rule: at sign-up, on an operator's reset and on the athlete's own change. */
export const password = z.string().min(12, 'a password needs at least 12 characters').max(200, 'a password has at most 200 characters');

/**
 * A profile as an athlete or operator gives it: the name trimmed, and one of only spaces or
 * invisible characters refused (the web form trims; the CLI and an imported export did not).
 * Events keep the stored shape.
 */
const profileInput = profile.extend({ display_name: z.string().trim().max(100).refine(isVisibleText, 'give a name that is not only spaces') });

export const registration = z.strictObject({
  email: z.email().max(254),
  password,
  tier: subscriptionTier,
  profile: profileInput,
});
export type Registration = z.infer<typeof registration>;

const normaliseEmail = (email: string) => email.trim().toLowerCase();

export class AthleteService {
  readonly #events: EventStore;
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  /** What unknown e-mails are checked against; made with today's parameters, once. */
  #decoy: Promise<string> | null = null;

  constructor(events: EventStore, reads: ReadStore, clock: Clock) {
    this.#events = events;
    this.#reads = reads;
    this.#clock = clock;
  }

  async register(input: unknown, actor: Actor): Promise<{ athlete_id: string }> {
    const parsed = valid(registration, input, '');
    const email = normaliseEmail(parsed.email);
    // Hashed before the address is looked at, so "already exists" takes as long as a new account.
    const password_hash = await hashPassword(parsed.password);
    const claimStream = streams.emailClaim(sha256Hex(email));
    let athleteId: string = randomUUID();
    try {
      await this.#append(claimStream, [{ type: 'athlete.email_claimed', data: { athlete_id: athleteId, email } }], 'no_stream', actor);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Claimed before: finish a registration that stopped between the claim and the account.
      athleteId = (await this.#claimedId(email))!;
      if (await this.#state(athleteId)) throw new DomainError('already_exists', `an athlete with e-mail ${email} exists`);
    }
    try {
      await this.#append(
        streams.athlete(athleteId),
        [{ type: 'athlete.registered', data: { athlete_id: athleteId, email, password_hash, profile: parsed.profile, tier: parsed.tier } }],
        'no_stream',
        actor,
      );
    } catch (error) {
      // Two registrations finishing the same interrupted claim at once: one wins.
      if (error instanceof WrongExpectedRevisionError) throw new DomainError('already_exists', `an athlete with e-mail ${email} exists`);
      throw error;
    }
    return { athlete_id: athleteId };
  }

  /** An account being deleted is null here, as one deleted: it cannot sign in, nor be used by a client. */
  async byEmail(email: string): Promise<AthleteState | null> {
    return present(await this.byEmailForDeletion(email));
  }

  async get(athleteId: string): Promise<AthleteState | null> {
    return present(await this.#state(athleteId));
  }

  /** As `get`, an account whose deletion began and did not finish included: for the deletion, which finishes it. */
  async getForDeletion(athleteId: string): Promise<AthleteState | null> {
    return this.#state(athleteId);
  }

  async byEmailForDeletion(email: string): Promise<AthleteState | null> {
    const id = await this.#claimedId(normaliseEmail(email));
    return id ? this.#state(id) : null;
  }

  /** Marks the account as being deleted (once): from then on it is gone to everyone but the deletion. */
  async startDeletion(athleteId: string, actor: Actor): Promise<void> {
    await this.#change(
      athleteId,
      (s) => {
        if (!s) throw new DomainError('not_found', 'no such athlete');
        return s.deleting ? [] : [{ type: 'athlete.deletion_started', data: { athlete_id: athleteId } }];
      },
      actor,
    );
  }

  async setTier(email: string, tier: Tier, actor: Actor): Promise<AthleteState> {
    return this.#change(await this.#idOf(email), (s) => decideTier(s, tier), actor);
  }

  async updateProfile(email: string, next: Profile, actor: Actor): Promise<AthleteState> {
    const parsed = valid(profileInput, next, '');
    return this.#change(await this.#idOf(email), (s) => decideProfile(s, parsed), actor);
  }

  /**
   * Sets a new password without asking for the current one: an operator's reset
   * (`repledger athletes set-password`), for an athlete who forgot theirs. The rule is
   * registration's; a refusal is `invalid_input` with the issue at `new_password`.
   */
  async setPassword(athleteId: string, newPassword: string, actor: Actor): Promise<void> {
    const hash = await hashPassword(valid(password, newPassword, 'new_password'));
    await this.#change(athleteId, (s) => decidePassword(s, hash), actor);
  }

  /**
   * The athlete's own change: the current password must match first (`invalid_input` at
   * `current_password` when it does not), then as setPassword. Guessing through it costs an
   * scrypt per try, like sign-in; callers on the web should rate-limit it like sign-in too.
   */
  async changePassword(athleteId: string, currentPassword: string, newPassword: string, actor: Actor): Promise<void> {
    const next = valid(password, newPassword, 'new_password');
    const hash = await hashPassword(next);
    await this.#change(
      athleteId,
      async (s) => {
        // Checked against the state the change is appended after: a password changed meanwhile
        // makes the append fail, and the retry checks against the new one.
        if (s && !(await verifyPassword(currentPassword, s.password_hash))) {
          const issue = { path: 'current_password', message: 'this is not the current password' };
          throw new DomainError('invalid_input', `${issue.path}: ${issue.message}`, [issue]);
        }
        return decidePassword(s, hash);
      },
      actor,
    );
  }

  /**
   * The athlete these credentials belong to, or null. An unknown e-mail is checked against a
   * decoy hash, so both answers take as long. A hash made with older parameters is replaced by
   * one made with today's, now that the password is known.
   */
  async authenticate(email: string, givenPassword: string): Promise<AthleteState | null> {
    const athlete = await this.byEmail(email);
    const ok = await verifyPassword(givenPassword, athlete?.password_hash ?? (await this.#decoyHash()));
    // A hash made with older, cheaper parameters answers sooner than the decoy would: pay the
    // decoy's cost as well, so that timing does not tell which addresses have older accounts.
    if (athlete && !hashIsCurrent(athlete.password_hash)) await verifyPassword(givenPassword, await this.#decoyHash());
    if (!athlete || !ok) return null;
    if (!hashIsCurrent(athlete.password_hash)) {
      const stored = athlete.password_hash;
      const hash = await hashPassword(givenPassword);
      // Only over the hash that was verified: a password changed meanwhile stays as it was changed.
      await this.#change(athlete.athlete_id, (s) => (s?.password_hash === stored ? decidePassword(s, hash) : []), { type: 'athlete', id: athlete.athlete_id });
    }
    return athlete;
  }

  #decoyHash(): Promise<string> {
    return (this.#decoy ??= hashPassword('not a real password, only a timing decoy'));
  }

  /** The directory read model, ordered by e-mail. */
  async list(limit = 100, after?: KeyValue[]): Promise<AthleteDoc[]> {
    return this.#reads.page<AthleteDoc>(ATHLETES, { partition: ATHLETES_PARTITION, index: 'by_email', direction: 'asc', limit, ...(after ? { after } : {}) });
  }

  async #idOf(email: string): Promise<string> {
    const id = await this.#claimedId(normaliseEmail(email));
    if (!id) throw new DomainError('not_found', `no athlete with e-mail ${email}`);
    return id;
  }

  async #change(id: string, decide: (s: AthleteState | null) => AthleteEvent[] | Promise<AthleteEvent[]>, actor: Actor): Promise<AthleteState> {
    return decideAndAppend(this.#events, this.#clock, {
      stream: streams.athlete(id),
      athleteId: id,
      actor,
      what: 'the account',
      decide: async (stored) => {
        const history = stored.map((e) => ({ type: e.type, data: e.data }) as AthleteEvent);
        const events = (await decide(fold(history))).map((e) => athleteEvent.parse(e));
        return { events, result: fold([...history, ...events])! };
      },
    });
  }

  async #claimedId(email: string): Promise<string | null> {
    const [claim] = await this.#events.readStream(streams.emailClaim(sha256Hex(email)));
    return claim ? (claim.data as { athlete_id: string }).athlete_id : null;
  }

  async #state(athleteId: string): Promise<AthleteState | null> {
    return fold(await this.#history(athleteId));
  }

  async #history(athleteId: string): Promise<AthleteEvent[]> {
    const stored = await this.#events.readStream(streams.athlete(athleteId));
    // Events were validated when appended; every Agent Access request reads this, so folding trusts them.
    return stored.map((e) => ({ type: e.type, data: e.data }) as AthleteEvent);
  }

  async #append(stream: string, events: AthleteEvent[], expected: number | 'no_stream', actor: Actor): Promise<void> {
    const parsed = events.map((e) => athleteEvent.parse(e));
    // Every athlete event names its athlete, the e-mail claim included.
    await appendEvents(this.#events, this.#clock, { stream, athleteId: parsed[0]!.data.athlete_id }, parsed, expected, actor);
  }
}

/** The parsed input, or `invalid_input` naming each issue (under `path` for a bare value). */
function valid<T>(schema: z.ZodType<T>, input: unknown, path: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: [path, ...i.path].filter((p) => p !== '').join('.'), message: i.message }));
  throw new DomainError('invalid_input', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
}

const present = (state: AthleteState | null) => (state?.deleting ? null : state);

function fold(events: AthleteEvent[]): AthleteState | null {
  return events.reduce<AthleteState | null>(evolveAthlete, null);
}
