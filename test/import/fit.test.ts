// FIT files read by `parseFit` (services/import/fit.ts), on files the FIT SDK's encoder writes: a
// strength activity's active sets grouped by exercise under readable names, a run's timer time
// and distance, a weight scale's readings; other FIT types told apart; anything not an intact FIT
// file refused, saying what is wrong.
import { Profile } from '@garmin/fitsdk';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exerciseName, parseFit, readable, type FitFile } from '../../services/import/fit.ts';
import { ImportFileError } from '../../services/import/types.ts';
import { runFit, settingsFit, strengthFit, weightFit } from '../fixtures/fit-files.ts';

const start = new Date('2026-03-02T07:00:00.000Z');
const id = { serialNumber: 3_412_345_678, start };

function refusal(bytes: Uint8Array, entry: string | null = null): ImportFileError {
  try {
    parseFit(bytes, entry);
  } catch (error) {
    if (error instanceof ImportFileError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

function activity(file: FitFile) {
  if (file.type !== 'activity') throw new Error(`expected an activity, got ${file.type}`);
  return file.workout;
}

test('a strength activity: active sets grouped by exercise, names from the profile, rests left out, kg as written', () => {
  const file = parseFit(strengthFit(id), null);
  assert.is(file.file_id, '3412345678:2026-03-02T07:00:00.000Z');
  const w = activity(file);
  assert.is(w.source_ref, file.file_id);
  assert.is(w.title, 'Strength training');
  assert.is(w.started_at, '2026-03-02T07:00:00.000Z');
  // 35 + 38 + 30 s of sets and three 90 s rests.
  assert.is(w.ended_at, new Date(start.getTime() + (103 + 270) * 1000).toISOString());
  assert.is(w.entry, null);
  assert.equal(
    w.exercises.map((e) => ({ title: e.title, sets: e.sets.map((s) => [s.weight_kg, s.reps, s.duration_seconds, s.set_type, s.line]) })),
    [
      // Set messages 1, 3 and 5: 2, 4 and 6 are the rests.
      {
        title: 'Barbell bench press',
        sets: [
          [80, 8, 35, 'normal', 1],
          [82.5, 8, 38, 'normal', 3],
        ],
      },
      { title: 'Push up', sets: [[null, 12, 30, 'normal', 5]] },
    ],
  );
});

test('a run: one exercise named for its sport, the timer time (pauses left out) and the distance; the workout spans the pause', () => {
  const w = activity(parseFit(runFit(id, { seconds: 1800, pauseSeconds: 60, metres: 5000 }), 'runs/morning.fit'));
  assert.is(w.title, 'Running');
  assert.is(w.ended_at, '2026-03-02T07:31:00.000Z');
  assert.is(w.entry, 'runs/morning.fit');
  assert.equal(w.exercises, [
    {
      title: 'Running',
      superset_key: null,
      notes: null,
      sets: [{ position: 0, set_type: 'normal', weight_kg: null, reps: null, distance_metres: 5000, duration_seconds: 1800, rpe: null, line: 1 }],
    },
  ]);
});

test('a weight-scale reading: bodyweight in kg and body fat in percent, keyed by the device, the time and the metric', () => {
  const file = parseFit(weightFit(id, { kg: 72.4, fatPercent: 18.5 }), null);
  if (file.type !== 'weight') throw new Error(file.type);
  assert.equal(
    file.measurements.map((m) => [m.metric, m.value, m.measured_at, m.source_ref]),
    [
      ['bodyweight', 72.4, '2026-03-02T07:00:00.000Z', '3412345678:2026-03-02T07:00:00.000Z:bodyweight'],
      ['body_fat', 18.5, '2026-03-02T07:00:00.000Z', '3412345678:2026-03-02T07:00:00.000Z:body_fat'],
    ],
  );
  const weightOnly = parseFit(weightFit(id, { kg: 80 }), null);
  assert.equal(weightOnly.type === 'weight' && weightOnly.measurements.map((m) => m.metric), ['bodyweight']);
});

test('the file id tells files apart by serial number and time created; without a serial, by maker and product', () => {
  assert.is.not(parseFit(runFit({ serialNumber: 1, start }), null).file_id, parseFit(runFit({ serialNumber: 2, start }), null).file_id);
  assert.is.not(
    parseFit(runFit({ serialNumber: 1, start }), null).file_id,
    parseFit(runFit({ serialNumber: 1, start: new Date(start.getTime() + 1000) }), null).file_id,
  );
  assert.is(parseFit(runFit({ start }), null).file_id, 'garmin-3290:2026-03-02T07:00:00.000Z');
});

test('a FIT file of another type is told apart, not imported', () => {
  assert.equal(parseFit(settingsFit(id), null), { type: 'other', file_id: '3412345678:2026-03-02T07:00:00.000Z', fit_type: 'settings' });
});

test('refused: a CSV, bytes that are not FIT, a FIT cut short, a FIT with a bad CRC, a weight file without a reading', () => {
  const csv = refusal(Buffer.from('title,start_time,end_time\nPush,"1 Mar 2026, 07:00","1 Mar 2026, 08:00"\n'), 'week.csv');
  assert.is(csv.entry, 'week.csv');
  assert.match(csv.message, /^this is not a FIT file \(it looks like a CSV export/);
  assert.match(refusal(Buffer.from('not a fit file at all, just some words')).message, /^this is not a FIT file; choose a \.fit file/);

  const good = strengthFit(id);
  assert.match(refusal(good.subarray(0, good.length - 40)).message, /^the FIT file is cut short: its header says \d+ bytes, the file has \d+/);
  const damaged = Uint8Array.from(good);
  damaged[40]! ^= 0xff;
  assert.match(refusal(damaged).message, /^the FIT file fails its CRC check/);

  const noReading = weightFit(id, { kg: 0 });
  assert.is(refusal(noReading).message, 'the weight-scale file holds no weight or body-fat reading');
});

test('a value past what the record holds is refused, naming its message, not cut to fit', () => {
  const heavy = strengthFit(id, [{ category: 'deadlift', reps: 1, weightKg: 2500, seconds: 10 }]);
  assert.is(refusal(heavy).message, 'set message 1 has weight 2500 kg, more than the 2000 kg a record holds');
});

test('an activity with more sets than a workout holds is refused, saying so', () => {
  const many = Array.from({ length: 201 }, () => ({ category: 'squat' as const, reps: 5, weightKg: 60, seconds: 20 }));
  assert.is(refusal(strengthFit(id, many)).message, 'the activity has 201 sets; a workout holds at most 200');
  assert.is(activity(parseFit(strengthFit(id, many.slice(1)), null)).exercises[0]!.sets.length, 200);
});

test("exercise names: the category's own name, the category alone, or unknown; names read as words", () => {
  assert.is(exerciseName({ category: ['squat'], categorySubtype: [65534] }), 'Squat');
  assert.is(exerciseName({ category: ['deadlift'], categorySubtype: [0] }), readable(String(exerciseNameOf('deadliftExerciseName', 0))));
  assert.is(exerciseName({ category: ['unknown'], categorySubtype: [0] }), 'Unknown exercise');
  assert.is(exerciseName({}), 'Unknown exercise');
  assert.is(exerciseName({ category: ['benchPress'], categorySubtype: [1] }, new Map([['benchPress/1', 'Heavy bench']])), 'Heavy bench');
  assert.is(readable('barbellBenchPress'), 'Barbell bench press');
  assert.is(readable('strengthTraining'), 'Strength training');
  assert.is(readable('45DegreePlank'), '45 degree plank');
});

test('any one byte changed in a FIT file refuses it: nothing damaged is read as if it were whole', () => {
  const files = [strengthFit(id), runFit(id), weightFit(id)];
  fc.assert(
    fc.property(fc.nat(files.length - 1), fc.nat(), fc.integer({ min: 1, max: 255 }), (which, at, mask) => {
      const bytes = Uint8Array.from(files[which]!);
      const i = at % bytes.length;
      bytes[i]! ^= mask;
      const error = refusal(bytes);
      assert.ok(error.message.length > 0, `byte ${i} ^ ${mask}`);
    }),
    { numRuns: 500 },
  );
});

test('every exercise in the SDK profile has a readable name of at most 100 characters', () => {
  const lists = Object.keys(Profile.types).filter((k) => k.endsWith('ExerciseName'));
  assert.ok(lists.length > 30, `${lists.length} lists`);
  for (const list of lists) {
    const category = list.slice(0, -'ExerciseName'.length);
    for (const [n, raw] of Object.entries(Profile.types[list]!)) {
      const name = exerciseName({ category: [category as never], categorySubtype: [Number(n)] });
      assert.ok(name.length >= 1 && name.length <= 100, `${list}[${n}] -> ${name}`);
      assert.is.not(name, 'Unknown exercise', `${list}[${n}] ${raw}`);
    }
  }
});

function exerciseNameOf(list: string, n: number): string {
  // The SDK's profile, read directly: what the name must come from.
  return (Profile.types as Record<string, Record<number, string>>)[list]![n]!;
}

test.run();
