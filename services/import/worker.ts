// The worker thread web uploads are imported in (started by ./thread.ts). It opens its own
// connections to the app's stores and runs the same import as the CLI (./run.ts): read and check
// the file, decide its events against the record, append them in one go, and on the embedded
// store in inline mode apply the projections in the append's transaction, as the app does
// (services/app.ts). Its writes to the embedded store are made while the app's process holds its
// writers back (`lock` / `unlock`): they then wait for this transaction as for one of their own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { projections } from '../../projections/index.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { RecordService } from '../commands/record-service.ts';
import type { EventStore } from '../store/event-store.ts';
import { openSqlite, type SqliteDatabase } from '../store/sqlite/database.ts';
import { SqliteEventStore } from '../store/sqlite/event-store.ts';
import { SqliteReadStore } from '../store/sqlite/read-store.ts';
import { importAppleHealth } from './apple-health.ts';
import { importGarmin, type GarminResult } from './garmin.ts';
import { parseHevy } from './hevy.ts';
import { importExport, type ImportResult, type ImportTarget } from './run.ts';
import { parseStrong } from './strong.ts';
import { IMPORT_NICENESS, type FromWorker, type ImportJob, type ToWorker, type WorkerSetup } from './thread.ts';

/** How long a test's gate may hold the worker before it reads the file anyway. */
const GATE_TIMEOUT_MS = 20_000;

// A nice value belongs to a thread on Linux (pid 0 is the calling thread); elsewhere it is the
// whole process's, server included, so it is left alone.
if (process.platform === 'linux') {
  try {
    setPriority(0, Math.min(19, getPriority(0) + IMPORT_NICENESS));
  } catch {
    // Not allowed here (a container's seccomp profile): the import runs at the server's priority.
  }
}

const port = parentPort;
if (!port) throw new Error('services/import/worker.ts runs as a worker thread (see ./thread.ts)');
const post = (message: FromWorker) => port.postMessage(message);

/** The job whose work this is: which gate a write waits on. */
const currentJob = new AsyncLocalStorage<ImportJob>();

/** Asks the app's process to hold its writers back, runs `work`, lets them go. */
const locks = new Map<number, () => void>();
let nextLock = 1;
async function underProcessLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = nextLock++;
  await new Promise<void>((resolve) => {
    locks.set(lock, resolve);
    post({ type: 'lock', lock });
  });
  try {
    const job = currentJob.getStore();
    if (job) {
      post({ type: 'saving', id: job.id });
      if (job.gate) Atomics.wait(job.gate, 1, 0, GATE_TIMEOUT_MS);
    }
    return await work();
  } finally {
    post({ type: 'unlock', lock });
  }
}

/** The embedded database, whose outermost writes each wait for the app's process to hold its writers. */
function lockedDatabase(path: string): SqliteDatabase {
  const db = openSqlite(path);
  const locked = new AsyncLocalStorage<true>();
  return {
    ...db,
    write: (work) => (locked.getStore() ? db.write(work) : underProcessLock(() => locked.run(true, () => db.write(work)))),
  };
}

interface Stores {
  events: EventStore;
  runner: ImportTarget['runner'];
}

async function open(setup: WorkerSetup): Promise<Stores> {
  if (setup.events.engine === 'kurrentdb') {
    const { KurrentEventStore } = await import('../store/kurrentdb/event-store.ts');
    return { events: new KurrentEventStore(setup.events.url), runner: { withProgress: (_progress, work) => work() } };
  }
  const db = lockedDatabase(setup.events.path);
  const events = new SqliteEventStore(db);
  if (!setup.inlineProjections) return { events, runner: { withProgress: (_progress, work) => work() } };
  // As services/app.ts wires inline mode; the app made the collections before it served.
  const reads = new SqliteReadStore(db);
  const runner = new ProjectionRunner(projections, reads, events);
  await reads.ensureCollections(runner.collectionSpecs());
  events.setOnAppended((appended) => runner.apply(appended, reads.inTransaction));
  return { events, runner };
}

const stores = open(workerData as WorkerSetup);

async function run(job: ImportJob): Promise<ImportResult | GarminResult> {
  const { events, runner } = await stores;
  return currentJob.run(job, () => importIn(job, events, runner));
}

async function importIn(job: ImportJob, events: EventStore, runner: Stores['runner']): Promise<ImportResult | GarminResult> {
  post({ type: 'reading', id: job.id });
  if (job.gate) Atomics.wait(job.gate, 0, 0, GATE_TIMEOUT_MS);
  const clock: Clock = { now: () => new Date(job.now) };
  const target: ImportTarget = { clock, records: new RecordService(events, clock), runner };
  if (!('bytes' in job.input)) return importAppleHealth(target, job.athlete, { path: job.input.path, fileName: job.input.fileName });
  const { parse, fileName, bytes, importHints } = job.input;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (parse.app === 'garmin') return importGarmin(target, job.athlete, { fileName, bytes: buffer });
  return importExport(target, job.athlete, {
    app: parse.app,
    fileName,
    bytes: buffer,
    parse: (text, athlete) =>
      parse.app === 'hevy'
        ? parseHevy(text, { timezone: athlete.profile.timezone })
        : parseStrong(text, { timezone: athlete.profile.timezone, weightUnit: parse.weightUnit, distanceUnit: parse.distanceUnit }),
    ...(importHints ? { importHint: (detected) => importHints[detected] ?? `import it as a ${detected} export` } : {}),
  });
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'locked') {
    locks.get(message.lock)?.();
    locks.delete(message.lock);
    return;
  }
  const { id } = message.job;
  run(message.job).then(
    (result) => post({ type: 'done', id, result }),
    (error: unknown) => {
      const e = error instanceof Error ? error : new Error(String(error));
      post({
        type: 'failed',
        id,
        error: { domain: e instanceof DomainError ? { code: e.code, issues: e.issues } : null, message: e.message, ...(e.stack ? { stack: e.stack } : {}) },
      });
    },
  );
});
