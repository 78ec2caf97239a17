// Projected events per second through the projection worker on the embedded store (issue 37):
// live events applied a batch per transaction (what arrives while one transaction runs is the
// next batch) against one transaction per event, the way the worker followed the log before.
// Another process (bench/projection-appender.ts) appends the events one append each, as a
// service's commands do, while a Follower in this process follows; the figure is events over the
// time from the appender's start (its first append) until every projection's checkpoint reached the last. The modes run
// in turns on fresh stores, the same events each time. `npm run bench -- projection`.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projections } from '../projections/index.ts';
import { Follower, LIVE_BATCH } from '../projections/follower.ts';
import { ProjectorLease } from '../projections/lease.ts';
import { PROPOSALS } from '../projections/proposals.ts';
import { CHECKPOINTS, ProjectionRunner } from '../projections/runner.ts';
import { systemClock } from '../services/domain/clock.ts';
import { openSqlite } from '../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../services/store/sqlite/read-store.ts';
import { tempDir } from '../test/support/app.ts';
import { freshAthletes, recordLog, untilProjected } from '../test/support/event-log.ts';
import { median } from './measure.ts';

/** Copies of the reference log (two athletes, every kind of record item, proposals): ~9 events each. */
const COPIES = Number(process.env.BENCH_PROJECTION_COPIES ?? 40);
const TURNS = Number(process.env.BENCH_PROJECTION_TURNS ?? 3);

export interface ProjectionThroughput {
  events: number;
  /** Events per second through the worker, the median of the turns. */
  batched: number;
  perEvent: number;
  /** The appender's own rate with the batched worker following: the most the worker could be shown to do. */
  appendedPerSecond: number;
  ratio: number;
}

/** A fresh embedded store in worker mode: its events, read models and a runner over them. */
async function embedded(prefix: string) {
  const dir = tempDir(prefix);
  const db = openSqlite(join(dir, 'repledger.db'));
  const events = new SqliteEventStore(db);
  const reads = new SqliteReadStore(db);
  const runner = new ProjectionRunner(projections, reads, events);
  await runner.ensureCollections();
  return { dir, db, events, reads, runner };
}

async function turn(eventsFile: string, count: number, liveBatch: number): Promise<{ projected: number; appended: number }> {
  const { dir, db, events, reads, runner } = await embedded('repledger-bench-projection-');
  const follower = new Follower(runner, events, new ProjectorLease(reads, systemClock, 15_000), {
    liveBatch,
    onError: (error) => {
      throw error;
    },
  });
  await follower.start();
  try {
    let started = 0;
    const appender = spawn(process.execPath, [fileURLToPath(new URL('./projection-appender.ts', import.meta.url)), join(dir, 'repledger.db'), eventsFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    appender.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (started === 0 && out.includes('appending')) started = performance.now();
    });
    const exited = new Promise<number | null>((resolve) => appender.on('exit', resolve));
    if ((await exited) !== 0) throw new Error(`the appender failed: ${out}`);
    const appendMs = Number(/appended \d+ (\d+)/.exec(out)?.[1]);
    await untilProjected(reads, await events.headPosition(), 600_000);
    const seconds = (performance.now() - started) / 1000;
    return { projected: count / seconds, appended: count / (appendMs / 1000) };
  } finally {
    await follower.stop();
    db.close();
  }
}

export async function measureProjectionThroughput(): Promise<ProjectionThroughput> {
  const reference = await recordLog();
  const log = Array.from({ length: COPIES }, () => freshAthletes(reference.events).events).flat();
  const file = join(tempDir('repledger-bench-projection-'), 'events.json');
  writeFileSync(file, JSON.stringify(log.map((e) => ({ stream: e.stream, type: e.type, data: e.data, metadata: e.metadata }))));
  const batched: number[] = [];
  const perEvent: number[] = [];
  const appended: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const b = await turn(file, log.length, LIVE_BATCH);
    batched.push(b.projected);
    appended.push(b.appended);
    perEvent.push((await turn(file, log.length, 1)).projected);
  }
  const out = { events: log.length, batched: median(batched), perEvent: median(perEvent), appendedPerSecond: median(appended) };
  return { ...out, ratio: out.batched / out.perEvent };
}

export function formatProjectionThroughput(m: ProjectionThroughput): string {
  return [
    `projected events per second through the worker on the embedded store, ${m.events} events appended one append each by another process (median of ${TURNS} turns):`,
    `  batched (what arrives during a transaction is the next batch, at most ${LIVE_BATCH}): ${m.batched.toFixed(0)} events/s`,
    `  one transaction per event:                                                  ${m.perEvent.toFixed(0)} events/s`,
    `  the appender alone reached ${m.appendedPerSecond.toFixed(0)} events/s while the batched worker followed`,
    `batched against one transaction per event: ${m.ratio.toFixed(2)}x`,
  ].join('\n');
}

/** The proposals read model's lag while another projection is rebuilt (issue 37: within 1 s). */
export interface RebuildLag {
  events: number;
  rebuildSeconds: number;
  /** From appending a fresh athlete's log (its proposals last) until the proposals read model shows them, each sample taken while the rebuild ran. */
  lagsMs: number[];
}

const REBUILD_COPIES = Number(process.env.BENCH_REBUILD_COPIES ?? 300);

export async function measureRebuildLag(): Promise<RebuildLag> {
  const reference = await recordLog();
  const { db, events, reads, runner } = await embedded('repledger-bench-rebuild-');
  for (let i = 0; i < REBUILD_COPIES; i++) {
    // A stream's consecutive events in one append: the store fills in seconds, not minutes.
    const copy = freshAthletes(reference.events).events;
    for (let at = 0; at < copy.length; ) {
      let end = at + 1;
      while (end < copy.length && copy[end]!.stream === copy[at]!.stream) end++;
      await events.append(
        copy[at]!.stream,
        copy.slice(at, end).map((e) => ({ type: e.type, data: e.data, metadata: e.metadata })),
        'any',
      );
      at = end;
    }
  }
  await runner.catchUp();
  // A release that bumps the workouts projection: its checkpoint says an older version built it.
  const workouts = projections.find((p) => p.name === 'workouts')!;
  const checkpoint = (await reads.get<{ id: string; position: number }>(CHECKPOINTS, 'projections', workouts.name))!;
  await reads.upsert(CHECKPOINTS, 'projections', { ...checkpoint, version: (workouts.version ?? 1) - 1 });
  const total = await events.headPosition();
  let rebuilt = 0;
  let rebuilding = 0;
  const follower = new Follower(runner, events, new ProjectorLease(reads, systemClock, 15_000), {
    onError: (error) => {
      throw error;
    },
    onState: (state) => {
      if (state.state === 'rebuilding') rebuilding = performance.now();
      if (state.state === 'rebuilt') rebuilt = performance.now();
    },
  });
  await follower.start();
  const lagsMs: number[] = [];
  try {
    while (rebuilt === 0) {
      const copy = freshAthletes(reference.events).events;
      for (const e of copy) await events.append(e.stream, [{ type: e.type, data: e.data, metadata: e.metadata }], 'any');
      const appended = performance.now();
      const wanted = copy
        .filter((e) => e.type === 'proposal.prepared')
        .map((e) => ({ athlete: e.stream.replace(/^record-/, ''), id: (e.data as { command_id: string }).command_id }));
      for (;;) {
        const found = await Promise.all(wanted.map((w) => reads.get(PROPOSALS, w.athlete, w.id)));
        if (found.every((d) => d !== null)) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      if (rebuilt === 0) lagsMs.push(performance.now() - appended);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await follower.stop();
    db.close();
  }
  return { events: total, rebuildSeconds: (rebuilt - rebuilding) / 1000, lagsMs };
}

export function formatRebuildLag(m: RebuildLag): string {
  const sorted = [...m.lagsMs].sort((a, b) => a - b);
  return [
    `the proposals read model while the workouts projection is rebuilt (a version bump) on a store of ${m.events} events, embedded store, the worker in this process:`,
    `  the rebuild took ${m.rebuildSeconds.toFixed(1)} s; ${sorted.length} fresh athletes' logs appended meanwhile`,
    `  their proposals in the read model after: median ${median(sorted).toFixed(0)} ms, longest ${(sorted.at(-1) ?? 0).toFixed(0)} ms (target: within 1 s)`,
  ].join('\n');
}
