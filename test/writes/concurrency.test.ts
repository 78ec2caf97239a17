// Approvals under concurrency and crashes, across processes on one embedded store: two approvals
// of conflicting proposals (exactly one commits), an approval racing an import (no lost update),
// and kill -9 during an approval (the batch wholly committed or wholly absent; read models equal a
// replay of the log).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { dumpReadModels, openTestApp, registerAthlete, tempDir } from '../support/app.ts';
import { startCli } from '../support/cli.ts';
import { agentCaller, seedRecord, validBody, type Seeded } from '../support/writes.ts';

const WORKER = join(import.meta.dirname, '..', 'support', 'approve-worker.ts');

/** A store with an athlete, a seeded record and a caller that may propose anything. */
async function store() {
  const t = await openTestApp({ now: new Date().toISOString() });
  const athleteId = await registerAthlete(t.app);
  const seeded = await seedRecord(t.app, athleteId);
  const caller = await agentCaller(t.app, athleteId);
  return { t, athleteId, seeded, caller };
}

function approveIn(dataDir: string, athleteId: string, commandId: string, onReady?: (kill: () => void) => void) {
  const child = spawn(process.execPath, [WORKER, dataDir, athleteId, commandId], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (onReady && out.startsWith('ready\n') && out.length === 6) onReady(() => child.kill('SIGKILL'));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ outcome: unknown; elapsedMs: number; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (_code, signal) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      const parsed = line ? (JSON.parse(line) as { outcome: string; elapsed_ms: number }) : null;
      resolve({ outcome: parsed?.outcome ?? null, elapsedMs: parsed?.elapsed_ms ?? NaN, signal, stderr: err });
    }),
  );
}

const checkinUpdate = (s: Seeded, energy: number) =>
  validBody([
    {
      op: 'update',
      kind: 'recovery_checkin',
      id: s.checkinId,
      base_revision: 1,
      record: { date: s.checkinDate, sleep_quality: 3, energy, soreness: 3, stress: 3 },
    },
  ]);

async function assertEqualsReplay(dataDir: string) {
  const t = await openTestApp({ dataDir });
  try {
    const live = await dumpReadModels(t.app);
    await t.app.runner.replay();
    assert.equal(await dumpReadModels(t.app), live, 'the read models equal a replay of the log');
  } finally {
    await t.app.close();
  }
}

test('two processes approve conflicting proposals at once: exactly one commits, the other is conflicted', async () => {
  const { t, athleteId, seeded, caller } = await store();
  const a = checkinUpdate(seeded, 4);
  const b = checkinUpdate(seeded, 5);
  await t.app.proposals.prepare(caller, a);
  await t.app.proposals.prepare(caller, b);
  await t.app.close();
  const outcomes = await Promise.all([approveIn(t.dataDir, athleteId, a.command_id), approveIn(t.dataDir, athleteId, b.command_id)]);
  assert.equal(outcomes.map((o) => o.outcome).sort(), ['committed', 'conflicted'], outcomes.map((o) => o.stderr).join('\n'));
  const after = await openTestApp({ dataDir: t.dataDir });
  try {
    const checkins = (await after.app.events.readStream(streams.record(athleteId))).filter((e) => e.type === 'checkin.updated');
    assert.is(checkins.length, 1, 'one update of the check-in landed');
  } finally {
    await after.app.close();
  }
  await assertEqualsReplay(t.dataDir);
});

test('an approval racing an import of the same athlete: both land, nothing lost', async () => {
  const { t, athleteId, seeded, caller } = await store();
  const body = validBody([
    checkinUpdate(seeded, 5).actions[0],
    {
      op: 'create',
      kind: 'meal',
      record: { eaten_at: new Date(Date.now() - 60_000).toISOString(), name: 'Toast', calories_kcal: 200, protein_g: null, carbohydrate_g: null, fat_g: null },
    },
  ]);
  await t.app.proposals.prepare(caller, body);
  await t.app.close();
  const file = join(tempDir(), 'hevy.csv');
  writeFileSync(file, generateHevyExport({ workouts: 200, seed: 11 }));
  const importing = startCli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file, '--json'], { DATA_DIR: t.dataDir });
  const [approval, imported] = await Promise.all([approveIn(t.dataDir, athleteId, body.command_id), importing.done]);
  assert.is(imported.code, 0, imported.stderr);
  assert.is(approval.outcome, 'committed', approval.stderr);
  const after = await openTestApp({ dataDir: t.dataDir });
  try {
    const events = await after.app.events.readStream(streams.record(athleteId));
    assert.is(events.filter((e) => e.type === 'workout.created').length, 201, 'the 200 imported workouts and the seeded one');
    assert.is(events.filter((e) => e.type === 'checkin.updated').length, 1);
    assert.is(events.filter((e) => e.type === 'meal.created').length, 2);
  } finally {
    await after.app.close();
  }
  await assertEqualsReplay(t.dataDir);
});

test('kill -9 during approvals of 50-change batches: each batch is wholly committed or wholly absent, and read models equal a replay', async () => {
  const { t, athleteId, caller } = await store();
  const dataDir = t.dataDir;
  const meal = (i: number) => ({
    op: 'create',
    kind: 'meal',
    record: {
      eaten_at: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
      name: `Batch meal ${i}`,
      calories_kcal: i,
      protein_g: null,
      carbohydrate_g: null,
      fat_g: null,
    },
  });
  // One batch approved whole, to time an approval; then kills at fractions of that time, so that
  // they land before, during and after the append.
  const fractions = [0, 0.25, 0.5, 0.7, 0.8, 0.9, 0.95, 1, 1.1, 1.3];
  const bodies = [null, ...fractions].map(() => validBody(Array.from({ length: 50 }, (_, i) => meal(i))));
  // Eleven awaiting review: more than one connection may have at once (WRITE_POLICY), so two prepare them.
  const callers = [caller, await agentCaller(t.app, athleteId)];
  const callerOf = (i: number) => callers[Math.floor(i / 10)]!;
  for (const [i, body] of bodies.entries()) await t.app.proposals.prepare(callerOf(i), body);
  await t.app.close();
  const timed = await approveIn(dataDir, athleteId, bodies[0]!.command_id);
  assert.is(timed.outcome, 'committed', timed.stderr);

  const mealsOf = async () => {
    const after = await openTestApp({ dataDir });
    try {
      return (await after.app.events.readStream(streams.record(athleteId))).filter((e) => e.type === 'meal.created').length;
    } finally {
      await after.app.close();
    }
  };
  let expected = await mealsOf();
  const landed: string[] = [];
  for (const [i, fraction] of fractions.entries()) {
    const body = bodies[i + 1]!;
    const result = await approveIn(dataDir, athleteId, body.command_id, (kill) => setTimeout(kill, fraction * timed.elapsedMs));
    const after = await openTestApp({ dataDir });
    let status: string;
    try {
      status = (await after.app.proposals.get(callerOf(i + 1), body.command_id))!.status;
    } finally {
      await after.app.close();
    }
    assert.ok(status === 'committed' || status === 'prepared', status);
    if (status === 'committed') expected += 50;
    assert.is(await mealsOf(), expected, `killed at ${fraction} of an approval: the batch is ${status}, so its meals are all there or none`);
    landed.push(`${fraction}: ${status}${result.signal ? '' : ' (finished before the kill)'}`);
  }
  console.log(`    approval ${timed.elapsedMs.toFixed(0)} ms; by kill time: ${landed.join(', ')}`);
  await assertEqualsReplay(dataDir);
});

test.run();
