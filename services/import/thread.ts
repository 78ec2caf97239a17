// A web upload's import, run in a worker thread (node:worker_threads, ./worker.ts) so that the
// server keeps answering while it runs. On the embedded store a 10 MB file held the event loop for
// seconds: reading the CSV (~0.7 s), deciding and checking its events (~0.8 s), the append's
// inserts, the inline projections (~1.7 s, a turn every 25 events) and the commit (~0.4 s, one
// block). All of it runs in the worker, which opens its own connections to the same stores and
// saves the file as `repledger import` does from its own process: one append, the projections in
// the same transaction, all or nothing. What stays here is what the upload needs anyway: reading
// the form, and this process's writers waiting for the worker's transaction (SQLite's lock is per
// connection; waiting on it holds the event loop, see SqliteDatabase.hold).
//
// One worker per app, started with the first upload and kept (unreferenced, so an idle one holds no
// process open) until the server closes; a worker that dies fails its imports and the next upload
// starts another.
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { AthleteState } from '../domain/athlete.ts';
import { DomainError, type DomainErrorCode, type Issue } from '../domain/errors.ts';
import { SqliteEventStore } from '../store/sqlite/event-store.ts';
import type { EventStore } from '../store/event-store.ts';
import type { Clock } from '../domain/clock.ts';
import type { Config } from '../config.ts';
import type { DistanceUnit, WeightUnit } from './csv.ts';
import type { GarminResult } from './garmin.ts';
import type { ImportResult } from './run.ts';
import type { ExportApp } from './types.ts';

/**
 * How much lower the worker's CPU priority is than the server's (where a thread can have its own,
 * on Linux): on a busy machine the import takes longer and requests do not. Its transaction then
 * lasts longer too, and this process's writers wait for it meanwhile (they waited for the whole
 * import when it ran on the event loop).
 */
export const IMPORT_NICENESS = 10;

/** Which importer reads the file, with what the athlete chose for it. */
export type ParseChoice = { app: 'hevy' } | { app: 'strong'; weightUnit: WeightUnit; distanceUnit: DistanceUnit } | { app: 'garmin' };

export interface ThreadImportInput {
  parse: ParseChoice;
  fileName: string;
  bytes: Buffer;
  /** How a refusal of another app's file says to import it, by the app it is from. */
  importHints?: Partial<Record<ExportApp, string>>;
}

/** The Health app's export, too large to hand over in memory: the worker streams it from `path`. */
export interface ThreadHealthInput {
  parse: { app: 'apple_health' };
  fileName: string;
  path: string;
}

/** The stores the worker opens: the app's own, by what its configuration named. */
export interface WorkerSetup {
  events: { engine: 'sqlite'; path: string } | { engine: 'kurrentdb'; url: string };
  /** Projections applied in the append's transaction (embedded inline mode), as the app does. */
  inlineProjections: boolean;
}

export interface ImportJob {
  id: number;
  athlete: AthleteState;
  input: (Omit<ThreadImportInput, 'bytes'> & { bytes: Uint8Array }) | ThreadHealthInput;
  /** The app's clock when the upload was handed over: the import's "now" and its events' time. */
  now: string;
  /**
   * For tests: the worker waits (Atomics.wait) before it reads the file until element 0 is not 0,
   * and, once this process holds its writers for it, before it writes until element 1 is not 0.
   */
  gate: Int32Array | null;
}

export type ToWorker = { type: 'import'; job: ImportJob } | { type: 'locked'; lock: number };

export type FromWorker =
  | { type: 'reading'; id: number }
  /** This process holds its writers for the job's write, which comes next. */
  | { type: 'saving'; id: number }
  | { type: 'done'; id: number; result: ImportResult | GarminResult }
  | { type: 'failed'; id: number; error: { domain: { code: DomainErrorCode; issues: Issue[] } | null; message: string; stack?: string } }
  /** The worker is about to write: this process's writers must wait until `unlock`. */
  | { type: 'lock'; lock: number }
  | { type: 'unlock'; lock: number };

interface Pending {
  resolve: (result: ImportResult | GarminResult) => void;
  reject: (error: Error) => void;
}

/**
 * Runs imports in the app's worker thread. Emits `reading` (the job's id) when the worker starts
 * to read a file, and `saving` when this process holds its writers for the job's write: tests hold
 * the worker at either with `gate`.
 */
/** What the import thread uses of the app: the worker opens stores of its own. */
export interface ImportThreadDeps {
  config: Pick<Config, 'kurrentdbUrl'>;
  clock: Clock;
  events: EventStore;
  projectionMode: 'inline' | 'worker';
}

export class ImportThread extends EventEmitter {
  readonly #app: ImportThreadDeps;
  #worker: Worker | null = null;
  readonly #jobs = new Map<number, Pending>();
  /** Releases of this process's write lock, held for the worker, by lock id. */
  readonly #holds = new Map<number, () => void>();
  #nextId = 1;
  /** For tests: see ImportJob.gate (two elements). */
  gate: Int32Array | null = null;

  constructor(app: ImportThreadDeps) {
    super();
    this.#app = app;
  }

  /** The import's summary; a Garmin upload's also counts its FIT files. */
  async run(athlete: AthleteState, input: ThreadImportInput | ThreadHealthInput): Promise<ImportResult | GarminResult> {
    const worker = await this.#started();
    const id = this.#nextId++;
    let handed: ImportJob['input'] = input as ThreadHealthInput;
    const moved: ArrayBuffer[] = [];
    if ('bytes' in input) {
      const { bytes, ...rest } = input;
      // Copied into a buffer of its own, which is moved to the worker rather than copied again.
      const own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
      handed = { ...rest, bytes: own };
      moved.push(own.buffer);
    }
    const job: ImportJob = { id, athlete, input: handed, now: this.#app.clock.now().toISOString(), gate: this.gate };
    const result = new Promise<ImportResult | GarminResult>((resolve, reject) => this.#jobs.set(id, { resolve, reject }));
    worker.ref();
    worker.postMessage({ type: 'import', job } satisfies ToWorker, moved);
    return result;
  }

  /** Starts the worker before the first upload (when the form is shown): it takes a moment to load. */
  warm(): void {
    this.#started().catch(() => undefined);
  }

  /** Stops the worker; imports still running fail, and nothing of theirs is saved. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#stopped(worker, new Error('the server closed while the import was running; nothing was imported'));
    await worker.terminate();
  }

  async #started(): Promise<Worker> {
    if (this.#worker) return this.#worker;
    const setup = await this.#setup();
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: setup });
    this.#worker = worker;
    worker.unref();
    worker.on('message', (message: FromWorker) => this.#received(worker, message));
    worker.on('error', (error) => this.#stopped(worker, new Error(`the import's worker failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.#stopped(worker, new Error(`the import's worker exited (${code})`)));
    return worker;
  }

  async #setup(): Promise<WorkerSetup> {
    const { config, events } = this.#app;
    const inlineProjections = this.#app.projectionMode === 'inline';
    if (events instanceof SqliteEventStore) return { events: { engine: 'sqlite', path: String((await events.describe()).path) }, inlineProjections };
    if (config.kurrentdbUrl) return { events: { engine: 'kurrentdb', url: config.kurrentdbUrl }, inlineProjections };
    throw new Error(`an import cannot run in a worker on the ${events.engine} event store`);
  }

  #received(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case 'reading':
      case 'saving':
        this.emit(message.type, message.id);
        return;
      case 'done':
      case 'failed': {
        const job = this.#jobs.get(message.id);
        this.#jobs.delete(message.id);
        if (this.#jobs.size === 0) worker.unref();
        if (!job) return;
        if (message.type === 'done') job.resolve(message.result);
        else job.reject(errorOf(message.error));
        return;
      }
      case 'lock': {
        const events = this.#app.events;
        if (!(events instanceof SqliteEventStore)) throw new Error('the import worker asked for the embedded store lock, which this app has not');
        void events.holdWrites(
          () =>
            new Promise<void>((release) => {
              this.#holds.set(message.lock, release);
              worker.postMessage({ type: 'locked', lock: message.lock } satisfies ToWorker);
            }),
        );
        return;
      }
      case 'unlock':
        this.#holds.get(message.lock)?.();
        this.#holds.delete(message.lock);
        return;
    }
  }

  /** A worker that failed or exited: its imports fail, the lock it held is let go, the next upload starts another. */
  #stopped(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    for (const job of this.#jobs.values()) job.reject(error);
    this.#jobs.clear();
    for (const release of this.#holds.values()) release();
    this.#holds.clear();
  }
}

function errorOf(error: Extract<FromWorker, { type: 'failed' }>['error']): Error {
  if (error.domain) return new DomainError(error.domain.code, error.message, error.domain.issues);
  const out = new Error(`the import failed in its worker: ${error.message}`);
  if (error.stack) out.stack = `${out.message}\n  in the worker: ${error.stack}`;
  return out;
}

const threads = new WeakMap<ImportThreadDeps, ImportThread>();

/** The app's import thread (the web upload's, and a test's way to watch or hold it). */
export function importThreadOf(app: ImportThreadDeps): ImportThread {
  let thread = threads.get(app);
  if (!thread) threads.set(app, (thread = new ImportThread(app)));
  return thread;
}
