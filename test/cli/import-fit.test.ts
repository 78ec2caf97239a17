// `repledger import fit` as an athlete's operator runs it on Garmin FIT files the FIT SDK's encoder
// wrote: a zip of a strength activity, a run, a weight-scale reading and a settings file lands in
// one append; the same files again (in the zip or alone) are skipped by their file id; a CSV, a
// damaged FIT (cut short, bad CRC), a zip without FIT files, and a zip with one bad file among good
// ones are refused, naming the file, with nothing imported.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FitImportSummary } from '../../cli/commands/import/fit.ts';
import { streams } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { runFit, settingsFit, strengthFit, weightFit, weightHistoryFit, zipOf } from '../fixtures/fit-files.ts';
import { openTestApp, tempDir } from '../support/app.ts';
import { cli, cliJson, createAthleteIn } from '../support/cli.ts';

const root = tempDir('repledger-fit-cli-');
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 7));

type Summary = FitImportSummary;

async function recordOf(dir: string, athleteId: string): Promise<Array<{ type: string; data: unknown }>> {
  const t = await openTestApp({ dataDir: dir });
  try {
    return (await t.app.events.readStream(streams.record(athleteId))).map((e) => ({ type: e.type, data: e.data }));
  } finally {
    await t.close();
  }
}

const counts = (events: Array<{ type: string }>) => {
  const out: Record<string, number> = {};
  for (const e of events) out[e.type] = (out[e.type] ?? 0) + 1;
  return out;
};

function file(name: string, bytes: Uint8Array | string): string {
  const path = join(root, name);
  writeFileSync(path, bytes);
  return path;
}

test('a zip of FIT files imported, then again, then one of its files alone: each file once, by its file id', async () => {
  const dir = join(root, 'imports');
  const id = await createAthleteIn(dir);
  const env = { DATA_DIR: dir };
  const run = runFit({ serialNumber: 7, start: day(3) });
  const zip = file(
    'garmin-week.zip',
    await zipOf({
      'activities/strength.fit': strengthFit({ serialNumber: 7, start: day(2) }),
      'activities/run.fit': run,
      'weight/scale.fit': weightFit({ serialNumber: 99, start: day(4) }, { kg: 72.4, fatPercent: 18.5 }),
      'settings/device.fit': settingsFit({ serialNumber: 7, start: day(1) }),
      'README.txt': 'not a FIT file, passed over',
    }),
  );

  const first = await cliJson<Summary>(['import', 'fit', '--athlete', 'ada@example.com', '--file', zip], env);
  assert.equal(first, {
    athlete_id: id,
    file: zip,
    fit_files: 3,
    fit_files_ignored: 1,
    workouts_in_file: 2,
    workouts_added: 2,
    workouts_skipped: 0,
    exercises_added: 3,
    measurements_added: 2,
    measurements_skipped: 0,
  });
  const events = await recordOf(dir, id);
  assert.equal(counts(events), { 'exercise.created': 3, 'workout.created': 2, 'body_measurement.created': 2, 'import.completed': 1 });
  const workouts = events.filter((e) => e.type === 'workout.created').map((e) => (e.data as { item: RecordItem<'workout'> }).item);
  const names = new Map(
    events
      .filter((e) => e.type === 'exercise.created')
      .map((e) => [(e.data as { item: RecordItem<'exercise'> }).item.id, (e.data as { item: RecordItem<'exercise'> }).item]),
  );
  const strength = workouts.find((w) => w.title === 'Strength training')!;
  assert.equal(
    strength.exercises.map((x) => [names.get(x.exercise_id)?.name, names.get(x.exercise_id)?.tracking_type, x.sets.map((s) => [s.weight_kg, s.reps])]),
    [
      [
        'Barbell bench press',
        'weight_reps',
        [
          [80, 8],
          [82.5, 8],
        ],
      ],
      ['Push up', 'bodyweight', [[null, 12]]],
    ],
  );
  assert.equal(strength.source, { app: 'garmin', ref: '7:2026-03-02T07:00:00.000Z' });
  const running = workouts.find((w) => w.title === 'Running')!;
  assert.equal(
    running.exercises[0]!.sets.map((s) => [s.duration_seconds, s.distance_metres]),
    [[1800, 5000]],
  );
  assert.equal(
    events
      .filter((e) => e.type === 'body_measurement.created')
      .map((e) => {
        const m = (e.data as { item: RecordItem<'body_measurement'> }).item;
        return [m.metric, m.value, m.measured_at];
      }),
    [
      ['bodyweight', 72.4, '2026-03-04T07:00:00.000Z'],
      ['body_fat', 18.5, '2026-03-04T07:00:00.000Z'],
    ],
  );

  const again = await cliJson<Summary>(['import', 'fit', '--athlete', id, '--file', zip], env);
  assert.equal([again.workouts_added, again.workouts_skipped, again.measurements_added, again.measurements_skipped, again.exercises_added], [0, 2, 0, 2, 0]);

  // The run alone, under another name: the same file id, so the same workout.
  const alone = await cliJson<Summary>(['import', 'fit', '--athlete', id, '--file', file('renamed.fit', run)], env);
  assert.equal([alone.fit_files, alone.workouts_added, alone.workouts_skipped], [1, 0, 1]);
  // Another device's run at the same time is another file.
  const other = await cliJson<Summary>(['import', 'fit', '--athlete', id, '--file', file('other.fit', runFit({ serialNumber: 8, start: day(3) }))], env);
  assert.equal([other.workouts_added, other.workouts_skipped, other.exercises_added], [1, 0, 0]);
  assert.equal(counts(await recordOf(dir, id)), { 'exercise.created': 3, 'workout.created': 3, 'body_measurement.created': 2, 'import.completed': 4 });
});

test("a scale's two weight files sharing a reading: the shared reading is imported once", async () => {
  const dir = join(root, 'scale');
  const id = await createAthleteIn(dir);
  const env = { DATA_DIR: dir };
  const scale = { serialNumber: 99 };
  const first = file(
    'scale-1.fit',
    weightHistoryFit({ ...scale, start: day(4) }, [
      { at: day(3), kg: 72.6 },
      { at: day(4), kg: 72.4 },
    ]),
  );
  const second = file(
    'scale-2.fit',
    weightHistoryFit({ ...scale, start: day(5) }, [
      { at: day(4), kg: 72.4 },
      { at: day(5), kg: 72.1 },
    ]),
  );
  const a = await cliJson<Summary>(['import', 'fit', '--athlete', id, '--file', first], env);
  const b = await cliJson<Summary>(['import', 'fit', '--athlete', id, '--file', second], env);
  assert.equal([a.measurements_added, a.measurements_skipped, b.measurements_added, b.measurements_skipped], [2, 0, 1, 1]);
  assert.equal(counts(await recordOf(dir, id)), { 'body_measurement.created': 3, 'import.completed': 2 });
});

test('refused with nothing imported: a CSV, a FIT cut short, a bad CRC, a settings file, a zip without FIT files, a zip with one damaged file', async () => {
  const dir = join(root, 'refusals');
  const id = await createAthleteIn(dir);
  const env = { DATA_DIR: dir };
  const refused = async (path: string) => {
    const r = await cli(['import', 'fit', '--athlete', id, '--file', path, '--json'], env);
    assert.is(r.code, 2, r.stderr);
    return (JSON.parse(r.stdout) as { error: { message: string } }).error.message;
  };
  const good = strengthFit({ serialNumber: 7, start: day(2) });
  const badCrc = Uint8Array.from(good);
  badCrc[40]! ^= 0xff;

  assert.match(
    await refused(file('hevy.csv', 'title,start_time,end_time,description\nPush,"1 Mar 2026, 07:00","1 Mar 2026, 08:00",\n')),
    /^hevy\.csv: this is not a FIT file \(it looks like a CSV export/,
  );
  assert.match(
    await refused(file('short.fit', good.subarray(0, 60))),
    /^short\.fit: the FIT file is cut short: its header says \d+ bytes, the file has 60; copy it again; nothing was imported$/,
  );
  assert.match(await refused(file('crc.fit', badCrc)), /^crc\.fit: the FIT file fails its CRC check/);
  assert.match(
    await refused(file('settings.fit', settingsFit({ serialNumber: 7, start: day(1) }))),
    /^settings\.fit: this is a FIT settings file; only activities/,
  );
  assert.match(await refused(file('notes.zip', await zipOf({ 'notes.txt': 'hello' }))), /^notes\.zip: the zip holds no \.fit file/);
  const account = await zipOf({ 'DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip': await zipOf({ 'a.fit': good }) });
  assert.match(
    await refused(file('garmin-account.zip', account)),
    /^garmin-account\.zip: the zip holds no \.fit file \(it holds other zips, such as DI_CONNECT\/DI-Connect-Uploaded-Files\/UploadedFiles_0-_Part1\.zip: upload the one/,
  );
  assert.match(
    await refused(file('mixed.zip', await zipOf({ 'a/good.fit': good, 'b/run.fit': runFit({ serialNumber: 7, start: day(3) }), 'b/damaged.fit': badCrc }))),
    /^mixed\.zip: b\/damaged\.fit in the zip: the FIT file fails its CRC check.*; nothing was imported$/,
  );
  const future = new Date(Date.now() + 86_400_000);
  assert.match(
    await refused(file('later.zip', await zipOf({ 'tomorrow.fit': runFit({ serialNumber: 7, start: future }) }))),
    /^later\.zip: tomorrow\.fit in the zip: the workout ends .* in the future/,
  );
  assert.equal(counts(await recordOf(dir, id)), {}, 'no refused upload wrote anything');
});

test.run();
