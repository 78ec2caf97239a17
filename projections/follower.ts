// Following the log (worker mode: the embedded store with EMBEDDED_PROJECTIONS=worker, or
// KurrentDB + MongoDB): every `serve` with a projector and every `projections run` starts one, and
// of all of them only the holder of the projector lease (./lease.ts) writes read models. The
// others wait and take over when the holder stops or its lease runs out.
//
// The holder:
// - catches up every projection, a batch per transaction;
// - applies live events in batches: what arrives while one transaction runs is the next batch,
//   so a quiet log costs a transaction per event and a busy one a transaction per many;
// - rebuilds projections whose version changed beside their live collections, in the background:
//   the live ones keep serving and following (with this release's code) until the rebuild has
//   caught up and is swapped in; every other projection keeps following meanwhile.
import type { EventStore, StoredEvent, Subscription } from '../services/store/event-store.ts';
import { LeaseLost, type ProjectorLease } from './lease.ts';
import { BATCH, type ProjectionRunner } from './runner.ts';

/** What the follower is doing, for the process's log. */
export type FollowerState =
  /** Another process holds the lease. */
  { state: 'waiting' } | { state: 'following'; token: number } | { state: 'rebuilding'; projections: string[] } | { state: 'rebuilt'; projections: string[] };

export interface FollowOptions {
  /** A failure the follower cannot go on from (the store is gone): the process should stop. */
  onError: (error: unknown) => void;
  onState?: (state: FollowerState) => void;
  /** Stops start-up between two batches, with the signal's reason. */
  signal?: AbortSignal;
  /** Most live events one transaction applies (LIVE_BATCH); 1 is the old way, for `npm run bench -- projection`. */
  liveBatch?: number;
}

export class Follower {
  readonly #runner: ProjectionRunner;
  readonly #events: EventStore;
  readonly #lease: ProjectorLease;
  readonly #options: FollowOptions;
  #timer: NodeJS.Timeout | null = null;
  /** From taking the lease until standing down: renewals run meanwhile, even during a long catch-up. */
  #leading = false;
  #live: LiveBatches | null = null;
  #rebuild: { stop: AbortController; done: Promise<void> } | null = null;
  #stopped = false;
  /** Taking the lease and starting up, or a renewal: what `stop` waits for. */
  #step: Promise<void> | null = null;
  #lastState = '';

  constructor(runner: ProjectionRunner, events: EventStore, lease: ProjectorLease, options: FollowOptions) {
    this.#runner = runner;
    this.#events = events;
    this.#lease = lease;
    this.#options = options;
  }

  /**
   * Takes the lease if it can, then catches up and follows; or, if another process holds it,
   * waits for it in the background. Resolves once either is under way; rejects with the signal's
   * reason if it is stopped during start-up (the lease given up).
   */
  async start(): Promise<void> {
    try {
      await this.#lead();
    } catch (error) {
      await this.stop();
      throw error;
    }
    // A third of the lease: two renewals may fail (a slow store) before it runs out.
    this.#timer = setInterval(() => this.#tick(), this.#lease.ms / 3);
  }

  /** Whether this process holds the lease and follows the log. */
  get following(): boolean {
    return this.#live !== null;
  }

  /** Stops following (a live batch in flight finishes), abandons a rebuild, and gives the lease up. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#step?.catch(() => undefined);
    await this.#standDown();
    await this.#lease.release().catch(() => undefined);
  }

  #tick(): void {
    if (this.#stopped || this.#step) return;
    const step = this.#leading ? this.#renew() : this.#lead();
    this.#step = step.catch((error: unknown) => this.#fail(error)).finally(() => (this.#step = null));
  }

  async #renew(): Promise<void> {
    if (!(await this.#lease.renew())) await this.#lost();
  }

  /** Takes the lease if it is free; then catches up, follows, and rebuilds what is outdated. */
  async #lead(): Promise<void> {
    const { signal } = this.#options;
    const token = await this.#lease.acquire();
    if (token === null) return this.#state({ state: 'waiting' });
    this.#leading = true;
    this.#runner.fencedBy((docs) => this.#lease.fence(docs));
    try {
      const outdated = await this.#runner.outdated();
      // Every projection, outdated ones included (they keep serving their old documents until
      // their rebuild is swapped in), from the lowest checkpoint.
      await this.#runner.catchUp(signal);
      signal?.throwIfAborted();
      const from = await this.#runner.lowestCheckpoint();
      const live = new LiveBatches(this.#runner, this.#options.liveBatch ?? LIVE_BATCH, (error) => this.#failed(error));
      this.#live = live;
      live.subscription = this.#events.subscribeAll(
        from,
        (event) => live.add(event),
        (error) => this.#failed(error),
      );
      this.#state({ state: 'following', token });
      if (outdated.length > 0) this.#rebuildInBackground(outdated);
    } catch (error) {
      if (error instanceof LeaseLost) return this.#lost();
      throw error;
    }
  }

  #rebuildInBackground(names: string[]): void {
    const stop = new AbortController();
    this.#state({ state: 'rebuilding', projections: names });
    const done = this.#runner.replay(names, undefined, stop.signal).then(
      () => this.#state({ state: 'rebuilt', projections: names }),
      (error: unknown) => (stop.signal.aborted ? undefined : this.#failed(error)),
    );
    this.#rebuild = { stop, done };
  }

  #failed(error: unknown): void {
    if (error instanceof LeaseLost) void this.#lost();
    else this.#fail(error);
  }

  /** Another process has the lease: stop writing, and wait for it like any other process. */
  async #lost(): Promise<void> {
    await this.#standDown();
    this.#state({ state: 'waiting' });
  }

  async #standDown(): Promise<void> {
    this.#leading = false;
    this.#runner.fencedBy(null);
    const rebuild = this.#rebuild;
    this.#rebuild = null;
    rebuild?.stop.abort(new Error('the follower stopped'));
    await rebuild?.done;
    const live = this.#live;
    this.#live = null;
    await live?.stop();
  }

  #state(state: FollowerState): void {
    const key = JSON.stringify(state);
    if (key === this.#lastState) return;
    this.#lastState = key;
    this.#options.onState?.(state);
  }

  #fail(error: unknown): void {
    if (this.#stopped) return;
    this.#options.onError(error);
  }
}

/** Most events one live transaction applies; more wait for the next. */
export const LIVE_BATCH = BATCH;

/**
 * Live events, applied a batch per transaction: the subscription hands them over one by one, and
 * whatever arrived while a transaction ran is the next batch. The subscription waits when a full
 * batch is queued, so nothing piles up in memory.
 */
class LiveBatches {
  subscription: Subscription | null = null;
  readonly #runner: ProjectionRunner;
  readonly #most: number;
  readonly #onError: (error: unknown) => void;
  #queue: StoredEvent[] = [];
  #flushing: Promise<void> | null = null;
  #failed = false;

  constructor(runner: ProjectionRunner, most: number, onError: (error: unknown) => void) {
    this.#runner = runner;
    this.#most = most;
    this.#onError = onError;
  }

  async add(event: StoredEvent): Promise<void> {
    if (this.#failed) return;
    this.#queue.push(event);
    this.#flushing ??= this.#flush();
    if (this.#queue.length >= this.#most) await this.#flushing;
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#failed) {
        const batch = this.#queue.splice(0, this.#most);
        await this.#runner.applyBatch(batch);
      }
    } catch (error) {
      this.#failed = true;
      this.#queue = [];
      this.#onError(error);
    } finally {
      this.#flushing = null;
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    await this.#flushing;
  }
}
