// The athlete's right to delete their account (issue 42): everything of theirs goes, on each engine
// as far as it can remove it at once (docs/decisions.md, "Deleting an account"). What stays is one
// `account.deleted` event without any personal data (the account's random id, which projections
// forget when they reach it), which the operator counts.
//
// Order, so that a deletion stopped midway (a crash, a lost server) is finished by running it again:
// 1. the account is marked `athlete.deletion_started`: from then on it cannot sign in, no client or
//    bot token is let in (AthleteService treats it as gone), and the deletion can still find it;
// 2. the proposals' keys are destroyed (named from the record stream, which is still there);
// 3. read models, authorization-server state, sessions and the streams go; the athlete stream,
//    which holds the mark, last. Where the engine allows (the embedded store, one SQLite database)
//    step 3 is one transaction: all of it or none;
// 4. the store's files are rewritten so that no copy of a deleted row remains (SQLite), or left to
//    the operator's scavenge (KurrentDB).
import { accountDeletionEvent, streams, type AccountDeletionEvent, type Actor } from '../../contracts/events.ts';
import { forgetAthlete, type Projection } from '../../projections/projection.ts';
import type { AthleteService } from './athletes.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/ids.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { AccessHistory } from '../operations/access-history.ts';
import type { EventStore, StoredEvent } from '../store/event-store.ts';
import type { KeyStore } from '../store/key-store.ts';
import type { CollectionSpec, ReadStore } from '../store/read-store.ts';
import { OAUTH, oauthCollections, revokeOAuthGrant } from './oauth-store.ts';

/** Where an oidc-provider document names the account it belongs to (Session, Grant, tokens; an Interaction's). */
const OAUTH_ACCOUNT_FIELDS = ['payload.accountId', 'payload.session.accountId', 'payload.result.login.accountId'];

export interface AccountDeletionDeps {
  events: EventStore;
  reads: ReadStore;
  keys: KeyStore;
  athletes: AthleteService;
  access: AccessHistory;
  records: Pick<RecordService, 'forget'>;
  clock: Clock;
  /** Every read-model collection that may hold an athlete's documents, each searched by partition and `athlete_id`. */
  collections: readonly CollectionSpec[];
  /**
   * Runs step 3 all-or-nothing where the stores share a transaction (the embedded store), else
   * as it comes (each part is safe to repeat).
   */
  atomically: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface DeletionResult {
  athlete_id: string;
  /** Accounts deleted on this service so far, this one included: the one thing kept. */
  accounts_deleted: number;
  /**
   * Null once the store's files hold no copy of what was deleted; else why they may still (the
   * account is deleted all the same: nothing reads those bytes). `erase` finishes it.
   */
  erase_problem: string | null;
}

/** Every read-model collection of these projections and services, once each. */
export function deletableCollections(projections: readonly Projection[], ...more: ReadonlyArray<readonly CollectionSpec[]>): CollectionSpec[] {
  const all = [...projections.flatMap((p) => p.collections), ...more.flat()];
  return [...new Map(all.map((c) => [c.name, c])).values()];
}

export class AccountDeletion {
  readonly #d: AccountDeletionDeps;

  constructor(deps: AccountDeletionDeps) {
    this.#d = deps;
  }

  /** How many accounts have been deleted. */
  async count(): Promise<number> {
    const head = await this.#d.events.streamRevision(streams.accountDeletions());
    return head === 'no_stream' ? 0 : head + 1;
  }

  /**
   * Deletes the account and everything of it; finishes one whose deletion began. `not_found` when
   * there is no such account (nor one being deleted).
   */
  async delete(athleteId: string, actor: Actor): Promise<DeletionResult> {
    const d = this.#d;
    const athlete = await d.athletes.getForDeletion(athleteId);
    if (!athlete) throw new DomainError('not_found', `no athlete with id ${athleteId}`);
    await d.athletes.startDeletion(athleteId, actor);

    const record = await this.#all(streams.record(athleteId));
    const connections = await this.#all(streams.connections(athleteId));
    // The Hevy connection's sealed API key is under keys of its own.
    const hevy = await this.#all(streams.hevy(athleteId));
    const keyIds = [...new Set([...record.flatMap(sealedKeyIds), ...hevy.flatMap(sealedKeyIds)])];
    const oauthGrants = [...new Set(connections.flatMap((e) => (e.type === 'grant.connected' ? [(e.data as { oauth_grant_id: string }).oauth_grant_id] : [])))];
    // A store the web app never served (the CLI's own) has no sessions nor authorization-server state yet.
    await d.reads.ensureCollections([...d.collections, ...oauthCollections]);
    await d.keys.destroyOf(athleteId, keyIds);
    await d.access.forget(athleteId);

    await d.atomically(async () => {
      // The authorization server's grants, tokens and sessions: a connected agent's next call is refused.
      for (const grant of oauthGrants) await revokeOAuthGrant(d.reads, grant);
      for (const field of OAUTH_ACCOUNT_FIELDS) await d.reads.deleteOwned(OAUTH, athleteId, field);
      // Every read model: documents in the athlete's partition or naming them (directory, bot
      // tokens, connection grants, access history, web sessions, one-time values).
      await forgetAthlete(d.reads, d.collections, athleteId);
      for (const stream of [streams.record(athleteId), streams.connections(athleteId), streams.botTokens(athleteId), streams.hevy(athleteId)])
        await d.events.deleteStream(stream);
      // The e-mail can sign up again once its claim is gone; the account's own stream (with the mark) goes last.
      await d.events.deleteStream(streams.emailClaim(sha256Hex(athlete.email)));
      await d.events.deleteStream(streams.athlete(athleteId));
      // Which e-mail, and whose, is not kept: only that an account was deleted, when, and its id,
      // which nothing left links to anyone and which projections forget when they reach it.
      const deleted: AccountDeletionEvent = { type: 'account.deleted', data: { athlete_id: athleteId } };
      await d.events.append(streams.accountDeletions(), [{ ...deleted, metadata: { occurred_at: d.clock.now().toISOString() } }], 'any');
    });
    await d.records.forget(athleteId);
    return { athlete_id: athleteId, accounts_deleted: await this.count(), erase_problem: await this.erase() };
  }

  /** Whether an account with this id was deleted here (its `account.deleted` names it). */
  async wasDeleted(athleteId: string): Promise<boolean> {
    const deletions = await this.#all(streams.accountDeletions());
    return deletions.some((e) => accountDeletionEvent.shape.data.safeParse(e.data).data?.athlete_id === athleteId);
  }

  /**
   * Makes what deletions removed unreadable in the store's files (`EventStore.eraseFreedSpace`);
   * null when done, else why not, for a deletion that committed but could not finish this step
   * (another process kept the SQLite store open for reading): running it again finishes it.
   */
  async erase(): Promise<string | null> {
    try {
      await this.#d.events.eraseFreedSpace();
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  async #all(stream: string): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for (let from = 0; ; ) {
      const page = await this.#d.events.readStream(stream, from, 1000);
      out.push(...page);
      if (page.length < 1000) return out;
      from = page[page.length - 1]!.revision + 1;
    }
  }
}

/** The keys an event sealed with: a proposal's details, a commit's undo, the Hevy connection's API key. */
function sealedKeyIds(event: StoredEvent): string[] {
  const data = event.data as { details?: { key_id?: unknown }; undo?: { key_id?: unknown }; key?: { key_id?: unknown } };
  return [data.details?.key_id, data.undo?.key_id, data.key?.key_id].filter((id): id is string => typeof id === 'string');
}
