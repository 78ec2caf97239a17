// The projection worker (`repledger projections run`) as its own process on the embedded store in
// worker mode (EMBEDDED_PROJECTIONS=worker), which follows the log as it does in distributed mode:
// killed with SIGKILL and restarted, it resumes from its checkpoints; stopped with SIGTERM during
// start-up, it stops between two batches and exits 0.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projections } from '../../projections/index.ts';
import { leaseHolder } from '../../projections/lease.ts';
import { CHECKPOINTS, ProjectionRunner } from '../../projections/runner.ts';
import type { NewEvent } from '../../services/store/event-store.ts';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';
import { cli, startCli, type CliResult } from '../support/cli.ts';
import { copyLog, freshAthletes, readModelsOf, recordLog, untilProjected } from '../support/event-log.ts';
import { eventually } from '../support/eventually.ts';

function openStore(dataDir: string) {
  const db = openSqlite(join(dataDir, 'repledger.db'));
  return { db, events: new SqliteEventStore(db), reads: new SqliteReadStore(db) };
}

/** `projections run` (or `args`) in worker mode; resolves `ready` once its stderr shows `line`. */
function startWorker(dataDir: string, line: string, args = ['projections', 'run'], env: Record<string, string> = {}) {
  // A short lease: a worker started after one was killed takes over within a second or two.
  const worker = startCli(args, { DATA_DIR: dataDir, EMBEDDED_PROJECTIONS: 'worker', PROJECTION_LEASE_MS: '1500', ...env });
  let stderr = '';
  const ready = new Promise<void>((resolve, reject) => {
    worker.child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes(line)) resolve();
    });
    void worker.done.then((r) => reject(new Error(`the worker exited before "${line}": ${JSON.stringify(r)}`)));
    setTimeout(() => reject(new Error(`the worker did not say "${line}" within 30 s: ${stderr}`)), 30_000).unref();
  });
  return { ...worker, ready, said: () => stderr };
}

/** The reference log and 4,000 more meals after it, so that catching up takes seconds; the head. */
async function logWithManyMeals(reference: Awaited<ReturnType<typeof recordLog>>, events: SqliteEventStore): Promise<number> {
  await copyLog(reference.events, events);
  const meal = reference.events.find((e) => e.type === 'meal.created')!;
  const item = (meal.data as { item: Record<string, unknown> }).item;
  for (let batch = 0; batch < 8; batch++) {
    const copies: NewEvent[] = Array.from({ length: 500 }, () => ({
      type: meal.type,
      data: { ...(meal.data as object), item: { ...item, id: randomUUID() } },
      metadata: meal.metadata,
    }));
    await events.append(meal.stream, copies, 'any');
  }
  return events.headPosition();
}

/** The worker's exit, or a failure if it has not exited within `ms` (a signal it ignored). */
function exited(worker: { child: { kill(signal: NodeJS.Signals): boolean }; done: Promise<CliResult> }, ms = 20_000): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      worker.child.kill('SIGKILL');
      reject(new Error(`the worker was still running ${ms / 1000} s after the signal`));
    }, ms);
  });
  return Promise.race([worker.done, late]).finally(() => clearTimeout(timer));
}

async function checkpoints(reads: SqliteReadStore): Promise<number[]> {
  const docs = await reads.getMany<{ id: string; position: number }>(
    CHECKPOINTS,
    'projections',
    projections.map((p) => p.name),
  );
  return docs.map((d) => d.position);
}

test('a worker killed with SIGKILL and started again ends with the read models of the inline build: nothing twice, nothing missed', async () => {
  const reference = await recordLog();
  const dataDir = tempDir();
  const { db, events, reads } = openStore(dataDir);
  const third = Math.floor(reference.events.length / 3);
  try {
    await copyLog(reference.events.slice(0, third), events);
    // A lease longer than a worker takes to start on a loaded machine (two seconds and more), so
    // that the one started after the kill finds it still held.
    const lease = { PROJECTION_LEASE_MS: '6000' };
    let worker = startWorker(dataDir, 'following the event log', undefined, lease);
    await worker.ready;
    await untilProjected(reads, await events.headPosition());
    // The next third arrives while the worker follows; it is killed while applying it.
    const appending = copyLog(reference.events.slice(third, 2 * third), events);
    const head = reference.events[2 * third - 1]!.position;
    await eventually(
      async () => {
        const now = await checkpoints(reads);
        return { done: Math.min(...now) > reference.events[third]!.position, value: now };
      },
      { what: 'the worker starts on the next third', timeoutMs: 20_000, intervalMs: 5 },
    );
    worker.child.kill('SIGKILL');
    const killed = await exited(worker);
    assert.is(killed.signal, 'SIGKILL');
    const atKill = await checkpoints(reads);
    // Started at once, while the killed worker's lease still holds (however long the appends take
    // on a loaded machine): it must wait for the lease to run out.
    worker = startWorker(dataDir, 'following the event log', undefined, lease);
    await appending;
    await copyLog(reference.events.slice(2 * third), events);
    await worker.ready;
    await untilProjected(reads, await events.headPosition());
    worker.child.kill('SIGTERM');
    const stopped = await exited(worker);
    assert.equal([stopped.code, stopped.signal], [0, null], stopped.stderr);
    // The killed worker's lease had to run out first: the new one waited, then took it over.
    assert.match(stopped.stderr, 'another process holds the projector lease', stopped.stderr);
    assert.match(stopped.stderr, 'holds the projector lease (token 2)');
    assert.ok(Math.min(...atKill) < (await events.headPosition()), `the worker had not got to the end when it was killed (${atKill.join(', ')}, head ${head})`);
    assert.equal(await readModelsOf(reads), reference.readModels);
  } finally {
    db.close();
  }
});

test('SIGTERM during start-up stops the worker between two batches with exit 0; the next start finishes the work', async () => {
  const reference = await recordLog();
  const dataDir = tempDir();
  const { db, events, reads } = openStore(dataDir);
  try {
    // Thousands of meals to catch up on: start-up takes seconds.
    const head = await logWithManyMeals(reference, events);

    const worker = startWorker(dataDir, 'bringing read models up to date');
    await worker.ready;
    worker.child.kill('SIGTERM');
    const stopped = await exited(worker);
    assert.equal([stopped.code, stopped.signal], [0, null], `${stopped.stderr}`);
    assert.match(stopped.stderr, 'stopped by SIGTERM during start-up', stopped.stderr);
    assert.ok(Math.min(...(await checkpoints(reads))) < head, 'start-up was still at work when the signal came');

    const again = startWorker(dataDir, 'following the event log');
    await again.ready;
    await untilProjected(reads, head);
    again.child.kill('SIGTERM');
    assert.equal((await exited(again)).code, 0);
    const followed = await readModelsOf(reads);
    // What a replay from the first event builds, in this process.
    const runner = new ProjectionRunner(projections, reads, events);
    await runner.ensureCollections();
    await runner.replay();
    assert.equal(followed, await readModelsOf(reads));
  } finally {
    db.close();
  }
});

test('serve takes SIGTERM during its start-up catch-up too, and exits 0 without serving', async () => {
  const reference = await recordLog();
  const dataDir = tempDir();
  const { db, events, reads } = openStore(dataDir);
  try {
    const head = await logWithManyMeals(reference, events);
    const serve = startWorker(dataDir, 'bringing read models up to date before serving', ['serve'], { PORT: '0', HOST: '127.0.0.1' });
    await serve.ready;
    serve.child.kill('SIGTERM');
    const stopped = await exited(serve);
    assert.equal([stopped.code, stopped.signal], [0, null], stopped.stderr);
    assert.ok(Math.min(...(await checkpoints(reads))) < head, 'start-up was still at work when the signal came');
  } finally {
    db.close();
  }
});

test('three workers started at once after a version bump: one holds the lease and rebuilds while following, the others wait; killed, it is taken over; the read models are those of one replay', async () => {
  const reference = await recordLog();
  const dataDir = tempDir();
  const { db, events, reads } = openStore(dataDir);
  const workers: Array<ReturnType<typeof startWorker>> = [];
  try {
    const head = await logWithManyMeals(reference, events);
    const runner = new ProjectionRunner(projections, reads, events);
    await runner.ensureCollections();
    await runner.catchUp();
    // The release bumps nutrition's version: its checkpoint says an older one built it.
    const nutrition = projections.find((p) => p.name === 'nutrition_days')!;
    const checkpoint = (await reads.get<{ id: string; position: number }>(CHECKPOINTS, 'projections', nutrition.name))!;
    await reads.upsert(CHECKPOINTS, 'projections', { ...checkpoint, version: (nutrition.version ?? 1) - 1 });

    for (let i = 0; i < 3; i++) workers.push(startWorker(dataDir, 'projection worker'));
    await Promise.all(workers.map((w) => w.ready));
    await eventually(async () => ({ done: (await runner.outdated()).length === 0, value: await runner.outdated() }), {
      what: 'the rebuilt nutrition swapped in',
      timeoutMs: 30_000,
    });
    await untilProjected(reads, head);
    const holder = await leaseHolder(reads);
    assert.is(holder?.token, 1);
    const holding = workers.find((w) => holder!.holder.includes(`:${w.child.pid}:`))!;
    assert.ok(holding, `a worker holds the lease: ${holder!.holder}`);

    // The holder dies; one of the others takes over when its lease runs out, and follows.
    holding.child.kill('SIGKILL');
    await exited(holding);
    const more = freshAthletes(reference.events);
    await copyLog(more.events, events);
    await untilProjected(reads, await events.headPosition());
    assert.is((await leaseHolder(reads))?.token, 2);
    // Its catch-up may have projected them before it says it follows: stopped then, it would not say it.
    await eventually(() => ({ done: workers.some((w) => w.said().includes('holds the projector lease (token 2)')), value: workers.map((w) => w.said()) }), {
      what: 'a survivor says it holds the lease',
      timeoutMs: 20_000,
    });

    const outputs = await Promise.all(
      workers
        .filter((w) => w !== holding)
        .map(async (w) => {
          w.child.kill('SIGTERM');
          return exited(w);
        }),
    );
    for (const out of outputs) assert.equal([out.code, out.signal], [0, null], out.stderr);
    const all = outputs.map((o) => o.stderr).join('\n');
    assert.is(all.split('holds the projector lease (token 1)').length - 1, 0, 'the survivors never held the first lease');
    assert.is(all.split('holds the projector lease (token 2)').length - 1, 1, all);
    assert.is(all.split('another process holds the projector lease').length - 1, 2, all);

    const followed = await readModelsOf(reads);
    await runner.replay();
    assert.equal(followed, await readModelsOf(reads));
  } finally {
    for (const w of workers) w.child.kill('SIGKILL');
    db.close();
  }
});

test('projections replay is refused while a worker holds the projector lease, and runs once it has stopped', async () => {
  const reference = await recordLog();
  const dataDir = tempDir();
  const { db, events } = openStore(dataDir);
  try {
    await copyLog(reference.events, events);
    const worker = startWorker(dataDir, 'following the event log');
    await worker.ready;
    const env = { DATA_DIR: dataDir, EMBEDDED_PROJECTIONS: 'worker' };
    const status = await cli(['projections', 'status'], env);
    assert.match(status.stdout, new RegExp(`projector lease: \\S+:${worker.child.pid}:\\S+ \\(token 1\\), held until`), status.stdout);
    const refused = await cli(['projections', 'replay'], env);
    assert.is.not(refused.code, 0);
    const said = refused.stderr.replace(/\s*›\s*/g, ' ');
    assert.match(said, /holds the projector lease until .* stop the projection workers/, said);
    assert.match(said, 'Code: busy');
    worker.child.kill('SIGTERM');
    assert.is((await exited(worker)).code, 0);
    // The worker gave its lease up as it stopped: no waiting for it to run out.
    const replayed = await cli(['projections', 'replay'], env);
    assert.is(replayed.code, 0, replayed.stderr);
    assert.match(replayed.stdout, 'rebuilt');
  } finally {
    db.close();
  }
});

test.run();
