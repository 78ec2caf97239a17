// Importing exports through the CLI, as an operator would: whole files or nothing, re-imports
// add nothing, and replay gives back the same read models.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KG_PER_LB } from '../../contracts/common.ts';
import { streams } from '../../contracts/events.ts';
import type { ImportSummary } from '../../cli/import.ts';
import type { WorkoutDetailDoc } from '../../projections/workouts.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { generateStrongExport } from '../fixtures/strong-export.ts';
import { dumpReadModels, openTestApp, tempDir } from '../support/app.ts';
import { cli, cliJson, startCli } from '../support/cli.ts';

const ATHLETE = [
  'athletes',
  'create',
  '--email',
  'ada@example.com',
  '--password',
  'correct horse battery',
  '--display-name',
  'Ada',
  '--timezone',
  'Europe/London',
  '--tier',
  'pro',
];

async function freshStore() {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  const { athlete_id } = await cliJson<{ athlete_id: string }>(ATHLETE, env);
  return { dataDir, env, athleteId: athlete_id };
}

async function workoutEvents(dataDir: string, athleteId: string): Promise<number> {
  const t = await openTestApp({ dataDir });
  try {
    return (await t.app.events.readStream(streams.record(athleteId))).filter((e) => e.type === 'workout.created').length;
  } finally {
    await t.close();
  }
}

/** Opens the store as the service would (catching projections up), dumps, replays, dumps again. */
async function readModelsAndReplay(dataDir: string) {
  const t = await openTestApp({ dataDir });
  try {
    const before = await dumpReadModels(t.app);
    await t.app.runner.replay();
    return { before, after: await dumpReadModels(t.app), workouts: (before.workouts as unknown[]).length };
  } finally {
    await t.close();
  }
}

// How long it takes is printed for people and measured by `npm run bench`, not asserted here.
test('three years of Hevy training import whole; re-import adds nothing; replay gives identical read models', async () => {
  const { dataDir, env } = await freshStore();
  const file = join(dataDir, 'hevy.csv');
  writeFileSync(file, generateHevyExport({ workouts: 450, seed: 7, dateStyle: 'en-GB' }));

  const started = performance.now();
  const first = await cliJson<ImportSummary>(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  const seconds = (performance.now() - started) / 1000;
  console.log(`    imported 450 workouts through the CLI in ${seconds.toFixed(2)} s (including process start)`);
  assert.is(first.workouts_in_file, 450);
  assert.is(first.workouts_added, 450);
  assert.ok(first.exercises_added > 5);

  const again = await cliJson<ImportSummary>(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  assert.equal([again.workouts_added, again.workouts_skipped, again.exercises_added], [0, 450, 0]);

  const replayed = await cliJson<{ events: number }>(['projections', 'replay'], env);
  assert.ok(replayed.events > 450);
  const { before, after, workouts } = await readModelsAndReplay(dataDir);
  assert.is(workouts, 450);
  assert.equal(after, before);
  const status = await cliJson<{ projections: Array<{ lag_events: number }> }>(['projections', 'status'], env);
  assert.ok(status.projections.every((p) => p.lag_events === 0));
});

test('an overlapping later export adds only the new workouts', async () => {
  const { dataDir, env } = await freshStore();
  const older = join(dataDir, 'older.csv');
  const newer = join(dataDir, 'newer.csv');
  writeFileSync(older, generateHevyExport({ workouts: 20, seed: 3 }));
  writeFileSync(newer, generateHevyExport({ workouts: 30, seed: 3 }));
  await cliJson(['import', 'hevy', '--athlete', 'ada@example.com', '--file', older], env);
  const second = await cliJson<ImportSummary>(['import', 'hevy', '--athlete', 'ada@example.com', '--file', newer], env);
  assert.equal([second.workouts_added, second.workouts_skipped], [10, 20]);
});

test('a bad row refuses the whole file, naming its line, and writes nothing', async () => {
  const { dataDir, env, athleteId } = await freshStore();
  const lines = generateHevyExport({ workouts: 10, seed: 5 }).split('\n');
  lines[17] = lines[17]!.replace(/"(normal|warmup|failure|dropset)",[^,]*,/, '"$1",heavy,');
  const file = join(dataDir, 'bad.csv');
  writeFileSync(file, lines.join('\n'));
  const r = await cli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  assert.is(r.code, 2);
  // oclif wraps long messages to the terminal width.
  const message = r.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
  assert.match(message, /line 18: weight_kg 'heavy' is not a number/);
  assert.match(message, /nothing was imported/);
  // A file refused after it was read (a workout in the future) is not announced as being saved.
  const future = join(dataDir, 'future.csv');
  writeFileSync(future, generateHevyExport({ workouts: 2, seed: 5, startDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10) }));
  const refused = await cli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', future], env);
  assert.is(refused.code, 2);
  assert.match(refused.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '), /in the future; only completed workouts are imported/);
  assert.not.match(refused.stderr, /saving \d+ workouts/);
  // A file that is not there, or a directory: refusals too, with exit 2, not internal errors.
  for (const [file, message] of [
    [join(dataDir, 'none.csv'), /none\.csv does not exist; nothing was imported/],
    [dataDir, /is a directory, not an export file; nothing was imported/],
  ] as const) {
    const r = await cli(['import', 'hevy', '--athlete', athleteId, '--file', file, '--json'], env);
    assert.is(r.code, 2, file);
    const body = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    assert.is(body.error.code, 'invalid_input');
    assert.match(body.error.message, message);
  }
  assert.is(await workoutEvents(dataDir, athleteId), 0);
});

test('an unknown athlete or a missing file is a clear error', async () => {
  const { dataDir, env } = await freshStore();
  const file = join(dataDir, 'x.csv');
  writeFileSync(file, generateHevyExport({ workouts: 1, seed: 1 }));
  const nobody = await cli(['import', 'hevy', '--athlete', 'nobody@example.com', '--file', file], env);
  assert.is(nobody.code, 2);
  assert.match(nobody.stderr, /no athlete with e-mail nobody@example.com/);
  const missing = await cli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', join(dataDir, 'nope.csv')], env);
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /nope\.csv/);
});

test('the progress bar counts workouts, not the events that also carry new exercises', async () => {
  const { dataDir, env } = await freshStore();
  const file = join(dataDir, 'hevy.csv');
  writeFileSync(file, generateHevyExport({ workouts: 60, seed: 4 }));
  const r = await cli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /imported 60 of 60 workouts \(0 already in the record\), \d+ new exercises/);
  // Without a terminal the bar prints a line per update: `saving [===---] 40% | 24/60`.
  const counts = [...r.stderr.matchAll(/\| (\d+)\/(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.ok(counts.length > 0, r.stderr);
  assert.ok(
    counts.every(([, total]) => total === 60),
    r.stderr,
  );
  assert.equal(counts.at(-1), [60, 60]);
});

test('a Hevy export in pounds and miles lands in kilograms and metres', async () => {
  const { dataDir, env } = await freshStore();
  const file = join(dataDir, 'hevy-lbs.csv');
  const kg = generateHevyExport({ workouts: 5, seed: 2 });
  writeFileSync(file, kg.replace('"weight_kg"', '"weight_lbs"').replace('"distance_km"', '"distance_miles"'));
  const summary = await cliJson<ImportSummary>(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  assert.is(summary.workouts_added, 5);
  const t = await openTestApp({ dataDir });
  try {
    const sets = (await t.app.reads.dump('workout_details')).flatMap((d) => (d.doc as WorkoutDetailDoc).exercises.flatMap((e) => e.sets));
    const inFile = parseHevy(kg, { timezone: 'Europe/London' }).flatMap((w) => w.exercises.flatMap((e) => e.sets));
    // The file's numbers, read as pounds and miles (the kg file's metres are km × 1000).
    const sorted = (ns: Array<number | null>) => ns.filter((n): n is number => n !== null).sort((a, b) => a - b);
    const close = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < 1e-6);
    const weights = sorted(sets.map((s) => s.weight_kg));
    const distances = sorted(sets.map((s) => s.distance_metres));
    assert.ok(weights.length > 0 && distances.length > 0);
    assert.ok(
      close(
        weights,
        sorted(inFile.map((s) => s.weight_kg)).map((lbs) => lbs * KG_PER_LB),
      ),
      String(weights.slice(0, 5)),
    );
    assert.ok(
      close(
        distances,
        sorted(inFile.map((s) => s.distance_metres)).map((m) => m * 1.609344),
      ),
      String(distances),
    );
  } finally {
    await t.close();
  }
});

test("an empty file, a header alone, or another app's export is refused with a non-zero exit", async () => {
  const { dataDir, env, athleteId } = await freshStore();
  const cases: Array<[string, string, string, RegExp]> = [
    ['empty.csv', '', 'hevy', /empty\.csv line 1: the file is empty/],
    ['header.csv', `${generateHevyExport({ workouts: 1 }).split('\n')[0]!}\n`, 'hevy', /header\.csv line 2: the file has a header but no sets/],
    [
      'strong.csv',
      generateStrongExport({ workouts: 2, seed: 1 }),
      'hevy',
      /strong\.csv line 1: this looks like a Strong export, not a Hevy one: import it with `repledger import strong`/,
    ],
    [
      'hevy.csv',
      generateHevyExport({ workouts: 2, seed: 1 }),
      'strong',
      /hevy\.csv line 1: this looks like a Hevy export, not a Strong one: import it with `repledger import hevy`/,
    ],
  ];
  for (const [name, text, app, message] of cases) {
    const file = join(dataDir, name);
    writeFileSync(file, text);
    const r = await cli(['import', app, '--athlete', athleteId, '--file', file], env);
    assert.is(r.code, 2, name);
    const said = r.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
    assert.match(said, message);
    assert.match(said, /nothing was imported/);
  }
  assert.is(await workoutEvents(dataDir, athleteId), 0);
});

test('a Strong export in pounds lands in kilograms', async () => {
  const { dataDir, env, athleteId } = await freshStore();
  const file = join(dataDir, 'strong.csv');
  writeFileSync(file, generateStrongExport({ workouts: 12, seed: 9, weightUnit: 'lbs', distanceUnit: 'mi', separator: ';' }));
  const summary = await cliJson<ImportSummary>(['import', 'strong', '--athlete', 'ada@example.com', '--file', file, '--weight-unit', 'lbs'], env);
  assert.is(summary.workouts_added, 12);
  const t = await openTestApp({ dataDir });
  try {
    const details = await t.app.reads.dump('workout_details');
    const weights = details.flatMap((d) => (d.doc as WorkoutDetailDoc).exercises.flatMap((e) => e.sets.map((s) => s.weight_kg)));
    const nonNull = weights.filter((w): w is number => w !== null);
    assert.ok(nonNull.length > 0);
    // Pounds in whole or half numbers, converted: none is a whole or half number of kilograms by accident in bulk.
    assert.ok(nonNull.filter((w) => Number.isInteger(w * 2)).length < nonNull.length / 2);
    assert.is((await t.app.events.readStream(streams.record(athleteId))).filter((e) => e.type === 'workout.created').length, 12);
  } finally {
    await t.close();
  }
});

test('kill -9 in the middle of an import leaves all of the file or none, and read models match the events', async () => {
  const { dataDir, env, athleteId } = await freshStore();
  const file = join(dataDir, 'big.csv');
  writeFileSync(file, generateHevyExport({ workouts: 1500, seed: 11 }));
  const TOTAL = 1500;
  /** Runs the import and SIGKILLs it at the first progress line `when` accepts; answers what landed. */
  const importKilledWhen = async (when: (done: number) => boolean) => {
    const { child, done } = startCli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
    let killedAt: number | null = null;
    let seen = '';
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      // Without a terminal the bar prints a line per update: `saving [===---] 40% | 600/1500`.
      for (const m of seen.matchAll(/\| (\d+)\/(\d+)/g)) {
        if (killedAt === null && Number(m[2]) === TOTAL && when(Number(m[1]))) {
          killedAt = Number(m[1]);
          child.kill('SIGKILL');
        }
      }
    });
    const result = await done;
    return { result, killedAt, imported: await workoutEvents(dataDir, athleteId) };
  };
  const matchesReplay = async (imported: number) => {
    const { before, after, workouts } = await readModelsAndReplay(dataDir);
    assert.is(workouts, imported);
    assert.equal(after, before);
  };

  // Killed while its transaction is open (workouts still being projected): nothing lands.
  const midway = await importKilledWhen((n) => n > 0 && n < TOTAL);
  assert.ok(midway.killedAt !== null, `the import never reported progress: ${midway.result.stderr}`);
  assert.is(midway.result.signal, 'SIGKILL');
  assert.is(midway.imported, 0, `killed at ${midway.killedAt}/${TOTAL}, yet ${midway.imported} workouts landed`);
  await matchesReplay(0);

  // Killed as the last workout is projected, around the commit: all of it or none, never part.
  const atCommit = await importKilledWhen((n) => n === TOTAL);
  assert.ok(atCommit.imported === 0 || atCommit.imported === TOTAL, `partial import: ${atCommit.imported}`);
  await matchesReplay(atCommit.imported);

  // Left alone, the same file lands whole.
  const whole = await cli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file], env);
  assert.is(whole.code, 0, whole.stderr);
  assert.is(await workoutEvents(dataDir, athleteId), TOTAL);
  await matchesReplay(TOTAL);
});

test.run();
