// Applies events to projections and keeps one checkpoint (a global position) per projection.
// An event at or before a projection's checkpoint is skipped, so delivering it twice changes
// nothing. Checkpoints are written in the same transaction as the documents they cover. Following
// the log, with its lease and its live batches, is ./follower.ts's.
import { AsyncLocalStorage } from 'node:async_hooks';
import { accountDeletionEvent } from '../contracts/events.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore, StoredEvent } from '../services/store/event-store.ts';
import type { CollectionSpec, Doc, Documents, ReadStore } from '../services/store/read-store.ts';
import { inBatch } from './batch-documents.ts';
import { LEASE_COLLECTION } from './lease.ts';
import { forgetAthlete, type Projection } from './projection.ts';

export const CHECKPOINTS = 'projection_checkpoints';
const PARTITION = 'projections';
/**
 * Events per transaction when catching up or rebuilding. On MongoDB a batch is one transaction,
 * which the server aborts after 60 s (transactionLifetimeLimitSeconds): a batch of 1,000 events
 * reads each document it touches once and writes it once (BatchDocuments), a few thousand round
 * trips of about a millisecond on a local network.
 */
export const BATCH = 1000;

interface CheckpointDoc extends Doc {
  position: number;
  /** The projection's version that built its documents; absent means 1. */
  version?: number;
}

const versionOf = (p: Projection): number => p.version ?? 1;

export interface ProjectionStatus {
  name: string;
  checkpoint: number;
  head: number;
  /** Events after the checkpoint (counted up to 10,000). */
  lag_events: number;
}

export type Progress = (done: number, total: number) => void;
/** How far an apply has got through `events`, the events it was given. */
export type ApplyProgress = (done: number, total: number, events: readonly StoredEvent[]) => void;

/** Large applies (an import) report progress this often. */
const PROGRESS_EVERY = 25;
/**
 * Who is told how far an apply has got: set around the work whose append runs the apply (an
 * import), and found by the apply through that work's async context. Per context, not per runner:
 * two imports in one process each report their own progress.
 */
const applyProgress = new AsyncLocalStorage<ApplyProgress>();
/**
 * A turn of the event loop after this many events of one apply. The embedded store answers
 * synchronously, so an import's projections (seconds, for a large file) would otherwise hold the
 * whole process: every request waited for them. Between turns other requests are answered from
 * the reader connection, which sees the store as it was before the open transaction; writers
 * wait for it as before. 25 workouts of an import are about 10 ms of projecting.
 */
const YIELD_EVERY = 25;

/** Checks, inside a transaction that writes read models, that this process may still write them (./lease.ts). */
export type Fence = (docs: Documents) => Promise<void>;

/** Projections a release retired, and their collections: gone once a store is opened again. */
export interface Retired {
  projections: string[];
  collections: string[];
}
const NONE_RETIRED: Retired = { projections: [], collections: [] };

export class ProjectionRunner {
  readonly projections: Projection[];
  readonly #readStore: ReadStore;
  readonly #eventStore: EventStore;
  readonly #retired: Retired;
  /** Set while this process holds the projector lease (./follower.ts): every transaction here checks it. */
  #fence: Fence | null = null;
  /** Live batches and swaps, one at a time: a swap must not interleave with a batch of the projections it replaces. */
  #serial: Promise<unknown> = Promise.resolve();

  constructor(projections: Projection[], readStore: ReadStore, eventStore: EventStore, retired: Retired = NONE_RETIRED) {
    this.projections = projections;
    this.#retired = retired;
    this.#readStore = readStore;
    this.#eventStore = eventStore;
  }

  collectionSpecs(): CollectionSpec[] {
    return [{ name: CHECKPOINTS, indexes: [] }, LEASE_COLLECTION, ...this.projections.flatMap((p) => p.collections)];
  }

  /** From now on every transaction that writes read models runs `fence` first (null: no lease, inline mode). */
  fencedBy(fence: Fence | null): void {
    this.#fence = fence;
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(work, work);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  /**
   * Applies a batch of events (in position order) to every projection in one transaction of the
   * read store: the follower's live batches and catch-up's. Checkpoints are read once and written
   * once per batch.
   */
  applyBatch(events: StoredEvent[]): Promise<void> {
    const fence = this.#fence;
    return this.#serially(() =>
      this.#readStore.transaction(async (docs) => {
        await fence?.(docs);
        await this.apply(events, docs);
      }),
    );
  }

  /**
   * Creates the collections, then finishes any replay swap that a killed process left half-done
   * (MongoDB renames collections outside a transaction): until that has run, the swapped-in
   * collections and the checkpoints disagree, and following the log would apply events twice or
   * skip them.
   */
  async ensureCollections(): Promise<void> {
    await this.#readStore.ensureCollections(this.collectionSpecs());
    await this.#readStore.dropCollections(this.#retired.collections);
    // Read first: a delete takes the write lock even when it matches nothing, and opening a store
    // (any command) must not wait on another process's import for that.
    for (const name of this.#retired.projections)
      if (await this.#readStore.get(CHECKPOINTS, PARTITION, name)) await this.#readStore.delete(CHECKPOINTS, PARTITION, name);
    await this.#readStore.finishInterruptedSwaps(async (live, from, label) => {
      // The label names the projections and the versions that rebuilt them (see `replay`).
      const rebuilt = this.projections.filter((p) => typeof label[p.name] === 'number');
      // Only the checkpoints: the log may have grown long since the crash, and catching up here
      // would make one transaction of it; catchUp and follow do it a batch at a time.
      for (const p of rebuilt) await live.upsert(CHECKPOINTS, PARTITION, { id: p.name, position: from, version: Number(label[p.name]) });
    });
  }

  /**
   * Runs `work`, telling `progress` (if any) how far each apply it causes in this process has got:
   * an import's progress bar. With a projection worker, nothing applies here and nothing is told.
   */
  withProgress<T>(progress: ApplyProgress | undefined, work: () => Promise<T>): Promise<T> {
    return progress ? applyProgress.run(progress, work) : work();
  }

  /** Applies events (in position order) to every projection not yet past them; `docs` is one transaction. */
  async apply(events: StoredEvent[], docs: Documents, only: Projection[] = this.projections): Promise<void> {
    if (events.length === 0) return;
    await inBatch(docs, (batch) => this.#apply(events, batch, only));
  }

  async #apply(events: StoredEvent[], docs: Documents, only: Projection[]): Promise<void> {
    const progress = applyProgress.getStore();
    const stored = await docs.getMany<CheckpointDoc>(
      CHECKPOINTS,
      PARTITION,
      only.map((p) => p.name),
    );
    const checkpoints = new Map(only.map((p) => [p.name, stored.find((d) => d.id === p.name)?.position ?? 0]));
    for (const [i, event] of events.entries()) {
      for (const p of only) {
        if (event.position > checkpoints.get(p.name)!) await applyEvent(p, event, docs);
      }
      if (progress && (i + 1) % PROGRESS_EVERY === 0) progress(i + 1, events.length, events);
      if ((i + 1) % YIELD_EVERY === 0 && i + 1 < events.length) await nextTurn();
    }
    progress?.(events.length, events.length, events);
    const last = events[events.length - 1]!.position;
    for (const p of only) {
      if (last > checkpoints.get(p.name)!) await docs.upsert(CHECKPOINTS, PARTITION, { id: p.name, position: last, version: versionOf(p) });
    }
  }

  /** Brings every projection up to the head of the log, a batch per transaction; `signal` stops it between batches. */
  async catchUp(signal?: AbortSignal): Promise<number> {
    let applied = 0;
    for (;;) {
      // A turn of the event loop between batches: the embedded store answers synchronously, so
      // without it a signal (or a request) would wait for the whole catch-up.
      await nextTurn();
      signal?.throwIfAborted();
      const from = await this.lowestCheckpoint();
      const batch = await this.#eventStore.readAll(from, BATCH);
      if (batch.length === 0) return applied;
      await this.applyBatch(batch);
      applied += batch.length;
    }
  }

  /** Projections whose documents an older version built: they need a replay before serving. */
  async outdated(): Promise<string[]> {
    const docs = await this.#readStore.getMany<CheckpointDoc>(
      CHECKPOINTS,
      PARTITION,
      this.projections.map((p) => p.name),
    );
    return this.projections.filter((p) => docs.some((d) => d.id === p.name && (d.version ?? 1) !== versionOf(p))).map((p) => p.name);
  }

  /** Replays the outdated projections; returns their names. */
  async upgrade(progress?: Progress, signal?: AbortSignal): Promise<string[]> {
    const names = await this.outdated();
    if (names.length > 0) await this.replay(names, progress, signal);
    return names;
  }

  /**
   * Rebuilds projections from position zero into fresh collections, then swaps them in. Events
   * appended meanwhile are applied inside the swap, so nothing is missed.
   */
  async replay(
    names: string[] = this.projections.map((p) => p.name),
    progress?: Progress,
    signal?: AbortSignal,
  ): Promise<{ events: number; position: number }> {
    const selected = names.map((n) => {
      const p = this.projections.find((x) => x.name === n);
      if (!p) throw new Error(`no projection named ${n}; known: ${this.projections.map((x) => x.name).join(', ')}`);
      return p;
    });
    // Keep the runner's order (athletes first) whatever order the names came in.
    const ordered = this.projections.filter((p) => selected.includes(p));
    const label = Object.fromEntries(ordered.map((p) => [p.name, versionOf(p)]));
    const rebuild = await this.#readStore.beginRebuild(
      ordered.flatMap((p) => p.collections),
      label,
    );
    let position = 0;
    let events = 0;
    try {
      const head = await this.#eventStore.headPosition();
      for (;;) {
        await nextTurn(); // as in catchUp
        signal?.throwIfAborted();
        const batch = await this.#eventStore.readAll(position, BATCH);
        if (batch.length === 0) break;
        const reached = batch[batch.length - 1]!.position;
        // Not fenced: the fresh collections are this rebuild's own until the swap, which is.
        await rebuild.transaction((docs) => applyAll(batch, docs, ordered), reached);
        position = reached;
        events += batch.length;
        progress?.(Math.min(position, head), head);
      }
      signal?.throwIfAborted();
      const fence = this.#fence;
      await this.#serially(() =>
        rebuild.swap(async (live, from) => {
          await fence?.(live);
          const reached = await this.#finishSwap(live, ordered, from);
          events += reached.events;
          position = reached.position;
        }),
      );
    } catch (error) {
      // Drops the fresh collections; a swap that had begun making them live (MongoDB) is left
      // for the next start's `finishInterruptedSwaps` instead.
      await rebuild.discard().catch(() => undefined);
      throw error;
    }
    return { events, position };
  }

  /**
   * Brings swapped-in projections from `from` (where their collections were rebuilt to) to the
   * head of the log and sets their checkpoints, in the caller's transaction. Keeps no state of its
   * own between calls, so a retried transaction runs it again from the same `from`.
   */
  async #finishSwap(live: Documents, rebuilt: Projection[], from: number): Promise<{ events: number; position: number }> {
    let position = from;
    let events = 0;
    for (;;) {
      const batch = await this.#eventStore.readAll(position, BATCH);
      if (batch.length === 0) break;
      await applyAll(batch, live, rebuilt);
      position = batch[batch.length - 1]!.position;
      events += batch.length;
    }
    for (const p of rebuilt) await live.upsert(CHECKPOINTS, PARTITION, { id: p.name, position, version: versionOf(p) });
    return { events, position };
  }

  /** Where following the log starts: the checkpoint of the projection furthest behind. */
  async lowestCheckpoint(): Promise<number> {
    const docs = await this.#readStore.getMany<CheckpointDoc>(
      CHECKPOINTS,
      PARTITION,
      this.projections.map((p) => p.name),
    );
    return docs.length < this.projections.length ? 0 : Math.min(...docs.map((d) => d.position));
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.#eventStore.headPosition();
    const out: ProjectionStatus[] = [];
    for (const p of this.projections) {
      const checkpoint = (await this.#readStore.get<CheckpointDoc>(CHECKPOINTS, PARTITION, p.name))?.position ?? 0;
      const lag = checkpoint >= head ? 0 : (await this.#eventStore.readAll(checkpoint, 10_000)).length;
      out.push({ name: p.name, checkpoint, head, lag_events: lag });
    }
    return out;
  }
}

async function applyAll(events: StoredEvent[], docs: Documents, projections: Projection[]): Promise<void> {
  await inBatch(docs, async (batch) => {
    for (const event of events) {
      for (const p of projections) await applyEvent(p, event, batch);
    }
  });
}

/**
 * One event to one projection. A deleted account is forgotten by every projection whatever
 * events it handles: its events may still be in the log before it (KurrentDB keeps a deleted
 * stream's events in $all until a scavenge), or have been rebuilt by a replay that raced the
 * deletion; from this event on, none of them shows.
 */
async function applyEvent(p: Projection, event: StoredEvent, docs: Documents): Promise<void> {
  if (event.type === 'account.deleted') {
    const { athlete_id } = accountDeletionEvent.shape.data.parse(event.data);
    if (athlete_id) await forgetAthlete(docs, p.collections, athlete_id);
    return;
  }
  if (p.handles(event.type)) await p.apply(event, docs);
}
