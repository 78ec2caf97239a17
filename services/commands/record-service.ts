// Executes record commands: load the athlete's record stream, decide, append at the revision the
// decision was made against. A concurrent writer makes the append fail; the command is then
// decided again on the new state, so a decision never lands on a record it did not see.
import { randomUUID } from 'node:crypto';
import {
  recordStreamEvent,
  streams,
  type Actor,
  type EditSaved,
  type ProposalEvent,
  type RecordEvent,
  type RecordStreamEvent,
} from '../../contracts/events.ts';
import { appendEvents } from './append.ts';
import { retryLostRaces } from './handler.ts';
import type { Clock } from '../domain/clock.ts';
import { decideImport, type ImportCommand, type ImportDecision } from '../domain/import.ts';
import type { LastEdit } from '../domain/athlete-edit.ts';
import type { ProposalState } from '../domain/proposal.ts';
import type { ReceiptLink } from '../domain/receipt-chain.ts';
import { decideChanges, itemImages, type ItemImage, type RecordChange, type RecordState } from '../domain/record.ts';
import { Missing } from '../domain/partial-map.ts';
import {
  batchOfLatest,
  cloneFold,
  emptyFold,
  FOLD_SECTIONS,
  foldEvent,
  imageRevisions,
  isWhole,
  keysOf,
  sectionMaps,
  type FoldedEvent,
  type FoldSection,
  type RecordFold,
} from '../domain/record-fold.ts';
import { foldOfHead, mergeBucket, snapshotOf, type SnapshotHead } from '../domain/record-snapshot.ts';
import type { FoldSnapshots } from '../store/fold-snapshots.ts';
import type { EventStore, ExpectedRevision, StoredEvent } from '../store/event-store.ts';

/** Other processes (an import from the CLI) may append too; after this many lost races, give up. */
const ATTEMPTS = 5;
/** Records whose folds are kept; a fold is a few megabytes at 10,000 workouts, most are far smaller. */
const KEPT_FOLDS = 256;
/** A command that has asked for this many buckets of a section one at a time gets the whole section at once (an import's thousand new ids). */
const BUCKETS_BEFORE_WHOLE = 4;
/** A snapshot whose buckets keep going (other instances writing newer ones) is given up for the whole stream after this many reads. */
const SNAPSHOT_TRIES = 3;
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
  /** The athlete's last edit, while it is not undone (its `edit.saved`), read back from the stream. */
  lastEdit(): Promise<LastEdit>;
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
  /** Records whose snapshot is being written: the next waits for it, as it is written as a change of it. */
  readonly #writingFor = new Set<string>();
  /**
   * The snapshot a fold read from one stands on: the one it was read from, then each it wrote. It
   * loads its missing buckets from it, and writes its next snapshot as a change of it unless one it
   * wrote was refused (`writes` false: another instance keeps the record's snapshots; it then writes
   * no more unless whole). None for a fold of the whole stream, which writes every bucket.
   */
  readonly #bases = new WeakMap<RecordFold, { head: SnapshotHead; writes: boolean }>();

  constructor(events: EventStore, clock: Clock, snapshots: FoldSnapshots | null = null) {
    this.#events = events;
    this.#clock = clock;
    this.#snapshots = snapshots;
  }

  /**
   * The record as it is now, for a look outside any command (whether a RepLedger export may be
   * imported into it): a whole copy, which the commands after it do not change, taken in the
   * athlete's queue like a command.
   */
  load(athleteId: string): Promise<Loaded> {
    return this.#queued(athleteId, () => this.#withFold(athleteId, async (fold) => this.#loaded(cloneFold(fold))));
  }

  /** Runs `look` on the record as it is now, in the athlete's queue like a command, appending nothing. */
  read<T>(athleteId: string, look: (loaded: Loaded) => Promise<T>): Promise<T> {
    return this.#queued(athleteId, () => this.#withFold(athleteId, (fold) => look(this.#loaded(fold))));
  }

  #loaded(fold: RecordFold): Loaded {
    const stream = streams.record(fold.state.athleteId);
    const read = async (revisions: number[]) =>
      (await this.#events.readRevisions(stream, revisions)).map((e) => ({
        type: e.type,
        data: e.data,
        occurred_at: String(e.metadata.occurred_at),
        revision: e.revision,
        actor: e.metadata.actor as Actor,
      }));
    return {
      state: fold.state,
      proposals: fold.proposals,
      revision: fold.revision,
      lastLink: fold.lastLink,
      images: async (keys) => itemImages(await read(imageRevisions(fold, keys)), keys),
      proposalEvents: async (commandId) =>
        (await read([...(fold.proposalEvents.get(commandId) ?? [])])).map(
          (e) => ({ type: e.type, data: e.data, revision: e.revision }) as ProposalEvent & { revision: number },
        ),
      lastChange: async (key) => {
        const at = fold.itemEvents.get(key);
        if (!at) return null;
        const [event] = await read([at.latest]);
        return event ? { at: event.occurred_at, actor: event.actor, batch: batchOfLatest(fold, key) } : null;
      },
      lastEdit: async () => {
        if (!fold.lastEdit) return null;
        const [event] = await read([fold.lastEdit.revision]);
        return event?.type === 'edit.saved' ? (event.data as EditSaved['data']) : null;
      },
    };
  }

  /**
   * Runs `work` on the record's fold caught up with the stream; where the fold is partial and
   * `work` reads what it does not hold (`Missing`), loads that and runs `work` again. Deciders are
   * pure and synchronous, so a second run decides as the first would have with the whole fold.
   */
  async #withFold<T>(athleteId: string, work: (fold: RecordFold) => Promise<T>): Promise<T> {
    const asked = new Map<FoldSection, number>();
    let tries = 0;
    for (;;) {
      const fold = await this.#fold(athleteId, tries < SNAPSHOT_TRIES);
      try {
        return await work(fold);
      } catch (error) {
        if (!(error instanceof Missing)) throw error;
        const section = error.section as FoldSection;
        asked.set(section, (asked.get(section) ?? 0) + 1);
        const [map] = sectionMaps(fold, section);
        const whole = error.key === null || asked.get(section)! > BUCKETS_BEFORE_WHOLE;
        if (!(await this.#loadBuckets(fold, section, whole ? null : [map!.bucketOf(error.key!)]))) {
          // Its snapshot's buckets were replaced by a newer one: read the record again.
          this.#folds.delete(athleteId);
          tries++;
        }
      }
    }
  }

  /**
   * Adds buckets of a section (null: all it lacks) to a fold read from a snapshot, from that
   * snapshot. False when one is gone (a newer snapshot replaced it): the fold is then of no use.
   */
  async #loadBuckets(fold: RecordFold, section: FoldSection, wanted: number[] | null): Promise<boolean> {
    const [map] = sectionMaps(fold, section);
    const base = this.#bases.get(fold)?.head;
    const buckets = (wanted ?? Array.from({ length: map!.buckets }, (_, b) => b)).filter((b) => !map!.isLoaded(b));
    if (buckets.length === 0) return true;
    if (!base || !this.#snapshots) throw new Error(`a partial fold of ${fold.state.athleteId} without the snapshot it was read from`);
    const rows = await this.#snapshots.buckets(base, section, buckets).catch(() => null);
    if (!rows) return false;
    for (const [b, list] of rows) mergeBucket(fold, section, b, list);
    return true;
  }

  /**
   * The record's fold caught up with the stream: the kept one and the events since, or the latest
   * snapshot and the events since, or the whole stream. Runs only in the athlete's queue, where no
   * other command is deciding on the kept fold, so the events since are folded into it in place:
   * a copy would cost the whole record.
   */
  async #fold(athleteId: string, useSnapshot: boolean): Promise<RecordFold> {
    const kept = this.#folds.get(athleteId);
    this.#folds.delete(athleteId);
    let caught = kept ? await this.#caughtUp(kept) : null;
    if (!caught && useSnapshot) {
      const fresh = await this.#fromSnapshot(athleteId);
      if (fresh) caught = await this.#caughtUp(fresh);
    }
    if (!caught) {
      const events = await this.#events.readStream(streams.record(athleteId));
      caught = { fold: events.reduce(foldEvent, emptyFold(athleteId)), last: events[events.length - 1] ?? null };
    }
    const { fold, last } = caught;
    this.#folds.set(athleteId, fold);
    if (this.#folds.size > KEPT_FOLDS) this.#folds.delete(this.#folds.keys().next().value!);
    if (last) await this.#keepSnapshot(fold, last.position);
    return fold;
  }

  /**
   * `fold` with the events appended since folded in, and the last of them; null when the stream
   * does not go on from the fold (replaced, as by a restored store), or the fold lacks what an
   * event needs and cannot load it: folding part of an event leaves a fold of no revision.
   */
  async #caughtUp(fold: RecordFold): Promise<{ fold: RecordFold; last: StoredEvent | null } | null> {
    const from = fold.revision === 'no_stream' ? 0 : fold.revision + 1;
    const tail = await this.#events.readStream(streams.record(fold.state.athleteId), from);
    if (tail.length > 0 && tail[0]!.revision !== from) return null;
    if (!(await this.#prefetch(fold, tail))) return null;
    try {
      return { fold: tail.reduce(foldEvent, fold), last: tail[tail.length - 1] ?? null };
    } catch (error) {
      if (error instanceof Missing) return null;
      throw error;
    }
  }

  /** Loads the buckets that folding `tail` into a partial fold reads. False when one is gone. */
  async #prefetch(fold: RecordFold, tail: readonly FoldedEvent[]): Promise<boolean> {
    if (isWhole(fold)) return true;
    const wanted = new Map<FoldSection, Set<number>>();
    for (const event of tail) {
      for (const [section, key] of keysOf(event)) {
        const [map] = sectionMaps(fold, section);
        if (!map!.knows(key)) wanted.set(section, (wanted.get(section) ?? new Set()).add(map!.bucketOf(key)));
      }
    }
    const loaded = await Promise.all([...wanted].map(([section, buckets]) => this.#loadBuckets(fold, section, [...buckets])));
    return loaded.every(Boolean);
  }

  /**
   * The record's latest snapshot as a partial fold (its head, no bucket yet), when there is one
   * and the stream still holds the event it was taken at (a stream replaced since, as by a
   * restored store, does not): null otherwise.
   */
  async #fromSnapshot(athleteId: string): Promise<RecordFold | null> {
    if (!this.#snapshots) return null;
    const head = await this.#snapshots.head(athleteId).catch(() => null);
    if (!head) return null;
    const [at] = await this.#events.readRevisions(streams.record(athleteId), [head.revision]);
    if (at?.position !== head.position) return null;
    const fold = foldOfHead(head, athleteId);
    if (!fold) return null;
    this.#snapshotAt.set(athleteId, head.revision);
    this.#bases.set(fold, { head, writes: true });
    return fold;
  }

  /**
   * Keeps a snapshot of the fold once SNAPSHOT_EVERY events have been folded since the last one
   * (or since none): planned now, while the fold is as of `position` (loading first the buckets
   * it writes again that it lacks); written in the background, as a failure to keep one only costs
   * a later cold command a longer read.
   */
  async #keepSnapshot(fold: RecordFold, position: number): Promise<void> {
    const athleteId = fold.state.athleteId;
    if (
      !this.#snapshots ||
      this.#writingFor.has(athleteId) ||
      fold.revision === 'no_stream' ||
      fold.revision - (this.#snapshotAt.get(athleteId) ?? -1) < SNAPSHOT_EVERY
    )
      return;
    const standing = this.#bases.get(fold);
    const base = standing?.writes ? standing.head : null;
    if (!base && !isWhole(fold)) return;
    const taken = Object.fromEntries(FOLD_SECTIONS.map((section) => [section, sectionMaps(fold, section).map((map) => map.takeDirty())])) as Record<
      FoldSection,
      Array<Set<string>>
    >;
    const giveBack = () => FOLD_SECTIONS.forEach((section) => sectionMaps(fold, section).forEach((map, i) => map.restoreDirty(taken[section][i]!)));
    const dirty = Object.fromEntries(FOLD_SECTIONS.map((section) => [section, new Set(taken[section].flatMap((keys) => [...keys]))])) as Record<
      FoldSection,
      Set<string>
    >;
    const generation = randomUUID();
    let planned = snapshotOf(fold, position, base, dirty, generation, this.#clock.now());
    for (const [section, bucket] of planned.needs) {
      if (!(await this.#loadBuckets(fold, section, bucket === null ? null : [bucket]))) {
        giveBack();
        return;
      }
    }
    if (planned.needs.length) planned = snapshotOf(fold, position, base, dirty, generation, this.#clock.now());
    const write = planned.write;
    if (!write) {
      giveBack();
      return;
    }
    this.#snapshotAt.set(athleteId, fold.revision);
    this.#writingFor.add(athleteId);
    const done = this.#snapshots
      .put(write)
      .then((kept) => {
        if (kept) this.#bases.set(fold, { head: write.head, writes: true });
        else {
          giveBack();
          if (standing) this.#bases.set(fold, { head: standing.head, writes: false });
        }
      })
      .catch(() => giveBack())
      .finally(() => this.#writingFor.delete(athleteId));
    this.#writing.add(done);
    void done.then(() => this.#writing.delete(done));
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
    return this.#queued(athleteId, () =>
      this.#withFold(athleteId, async (fold) => {
        const revisions = fold.proposalEvents.get(commandId);
        if (!revisions?.length) return null;
        const [latest] = await this.#events.readRevisions(streams.record(athleteId), [revisions[revisions.length - 1]!]);
        return latest?.position ?? null;
      }),
    );
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

  /**
   * Drops what this process keeps of the athlete's record (their account's deletion): the kept
   * fold would otherwise answer from a stream that no longer exists. Waits for work under way.
   */
  async forget(athleteId: string): Promise<void> {
    await this.#queued(athleteId, async () => {
      this.#folds.delete(athleteId);
      this.#snapshotAt.delete(athleteId);
    }).catch(() => undefined);
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
    let decidedOn: ExpectedRevision = 'no_stream';
    return retryLostRaces(
      'the record',
      ATTEMPTS,
      async () => {
        const { loaded, events, result } = await this.#withFold(athleteId, async (fold) => {
          const loaded = this.#loaded(fold);
          return { loaded, ...(await decide(loaded)) };
        });
        if (events.length === 0) return { result, position: null };
        for (const e of events) recordStreamEvent.parse(e);
        decidedOn = loaded.revision;
        const appended = await appendEvents(this.#events, this.#clock, { stream: streams.record(athleteId), athleteId }, events, loaded.revision, actor);
        return { result, position: appended.position };
      },
      (error) => {
        // A stream behind the fold was not appended to but replaced (a restored store): fold it anew.
        if (error.actual === 'no_stream' || (typeof decidedOn === 'number' && error.actual < decidedOn)) this.#folds.delete(athleteId);
      },
    );
  }
}
