// The Hevy sync (issue 41): an athlete connects their Hevy account with an API key (Hevy Pro),
// and their workouts come over through Hevy's public API, in the background or when asked.
//
// Where things are kept:
//   - the connection (`hevy-<athlete>` stream): the API key, sealed under a key of its own in the
//     key store (services/writes/sealed.ts), paused or not. Disconnecting destroys that key, so
//     the key is unreadable wherever the event is (the log, a backup of it); it is sealed again
//     under a new key weekly, as retention destroys sealing keys older than its period;
//   - the position (where the next run reads Hevy's events feed from) on the record stream, in the
//     run's `hevy.synced`, appended with the run's record changes in one append (actor
//     `hevy-sync`): both land or neither, so a run stopped anywhere (a crash, a restart) leaves the
//     record and the position as the last run left them, and the next run reads from there;
//   - each run's progress, result and error, with the lease that lets one instance at a time run
//     an athlete's sync, in the read store (`hevy_sync_runs`): operational state, lost with the
//     read store at no cost but the last error shown.
//
// The decision itself is the pure `decideHevySync` (services/domain/hevy-sync.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { streams, type Actor, type HevyConnectionEvent, type Sealed } from '../../contracts/events.ts';
import type { HevyExerciseTemplate } from '../../contracts/hevy.ts';
import { HEVY_CONNECTIONS, HEVY_CONNECTIONS_PARTITION, type HevyConnectionDoc } from '../../projections/hevy-connections.ts';
import { decideAndAppend } from '../commands/handler.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { decideHevySync, HEVY_BEGINNING, hevySyncKeys, templatesNeeded, type HevySyncSummary } from '../domain/hevy-sync.ts';
import type { EventStore, StoredEvent } from '../store/event-store.ts';
import type { KeyStore } from '../store/key-store.ts';
import type { Maintenance } from '../operations/maintenance.ts';
import { processAlive } from '../store/process-alive.ts';
import { pagesOf, type CollectionSpec, type Doc, type ReadStore } from '../store/read-store.ts';
import { SealedDetails } from '../writes/sealed.ts';
import { HevyClient, HevyKeyRejected, HevyUnavailable, type HevyClientOptions } from './hevy-client.ts';

export const HEVY_RUNS = 'hevy_sync_runs';
const RUN_ID = 'hevy';
/**
 * A run's lease: renewed with every page and template read and every wait Hevy asks for (at most
 * five minutes each: longer ones end the run), so only a run that stopped loses it. A dead process
 * of this host frees it at once; one of another host, when it runs out.
 */
const RUN_LEASE_MS = 10 * 60_000;
/** Tries of the key check when connecting (an athlete waits on the page). */
const CONNECT_ATTEMPTS = 2;
/** A sealing key older than this is replaced at the next run: well inside retention's 30 days. */
export const HEVY_RESEAL_AFTER_MS = 7 * 86_400_000;
/** After a failure other than Hevy's own Retry-After: 1 minute, doubled each time, at most 6 hours. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 3_600_000;

/** What a run can say went wrong, for the athlete and for a program (`code`). */
export type HevySyncErrorCode =
  | 'not_connected'
  | 'paused'
  /** Hevy refused the key (revoked, or Hevy Pro ended): nothing is tried again until the athlete connects again. */
  | 'key_rejected'
  /** The sealed key cannot be opened (its sealing key is gone): connect again. */
  | 'key_unreadable'
  /** Hevy kept answering 429 or 5xx, or could not be reached: tried again at `retry_at`. */
  | 'hevy_unavailable'
  /** Another instance is running this athlete's sync. */
  | 'running'
  /** An operator paused writes (`repledger maintenance pause writes`): no run changes the record meanwhile. */
  | 'maintenance'
  | 'failed';

export class HevySyncError extends Error {
  readonly code: HevySyncErrorCode;
  /** A refusal with a stable code, as the CLI and the web app tell one (not a failure of ours). */
  readonly refusal = true;
  constructor(code: HevySyncErrorCode, message: string) {
    super(message);
    this.name = 'HevySyncError';
    this.code = code;
  }
}

interface RunDoc extends Doc {
  athlete_id: string;
  /** The connection this run state is of: a new connection starts afresh. */
  connection_id: string;
  state: 'running' | 'ok' | 'error';
  started_at: string;
  finished_at: string | null;
  progress: { page: number; page_count: number } | null;
  summary: HevySyncSummary | null;
  error: { code: HevySyncErrorCode; message: string } | null;
  /** When the background sync may try again after a failure; null: on its usual schedule. */
  retry_at: string | null;
  failures: number;
  lease: { holder: string; token: number; expires_at: number } | null;
}

/** The athlete's connection, folded from its stream; null when not connected. */
export interface HevyConnection {
  connection_id: string;
  key: Sealed;
  /** When the key was last sealed (the connection, or its last reseal). */
  sealed_at: string;
  connected_at: string;
  hevy_user: { id: string; name: string | null };
  paused: boolean;
  /** Every sealing key the stream ever named: destroyed on disconnect. */
  key_ids: string[];
}

export interface HevySyncStatus {
  connected: boolean;
  paused: boolean;
  hevy_user_name: string | null;
  connected_at: string | null;
  /** Where the next run reads Hevy's feed from; null before the first run. */
  position: string | null;
  last_run: {
    state: RunDoc['state'];
    started_at: string;
    finished_at: string | null;
    progress: RunDoc['progress'];
    summary: HevySyncSummary | null;
    error: RunDoc['error'];
    retry_at: string | null;
  } | null;
  /** When the background sync will next run this athlete; null when it will not by itself. */
  next_run_at: string | null;
  /** The latest runs that changed the record (their `hevy.synced`), newest first, as the projection has them. */
  history: HevyConnectionDoc['history'];
}

export interface HevySyncDeps {
  events: EventStore;
  reads: ReadStore;
  keys: KeyStore;
  records: RecordService;
  clock: Clock;
  /** The operator's switch: while writes are paused, no run starts. */
  maintenance?: Pick<Maintenance, 'retryAfter'>;
  /** Hevy's API, and how often to sync in the background (0: only when asked). */
  config: { apiUrl: string; everyMs: number };
  /** Client options a test sets (its fetch, a sleep that does not sleep). */
  client?: Omit<HevyClientOptions, 'apiKey' | 'baseUrl'>;
}

export interface RunOptions {
  /** Told of each page of Hevy's feed read, and of each wait Hevy asked for. */
  onProgress?: (progress: { page: number; page_count: number } | { waiting_ms: number }) => void;
}

export class HevySync {
  static readonly collections: CollectionSpec[] = [{ name: HEVY_RUNS, indexes: [] }];
  readonly #d: HevySyncDeps;
  readonly #sealed: SealedDetails;
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** Whether a lease's holder is a process of this machine that is gone (killed mid-run): its lease is free at once. */
  readonly #deadHere = (holder: string) => {
    const [host, pid] = holder.split(':');
    return host === hostname() && !processAlive(Number(pid));
  };

  constructor(deps: HevySyncDeps) {
    this.#d = deps;
    this.#sealed = new SealedDetails(deps.keys, deps.clock);
  }

  #client(apiKey: string, onProgress?: RunOptions['onProgress'], maxAttempts?: number): HevyClient {
    return new HevyClient({
      ...this.#d.client,
      ...(maxAttempts !== undefined && { maxAttempts }),
      apiKey,
      baseUrl: this.#d.config.apiUrl,
      onWait: (wait) => {
        this.#d.client?.onWait?.(wait);
        onProgress?.({ waiting_ms: wait.ms });
      },
    });
  }

  /** The athlete's connection as its stream says now; null when not connected. */
  async connection(athleteId: string): Promise<HevyConnection | null> {
    return connectionOf(await this.#d.events.readStream(streams.hevy(athleteId)));
  }

  /**
   * Connects (or connects again, replacing the key) after Hevy accepted the key. The key is sealed
   * before anything names it, and the key it replaces is destroyed once the new one is in place.
   */
  async connect(athleteId: string, apiKey: string, actor: Actor): Promise<{ hevy_user: { id: string; name: string | null } }> {
    const key = apiKey.trim();
    if (!/^[\x21-\x7e]{8,200}$/.test(key))
      throw new DomainError('invalid_input', 'a Hevy API key is 8 to 200 characters without spaces (Hevy > Settings > Developer)');
    let user: { id: string; name?: string };
    try {
      // Someone is waiting on the answer: two tries, not a run's patient five.
      user = await this.#client(key, undefined, CONNECT_ATTEMPTS).user();
    } catch (error) {
      if (error instanceof HevyKeyRejected)
        throw new HevySyncError('key_rejected', 'Hevy did not accept this API key: check it in Hevy (Settings > Developer; Hevy Pro is needed)');
      if (error instanceof HevyUnavailable) throw new HevySyncError('hevy_unavailable', `${error.message}; the key was not saved`);
      throw error;
    }
    const hevyUser = { id: user.id.slice(0, 100), name: user.name?.slice(0, 200) ?? null };
    const sealed = await this.#sealed.seal(athleteId, key);
    const replaced = await decideAndAppend(this.#d.events, this.#d.clock, {
      stream: streams.hevy(athleteId),
      athleteId,
      actor,
      what: 'the Hevy connection',
      decide: (history) => {
        const before = connectionOf(history);
        const event: HevyConnectionEvent = { type: 'hevy.connected', data: { connection_id: randomUUID(), key: sealed, hevy_user: hevyUser } };
        return { events: [event], result: before?.key_ids ?? [] };
      },
    });
    if (replaced.length) await this.#d.keys.destroy(replaced);
    return { hevy_user: hevyUser };
  }

  /** Pauses or resumes the sync (runs stop, the connection and the position stay). */
  async setPaused(athleteId: string, paused: boolean, actor: Actor): Promise<void> {
    await decideAndAppend(this.#d.events, this.#d.clock, {
      stream: streams.hevy(athleteId),
      athleteId,
      actor,
      what: 'the Hevy connection',
      decide: (history) => {
        const c = connectionOf(history);
        if (!c) throw new HevySyncError('not_connected', 'Hevy is not connected');
        if (c.paused === paused) return { events: [], result: undefined };
        const event: HevyConnectionEvent = paused
          ? { type: 'hevy.paused', data: { connection_id: c.connection_id } }
          : { type: 'hevy.resumed', data: { connection_id: c.connection_id } };
        return { events: [event], result: undefined };
      },
    });
  }

  /**
   * Disconnects: the key's sealing key is destroyed (the key can no longer be read anywhere), the
   * run state dropped. What the sync wrote to the record stays; connecting again goes on from the
   * record's position. Disconnecting what is not connected does nothing.
   */
  async disconnect(athleteId: string, actor: Actor): Promise<{ disconnected: boolean }> {
    const history = await this.#d.events.readStream(streams.hevy(athleteId));
    const keyIds = [...new Set(history.flatMap(keyIdsOf))];
    const disconnected = await decideAndAppend(this.#d.events, this.#d.clock, {
      stream: streams.hevy(athleteId),
      athleteId,
      actor,
      what: 'the Hevy connection',
      decide: (events) => {
        const c = connectionOf(events);
        if (!c) return { events: [], result: false };
        const event: HevyConnectionEvent = { type: 'hevy.disconnected', data: { connection_id: c.connection_id } };
        return { events: [event], result: true };
      },
    });
    if (keyIds.length) await this.#d.keys.destroy(keyIds);
    await this.#d.reads.delete(HEVY_RUNS, athleteId, RUN_ID);
    return { disconnected };
  }

  async status(athleteId: string): Promise<HevySyncStatus> {
    const c = await this.connection(athleteId);
    const position = await this.#d.records.read(athleteId, async (loaded) => loaded.state.syncPositions.get('hevy') ?? null);
    const run = c ? await this.#run(athleteId, c.connection_id) : null;
    const projected = await this.#d.reads.get<HevyConnectionDoc>(HEVY_CONNECTIONS, HEVY_CONNECTIONS_PARTITION, athleteId);
    return {
      history: projected?.history ?? [],
      connected: c !== null,
      paused: c?.paused ?? false,
      hevy_user_name: c?.hevy_user.name ?? null,
      connected_at: c?.connected_at ?? null,
      position,
      last_run: run && {
        state: run.state === 'running' && !leaseLive(run, this.#d.clock.now().getTime()) ? 'error' : run.state,
        started_at: run.started_at,
        finished_at: run.finished_at,
        progress: run.progress,
        summary: run.summary,
        error:
          run.state === 'running' && !leaseLive(run, this.#d.clock.now().getTime())
            ? { code: 'failed', message: 'the run stopped (the process ended); the next run goes on from the position' }
            : run.error,
        retry_at: run.retry_at,
      },
      next_run_at: c && !c.paused ? this.#nextRunAt(run) : null,
    };
  }

  async #run(athleteId: string, connectionId: string): Promise<RunDoc | null> {
    const run = await this.#d.reads.get<RunDoc>(HEVY_RUNS, athleteId, RUN_ID);
    return run?.connection_id === connectionId ? run : null;
  }

  #nextRunAt(run: RunDoc | null): string | null {
    if (run?.error?.code === 'key_rejected' || run?.error?.code === 'key_unreadable') return null;
    if (run?.retry_at) return run.retry_at;
    if (this.#d.config.everyMs === 0) return null;
    if (!run?.finished_at) return this.#d.clock.now().toISOString();
    return new Date(Date.parse(run.finished_at) + this.#d.config.everyMs).toISOString();
  }

  /**
   * One run: Hevy's events feed since the record's position, the templates of exercises new to the
   * record, decided and appended in one append with the new position. Refused while another
   * instance runs the athlete (`running`), when not connected or paused. Its result or error is
   * kept for `status` either way.
   */
  async run(athleteId: string, options: RunOptions = {}): Promise<HevySyncSummary> {
    return (await this.begin(athleteId, options)).done;
  }

  /**
   * Starts a run and answers once it has started (connected, not paused, the lease taken), with
   * the run to wait for: the web app's "Sync now" answers at once and the page shows the progress.
   * A run nobody waits for keeps its result or error for `status` all the same.
   */
  async begin(athleteId: string, options: RunOptions = {}): Promise<{ done: Promise<HevySyncSummary> }> {
    const c = await this.connection(athleteId);
    if (!c) throw new HevySyncError('not_connected', 'Hevy is not connected: connect it with an API key first');
    if (c.paused) throw new HevySyncError('paused', 'the Hevy sync is paused: resume it first');
    const wait = (await this.#d.maintenance?.retryAfter('write')) ?? null;
    if (wait !== null) throw new HevySyncError('maintenance', `changing the record is paused for maintenance; try again in ${wait} seconds`);
    const token = await this.#takeLease(athleteId, c.connection_id);
    if (token === null) throw new HevySyncError('running', "this athlete's Hevy sync is running already (in this or another instance)");
    const done = this.#runHeld(athleteId, c, token, options).then(
      async (summary) => {
        await this.#finish(athleteId, token, (run) => ({ ...run, state: 'ok', summary, error: null, retry_at: null, failures: 0 }));
        return summary;
      },
      async (caught: unknown) => {
        const error = asSyncError(caught);
        await this.#finish(athleteId, token, (run) => {
          const failures = run.failures + 1;
          const retryMs = caught instanceof HevyUnavailable ? caught.retryAfterMs : Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), LONGEST_RETRY_MS);
          const stops = error.code === 'key_rejected' || error.code === 'key_unreadable';
          return {
            ...run,
            state: 'error',
            error: { code: error.code, message: error.message.slice(0, 500) },
            retry_at: stops ? null : new Date(this.#d.clock.now().getTime() + Math.max(retryMs, FIRST_RETRY_MS)).toISOString(),
            failures,
          };
        }).catch(() => undefined);
        throw error;
      },
    );
    return { done };
  }

  async #runHeld(athleteId: string, c: HevyConnection, token: number, options: RunOptions): Promise<HevySyncSummary> {
    const apiKey = await this.#sealed.open<string>(c.key);
    if (apiKey === null) throw new HevySyncError('key_unreadable', 'the saved Hevy key can no longer be read; connect Hevy again');
    if (this.#d.clock.now().getTime() - Date.parse(c.sealed_at) > HEVY_RESEAL_AFTER_MS) await this.#reseal(athleteId, c, apiKey);
    const client = this.#client(apiKey, (progress) => {
      options.onProgress?.(progress);
      if ('waiting_ms' in progress) void this.#renew(athleteId, token).catch(() => undefined);
    });
    const state = await this.#d.records.read(athleteId, async (loaded) => ({
      since: loaded.state.syncPositions.get('hevy') ?? HEVY_BEGINNING,
    }));
    const events = await client.allEvents(state.since, (page, pageCount) => {
      options.onProgress?.({ page, page_count: pageCount });
      void this.#progress(athleteId, token, { page, page_count: pageCount }).catch(() => undefined);
    });
    const neededIds = await this.#d.records.read(athleteId, async (loaded) => templatesNeeded(events, loaded.state));
    const templates = new Map<string, HevyExerciseTemplate>();
    for (const id of neededIds) {
      const template = await client.exerciseTemplate(id);
      if (template) templates.set(id, template);
      await this.#renew(athleteId, token);
    }
    await this.#renew(athleteId, token);
    const actor: Actor = { type: 'hevy-sync', id: c.connection_id };
    return this.#d.records.command(athleteId, actor, async (loaded) => {
      const command = { since: state.since, events, templates, now: this.#d.clock.now() };
      const images = await loaded.images(hevySyncKeys(command, loaded.state));
      const decision = decideHevySync(command, loaded.state, images);
      return { events: decision.events, result: decision.summary };
    });
  }

  /** Seals the key again under a new sealing key and destroys the old one (see HEVY_RESEAL_AFTER_MS). */
  async #reseal(athleteId: string, c: HevyConnection, apiKey: string): Promise<void> {
    const sealed = await this.#sealed.seal(athleteId, apiKey);
    const done = await decideAndAppend(this.#d.events, this.#d.clock, {
      stream: streams.hevy(athleteId),
      athleteId,
      actor: { type: 'hevy-sync', id: c.connection_id },
      what: 'the Hevy connection',
      decide: (history) => {
        const now = connectionOf(history);
        if (now?.connection_id !== c.connection_id) return { events: [], result: false };
        const event: HevyConnectionEvent = { type: 'hevy.key_resealed', data: { connection_id: c.connection_id, key: sealed } };
        return { events: [event], result: true };
      },
    });
    await this.#d.keys.destroy(done ? [c.key.key_id] : [sealed.key_id]);
  }

  /** Takes the athlete's run lease: the run's token, or null while another live run holds it. */
  async #takeLease(athleteId: string, connectionId: string): Promise<number | null> {
    const now = this.#d.clock.now();
    return this.#d.reads.transaction(async (docs) => {
      const run = await docs.get<RunDoc>(HEVY_RUNS, athleteId, RUN_ID);
      if (run?.lease && run.lease.holder !== this.holder && run.lease.expires_at > now.getTime() && !this.#deadHere(run.lease.holder)) return null;
      const token = (run?.lease?.token ?? 0) + 1;
      const kept = run?.connection_id === connectionId ? run : null;
      await docs.upsert(HEVY_RUNS, athleteId, {
        id: RUN_ID,
        athlete_id: athleteId,
        connection_id: connectionId,
        state: 'running',
        started_at: now.toISOString(),
        finished_at: kept?.finished_at ?? null,
        progress: null,
        summary: kept?.summary ?? null,
        error: null,
        retry_at: null,
        failures: kept?.failures ?? 0,
        lease: { holder: this.holder, token, expires_at: now.getTime() + RUN_LEASE_MS },
      } satisfies RunDoc);
      return token;
    });
  }

  /** Changes the run document while this run holds its lease (another that took over is left alone). */
  async #whileHeld(athleteId: string, token: number, change: (run: RunDoc) => RunDoc): Promise<void> {
    await this.#d.reads.transaction(async (docs) => {
      const run = await docs.get<RunDoc>(HEVY_RUNS, athleteId, RUN_ID);
      if (!run || run.lease?.holder !== this.holder || run.lease.token !== token) return;
      await docs.upsert(HEVY_RUNS, athleteId, change(run));
    });
  }

  #renew(athleteId: string, token: number): Promise<void> {
    const expires = this.#d.clock.now().getTime() + RUN_LEASE_MS;
    return this.#whileHeld(athleteId, token, (run) => ({ ...run, lease: { ...run.lease!, expires_at: expires } }));
  }

  #progress(athleteId: string, token: number, progress: RunDoc['progress']): Promise<void> {
    const expires = this.#d.clock.now().getTime() + RUN_LEASE_MS;
    return this.#whileHeld(athleteId, token, (run) => ({ ...run, progress, lease: { ...run.lease!, expires_at: expires } }));
  }

  #finish(athleteId: string, token: number, change: (run: RunDoc) => RunDoc): Promise<void> {
    const at = this.#d.clock.now().toISOString();
    return this.#whileHeld(athleteId, token, (run) => ({ ...change(run), finished_at: at, lease: { ...run.lease!, expires_at: 0 } }));
  }

  /**
   * The background's turn: every connected athlete whose run is due (on schedule, or past a
   * failure's retry time), one after another. Failures are kept per athlete (`status`), not thrown.
   */
  async runDue(options: { signal?: AbortSignal; onError?: (athleteId: string, error: HevySyncError) => void } = {}): Promise<number> {
    let ran = 0;
    const now = this.#d.clock.now().getTime();
    const pages = pagesOf<HevyConnectionDoc>(
      this.#d.reads,
      HEVY_CONNECTIONS,
      { partition: HEVY_CONNECTIONS_PARTITION, index: 'by_state', direction: 'asc', limit: 200, prefix: ['connected'] },
      (doc) => [doc.state, doc.id],
    );
    for await (const page of pages) {
      for (const doc of page) {
        if (options.signal?.aborted) return ran;
        if (!doc.connection_id) continue;
        const run = await this.#run(doc.athlete_id, doc.connection_id);
        const next = this.#nextRunAt(run);
        if (next === null || Date.parse(next) > now || (run && leaseLive(run, now))) continue;
        try {
          await this.run(doc.athlete_id);
          ran++;
        } catch (error) {
          // Paused or disconnected since the projection said otherwise, or another instance took it: nothing to report.
          const e = asSyncError(error);
          if (!['not_connected', 'paused', 'running', 'maintenance'].includes(e.code)) options.onError?.(doc.athlete_id, e);
        }
      }
    }
    return ran;
  }

  /**
   * Runs `runDue` every `tickMs` until stopped (the server's background sync). In distributed mode
   * every instance does: the per-athlete lease lets one run each athlete at a time.
   */
  schedule(onError: (athleteId: string | null, error: unknown) => void, tickMs = 30_000): () => Promise<void> {
    if (this.#d.config.everyMs === 0) return async () => {};
    const stop = new AbortController();
    let turn: Promise<unknown> = Promise.resolve();
    const tick = () => {
      turn = turn
        .then(() => this.runDue({ signal: stop.signal, onError: (athleteId, error) => onError(athleteId, error) }))
        .catch((error: unknown) => onError(null, error));
    };
    const timer = setInterval(tick, tickMs);
    timer.unref();
    tick();
    return async () => {
      clearInterval(timer);
      stop.abort();
      await turn;
    };
  }
}

function leaseLive(run: RunDoc, now: number): boolean {
  if (run.state !== 'running' || run.lease === null || run.lease.expires_at <= now) return false;
  const [host, pid] = run.lease.holder.split(':');
  return host !== hostname() || processAlive(Number(pid));
}

function asSyncError(error: unknown): HevySyncError {
  if (error instanceof HevySyncError) return error;
  if (error instanceof HevyKeyRejected) return new HevySyncError('key_rejected', error.message);
  if (error instanceof HevyUnavailable) return new HevySyncError('hevy_unavailable', error.message);
  return new HevySyncError('failed', error instanceof Error ? error.message : String(error));
}

function keyIdsOf(event: StoredEvent): string[] {
  const key = (event.data as { key?: { key_id?: unknown } }).key?.key_id;
  return typeof key === 'string' ? [key] : [];
}

/** The connection a stream's events leave; null when never connected or disconnected last. */
export function connectionOf(history: readonly StoredEvent[]): HevyConnection | null {
  let c = null as HevyConnection | null;
  const keyIds: string[] = [];
  const change = (part: Partial<HevyConnection>) => {
    if (c) c = { ...c, ...part };
  };
  for (const stored of history) {
    const event = stored as unknown as HevyConnectionEvent;
    const at = String(stored.metadata.occurred_at);
    keyIds.push(...keyIdsOf(stored));
    switch (event.type) {
      case 'hevy.connected':
        c = {
          connection_id: event.data.connection_id,
          key: event.data.key,
          sealed_at: at,
          connected_at: at,
          hevy_user: event.data.hevy_user,
          paused: false,
          key_ids: [],
        };
        break;
      case 'hevy.key_resealed':
        change({ key: event.data.key, sealed_at: at });
        break;
      case 'hevy.paused':
        change({ paused: true });
        break;
      case 'hevy.resumed':
        change({ paused: false });
        break;
      case 'hevy.disconnected':
        c = null;
        break;
    }
  }
  return c && { ...c, key_ids: [...new Set(keyIds)] };
}
