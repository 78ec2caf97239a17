// The Health app's export read as a stream: workouts in both of the app's shapes, body mass and
// body fat in canonical units, dietary samples summed by the athlete's local day (the export's own
// day left out), from the zip or the bare XML; anything else refused, saying what is wrong.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import yazl from 'yazl';
import { activityName, healthInstant, parseAppleHealth, readAppleHealthFile, type AppleHealthData } from '../../services/import/apple-health.ts';
import { ImportRowError } from '../../services/import/types.ts';
import { healthDate, healthXml, writeHealthZip } from '../fixtures/apple-health-export.ts';
import { tempDir } from '../support/app.ts';

const dir = tempDir('repledger-health-');
const shape = { days: 10, fillerPerDay: 40, exportedAt: '2026-05-11T09:00:00.000Z' };
const read = (path: string, timezone = 'Europe/London') => readAppleHealthFile(path, (xml) => parseAppleHealth(xml, { timezone }));

async function refusal(path: string): Promise<ImportRowError> {
  try {
    await read(path);
  } catch (error) {
    if (error instanceof ImportRowError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function zipOf(name: string, entries: Record<string, string>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [entry, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), entry);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

function checkTen(data: AppleHealthData): void {
  assert.is(data.exported_at, '2026-05-11T09:00:00.000Z');
  assert.is(data.workouts.length, 10);
  const [run, lift] = data.workouts;
  // Day 0 is 2026-05-01. The file writes local times at +0100; they are read back as the UTC instants they were.
  assert.equal(
    { title: run!.title, started_at: run!.started_at, ended_at: run!.ended_at, source_ref: run!.source_ref },
    { title: 'Running', started_at: '2026-05-01T07:00:00.000Z', ended_at: '2026-05-01T07:30:30.000Z', source_ref: '2026-05-01T07:00:00.000Z Running' },
  );
  assert.equal(run!.exercises, [
    {
      title: 'Running',
      superset_key: null,
      notes: null,
      sets: [{ position: 0, set_type: 'normal', weight_kg: null, reps: null, distance_metres: 5250, duration_seconds: 1830, rpe: null, line: run!.line }],
    },
  ]);
  assert.is(lift!.title, 'Traditional strength training');
  assert.equal(lift!.exercises[0]!.sets[0]!.distance_metres, null);
  assert.equal(lift!.exercises[0]!.sets[0]!.duration_seconds, 2700);

  const weights = data.measurements.filter((m) => m.metric === 'bodyweight');
  assert.is(weights.length, 10);
  assert.equal(weights[0], {
    source_ref: 'bodyweight 2026-05-01T06:30:00.000Z',
    measured_at: '2026-05-01T06:30:00.000Z',
    metric: 'bodyweight',
    value: 70,
    line: weights[0]!.line,
  });
  // Day 1 is written in pounds (154.5 lb): kilograms within the file's precision.
  assert.ok(Math.abs(weights[1]!.value - 70.1) < 0.05, `${weights[1]!.value} kg`);
  assert.equal(
    data.measurements.filter((m) => m.metric === 'body_fat').map((m) => m.value),
    [20, 20],
  );

  assert.is(data.meals.length, 10);
  assert.equal(data.meals[0], {
    source_ref: 'day 2026-05-01',
    name: 'Day total from Apple Health',
    line: data.meals[0]!.line,
    eaten_at: '2026-05-01T19:00:00.000Z',
    calories_kcal: 2000,
    protein_g: 90,
    carbohydrate_g: 180,
    fat_g: 60,
  });
}

test('export.zip: workouts, measurements and each day’s nutrition, the filler skipped', async () => {
  const path = join(dir, 'export.zip');
  await writeHealthZip(path, shape);
  checkTen(await read(path));
});

test('the bare export.xml reads the same', async () => {
  const path = join(dir, 'export.xml');
  writeFileSync(path, [...healthXml(shape)].join(''));
  checkTen(await read(path));
});

test('days are the athlete’s: a dinner at 23:30 in New York is the day before in London’s terms, and the export’s own day is left out', async () => {
  const at = (iso: string) => healthDate(Date.parse(iso), -240);
  const xml = `<?xml version="1.0"?><HealthData locale="en_US"><ExportDate value="${at('2026-05-03T14:00:00.000Z')}"/>
<Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" unit="kJ" value="4184" startDate="${at('2026-05-02T03:30:00.000Z')}" endDate="${at('2026-05-02T03:30:00.000Z')}"/>
<Record type="HKQuantityTypeIdentifierDietaryProtein" unit="mg" value="2500" startDate="${at('2026-05-02T12:00:00.000Z')}" endDate="${at('2026-05-02T12:00:00.000Z')}"/>
<Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" unit="kcal" value="300" startDate="${at('2026-05-03T12:00:00.000Z')}" endDate="${at('2026-05-03T12:00:00.000Z')}"/>
</HealthData>`;
  const path = join(dir, 'zones.xml');
  writeFileSync(path, xml);
  const ny = await read(path, 'America/New_York');
  assert.equal(
    ny.meals.map((d) => [d.source_ref, d.calories_kcal, d.protein_g]),
    [
      ['day 2026-05-01', 1000, null],
      ['day 2026-05-02', null, 2.5],
    ],
  );
  const london = await read(path, 'Europe/London');
  assert.equal(
    london.meals.map((d) => [d.source_ref, d.calories_kcal, d.protein_g]),
    [['day 2026-05-02', 1000, 2.5]],
  );
});

test('other files are refused, saying what is wrong', async () => {
  const csv = join(dir, 'hevy.csv');
  writeFileSync(csv, 'title,start_time\nPush,"1 May 2026, 07:00"\n');
  assert.match((await refusal(csv)).message, /not the Health app’s export \(export\.zip, or the export\.xml in it\): the file is not XML/);

  const other = join(dir, 'other.xml');
  writeFileSync(other, '<?xml version="1.0"?><gpx version="1.1"><trk/></gpx>');
  assert.match((await refusal(other)).message, /not the Health app's export: its XML starts with <gpx>, not <HealthData>/);

  assert.match((await refusal(await zipOf('no-export.zip', { 'workout-routes/route_1.gpx': '<gpx/>' }))).message, /the zip holds no export\.xml/);

  const badValue = join(dir, 'bad.xml');
  writeFileSync(
    badValue,
    '<?xml version="1.0"?>\n<HealthData>\n<Record type="HKQuantityTypeIdentifierBodyMass" unit="kg" value="heavy" startDate="2026-05-01 07:00:00 +0100"/>\n</HealthData>',
  );
  const bad = await refusal(badValue);
  assert.is(bad.line, 3);
  assert.match(bad.message, /Record has value "heavy", not a number/);

  const badUnit = join(dir, 'unit.xml');
  writeFileSync(
    badUnit,
    '<HealthData><Record type="HKQuantityTypeIdentifierBodyMass" unit="hands" value="3" startDate="2026-05-01 07:00:00 +0100"/></HealthData>',
  );
  assert.match((await refusal(badUnit)).message, /unit "hands", not one of kg, g, lb, st/);

  const cut = join(dir, 'cut.xml');
  writeFileSync(cut, [...healthXml({ ...shape, days: 2 })].join('').slice(0, 3000));
  assert.match((await refusal(cut)).message, /not well-formed XML/);

  const feast = join(dir, 'feast.xml');
  const energy = (kcal: number, at: string) =>
    `<Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" unit="kcal" value="${kcal}" startDate="${at}" endDate="${at}"/>`;
  writeFileSync(
    feast,
    `<HealthData>\n<ExportDate value="2026-05-09 10:00:00 +0100"/>\n${energy(60000, '2026-05-01 08:00:00 +0100')}\n${energy(60000, '2026-05-01 19:00:00 +0100')}\n</HealthData>`,
  );
  const tooMuch = await refusal(feast);
  assert.is(tooMuch.line, 3, 'the day’s first sample');
  assert.match(tooMuch.message, 'the samples of 2026-05-01 add up to 120000 kcal of dietary energy, more than the 100000 a meal holds');

  const latin1 = join(dir, 'latin1.xml');
  writeFileSync(latin1, Buffer.from('<HealthData locale="fr_FR"><Me name="Zo\xe9"/></HealthData>', 'latin1'));
  assert.match((await refusal(latin1)).message, /not UTF-8/);
});

test('names and dates as the Health app writes them', () => {
  assert.is(activityName('HKWorkoutActivityTypeHighIntensityIntervalTraining'), 'High intensity interval training');
  assert.is(activityName('HKWorkoutActivityTypeYoga'), 'Yoga');
  assert.is(activityName(undefined), 'Workout');
  assert.is(healthInstant('2026-05-01 07:00:00 +0100'), '2026-05-01T06:00:00.000Z');
  assert.is(healthInstant('2026-05-01 07:00:00 -0430'), '2026-05-01T11:30:00.000Z');
  assert.is(healthInstant('2026-05-01T07:00:00Z'), null);
});

test.run();
