// Executes record commands: load the athlete's record stream, decide, append at the revision the
// decision was made against. A concurrent writer makes the append fail; the command is then
// decided again on the new state, so a decision never lands on a record it did not see.
import { recordStreamEvent, streams, type Actor, type ProposalEvent, type RecordEvent, type RecordStreamEvent } from '../contracts/events.ts';
import { appendEvents } from './append.ts';
import type { Clock } from './domain/clock.ts';
import { DomainError } from './domain/errors.ts';
import { decideImport, type ImportCommand, type ImportDecision } from './domain/import.ts';
import type { ProposalState } from './domain/proposal.ts';
import type { ReceiptLink } from './domain/receipt-chain.ts';
import { decideChanges, itemImages, type ItemImage, type RecordChange, type RecordState } from './domain/record.ts';
import { batchOfLatest, cloneFold, emptyFold, foldEvent, imageRevisions, type RecordFold } from './domain/record-fold.ts';
import { decodeFold, encodeFold } from './domain/record-snapshot.ts';
import type { FoldSnapshots } from './store/fold-snapshots.ts';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from './store/event-store.ts';

/** Other processes (an import from the CLI) may append too; after this many lost races, give up. */
const ATTEMPTS = 5;
/** Records whose folds are kept; a fold is a few megabytes at 10,000 workouts, most are far smaller. */
const KEPT_FOLDS = 256;
/**
 * A record's fold is kept as a snapshot once this many events have been folded since the last
 * one: a command on a record no process holds reads the snapshot and at most this many events.
 */
export const SNAPSHOT_EVERY = 500;

export interface Loaded {
  state: RecordState;
  /** The proposals on the record stream, by command id. */
  proposals: ProposalState;
  revision: ExpectedRevision;
  /** The receipt chain's last link, from which the next one goes on. */
  lastLink: ReceiptLink | null;
  /** Each named item's latest body (`itemImages`), read back from the stream. */
  images(keys: ReadonlySet<string>): Promise<Map<string, ItemImage>>;
  /** A proposal's events on the stream, in order, each with its stream revision; none for an unknown command id. */
  proposalEvents(commandId: string): Promise<Array<ProposalEvent & { revision: number }>>;
  /** When an item (`kind/id`) last changed and by whom; null for an item the record never held. */
  lastChange(key: string): Promise<LastChange | null>;
}

export interface LastChange {
  at: string;
  actor: Actor;
  /** The batch whose commit or undo made the change (the athlete is the actor of those); null for any other change. */
  batch: { command_id: string; move: 'commit' | 'undo' } | null;
}

/** What a command answered, and the global log position of its append (null: it appended nothing). */
export interface Committed<T> {
  result: T;
  position: number | null;
}

/** What a command decided: the events to append, and what it tells its caller. */
export interface Decided<T> {
  events: RecordStreamEvent[];
  result: T;
}

export class RecordService {
  readonly #events: EventStore;
  readonly #clock: Clock;
  /** Commands on one athlete's record run one at a time in this process, so they never race here. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /**
   * Each recently used record's fold, as of the revision it says: a command reads only the events
   * appended since (by any process), not the whole history. Least recently used first.
   */
  readonly #folds = new Map<string, RecordFold>();
  readonly #snapshots: FoldSnapshots | null;
  /** The revision of each record's latest snapshot this process knows of. */
  readonly #snapshotAt = new Map<string, number>();
  readonly #writing = new Set<Promise<void>>();

  constructor(events: EventStore, clock: Clock, snapshots: FoldSnapshots | null = null) {
    this.#events = events;
    this.#clock = clock;
    this.#snapshots = snapshots;
  }

  /**
   * The record as it is now, for a look outside any command (whether a RepLedger export may be
   * imported into it): a copy, which the commands after it do not change, taken in the athlete's
   * queue like a command.
   */
  load(athleteId: string): Promise<Loaded> {
    return this.#queued(athleteId, async () => this.#loaded(cloneFold(await this.#fold(athleteId))));
  }

  #loaded(fold: RecordFold): Loaded {
    const stream = streams.record(fold.state.athleteId);
    const read = async (revisions: number[]) => (await this.#events.readRevisions(stream, revisions)).map((e) => ({ type: e.type, data: e.data, occurred_at: String(e.metadata.occurred_at), revision: e.revision, actor: e.metadata.actor as Actor }));
    return {
      state: fold.state,
      proposals: fold.proposals,
      revision: fold.revision,
      lastLink: fold.lastLink,
      images: async (keys) => itemImages(await read(imageRevisions(fold, keys)), keys),
      proposalEvents: async (commandId) => (await read([...(fold.proposalEvents.get(commandId) ?? [])])).map((e) => ({ type: e.type, data: e.data, revision: e.revision }) as ProposalEvent & { revision: number }),
      lastChange: async (key) => {
        const at = fold.itemEvents.get(key);
        if (!at) return null;
        const [event] = await read([at.latest]);
        return event ? { at: event.occurred_at, actor: event.actor, batch: batchOfLatest(fold, key) } : null;
      },
    };
  }

  /**
   * The record's fold caught up with the stream: the kept one and the events since, or the whole
   * stream. Runs only in the athlete's queue, where no other command is deciding on the kept fold,
   * so the events since are folded into it in place: a copy would cost the whole record.
   */
  async #fold(athleteId: string): Promise<RecordFold> {
    const kept = this.#folds.get(athleteId) ?? (await this.#fromSnapshot(athleteId));
    const from = kept && kept.revision !== 'no_stream' ? kept.revision + 1 : 0;
    const tail = await this.#events.readStream(streams.record(athleteId), from);
    let fold: RecordFold;
    try {
      if (kept && (tail.length === 0 || (from > 0 && tail[0]!.revision === from))) fold = tail.reduce(foldEvent, kept);
      else fold = (from === 0 ? tail : await this.#events.readStream(streams.record(athleteId))).reduce(foldEvent, emptyFold(athleteId));
    } catch (error) {
      // A fold that failed part of the way through an event is no longer as of any revision.
      this.#folds.delete(athleteId);
      throw error;
    }
    this.#folds.delete(athleteId);
    this.#folds.set(athleteId, fold);
    if (this.#folds.size > KEPT_FOLDS) this.#folds.delete(this.#folds.keys().next().value!);
    const last = tail[tail.length - 1];
    if (last && last.revision === fold.revision) this.#keepSnapshot(fold, last.position);
    return fold;
  }

  /**
   * The record's kept snapshot as a fold, when there is one and the stream still holds the event it
   * was taken at (a stream replaced since, as by a restored store, does not): null otherwise.
   */
  async #fromSnapshot(athleteId: string): Promise<RecordFold | null> {
    if (!this.#snapshots) return null;
    const snapshot = await this.#snapshots.get(athleteId).catch(() => null);
    if (!snapshot) return null;
    const [at] = await this.#events.readRevisions(streams.record(athleteId), [snapshot.head.revision]);
    if (at?.position !== snapshot.head.position) return null;
    this.#snapshotAt.set(athleteId, snapshot.head.revision);
    return decodeFold(snapshot, athleteId);
  }

  /**
   * Keeps a snapshot of the fold once SNAPSHOT_EVERY events have been folded since the last one
   * (or since none): encoded now, while the fold is as of `position`; written in the background,
   * as a failure to keep one only costs a later cold command a longer read.
   */
  #keepSnapshot(fold: RecordFold, position: number): void {
    const athleteId = fold.state.athleteId;
    if (!this.#snapshots || fold.revision === 'no_stream' || fold.revision - (this.#snapshotAt.get(athleteId) ?? -1) < SNAPSHOT_EVERY) return;
    const snapshot = encodeFold(fold, position);
    if (!snapshot) return;
    this.#snapshotAt.set(athleteId, fold.revision);
    const write = this.#snapshots.put(snapshot).catch(() => undefined);
    this.#writing.add(write);
    void write.then(() => this.#writing.delete(write));
  }

  /** Resolves once every snapshot being written has been (for a clean shutdown, and tests). */
  async snapshotsWritten(): Promise<void> {
    await Promise.all([...this.#writing]);
  }

  /**
   * Runs any command on the record stream: load, decide, append at the revision decided against,
   * and decide again if another writer got there first. `decide` may do I/O that must precede the
   * append (sealing details under a new key); it runs again on every attempt.
   */
  async command<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<T> {
    return (await this.#decideAndAppend(athleteId, actor, decide)).result;
  }

  /**
   * `command`, also answering the global log position of what it appended (null when it appended
   * nothing): a read that must show this write waits for the projections to pass it.
   */
  commandAt<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<Committed<T>> {
    return this.#decideAndAppend(athleteId, actor, decide);
  }

  /**
   * The global log position of a proposal's latest event on the athlete's record stream, or null
   * when the stream holds no such proposal: what a read of it must wait for the projections to pass.
   */
  proposalPosition(athleteId: string, commandId: string): Promise<number | null> {
    return this.#queued(athleteId, async () => {
      const revisions = (await this.#fold(athleteId)).proposalEvents.get(commandId);
      if (!revisions?.length) return null;
      const [latest] = await this.#events.readRevisions(streams.record(athleteId), [revisions[revisions.length - 1]!]);
      return latest?.position ?? null;
    });
  }

  /** Events of the athlete's record stream at the given revisions (a proposal's sealed details), without loading the record. */
  async readEvents(athleteId: string, revisions: readonly number[]): Promise<Array<{ type: string; data: unknown; revision: number }>> {
    return (await this.#events.readRevisions(streams.record(athleteId), revisions)).map((e) => ({ type: e.type, data: e.data, revision: e.revision }));
  }

  /** Applies a batch of changes atomically. Returns the events written. */
  async change(athleteId: string, changes: RecordChange[], actor: Actor): Promise<RecordEvent[]> {
    return this.command(athleteId, actor, ({ state }) => {
      const events = decideChanges(changes, state);
      return { events, result: events };
    });
  }

  /** Imports a whole file in one append: all of it lands, or none. */
  async import(athleteId: string, command: ImportCommand, actor: Actor): Promise<ImportDecision> {
    return this.command(athleteId, actor, ({ state }) => {
      const decision = decideImport(command, state);
      return { events: decision.events, result: decision };
    });
  }

  #decideAndAppend<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<Committed<T>> {
    return this.#queued(athleteId, () => this.#attempt(athleteId, actor, decide));
  }

  /** Runs `work` after the athlete's earlier work in this process, whether that succeeded or failed. */
  #queued<T>(athleteId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(athleteId) ?? Promise.resolve();
    const run = previous.then(work, work);
    this.#queues.set(athleteId, run);
    const forget = () => {
      if (this.#queues.get(athleteId) === run) this.#queues.delete(athleteId);
    };
    run.then(forget, forget);
    return run;
  }

  async #attempt<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<Committed<T>> {
    for (let attempt = 1; ; attempt++) {
      const loaded = this.#loaded(await this.#fold(athleteId));
      const { events, result } = await decide(loaded);
      if (events.length === 0) return { result, position: null };
      for (const e of events) recordStreamEvent.parse(e);
      try {
        const appended = await appendEvents(this.#events, this.#clock, { stream: streams.record(athleteId), athleteId }, events, loaded.revision, actor);
        return { result, position: appended.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // A stream behind the fold was not appended to but replaced (a restored store): fold it anew.
        if (error.actual === 'no_stream' || (typeof loaded.revision === 'number' && error.actual < loaded.revision)) this.#folds.delete(athleteId);
        if (attempt === ATTEMPTS) throw new DomainError('busy', 'the record kept changing while this change was decided; try again');
      }
    }
  }
}
