import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KG_PER_LB } from '../../contracts/common.ts';
import { parseStrong, parseStrongDuration, parseStrongTime, type StrongOptions } from '../../services/import/strong.ts';
import { ImportRowError, WrongExportError, type ParsedWorkout } from '../../services/import/types.ts';
import {
  formatStrongExport,
  generateStrongExport,
  generateStrongWorkouts,
  type StrongExportOptions,
  type StrongGeneratedWorkout,
} from '../fixtures/strong-export.ts';

const COLUMNS = ['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds', 'Notes', 'Workout Notes', 'RPE'];

interface Row {
  date?: string;
  name?: string;
  duration?: string;
  exercise?: string;
  order?: string;
  weight?: string;
  reps?: string;
  distance?: string;
  seconds?: string;
  notes?: string;
  workoutNotes?: string;
  rpe?: string;
}

const q = (s: string) => `"${s.replaceAll('"', '""')}"`;

function strong(rows: Row[], separator: ',' | ';' = ','): string {
  const lines = rows.map((r) =>
    [
      r.date ?? '2024-03-01 18:30:00',
      q(r.name ?? 'Evening Workout'),
      r.duration ?? '1h 5m',
      q(r.exercise ?? 'Bench Press (Barbell)'),
      r.order ?? '1',
      r.weight ?? '100.0',
      r.reps ?? '5.0',
      r.distance ?? '0',
      r.seconds ?? '0.0',
      q(r.notes ?? ''),
      q(r.workoutNotes ?? ''),
      r.rpe ?? '',
    ].join(separator),
  );
  return `${[COLUMNS.join(separator), ...lines].join('\n')}\n`;
}

const KG: StrongOptions = { timezone: 'UTC', weightUnit: 'kg', distanceUnit: 'km' };
const LBS_MI: StrongOptions = { timezone: 'UTC', weightUnit: 'lbs', distanceUnit: 'mi' };

function rowError(fn: () => unknown): ImportRowError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ImportRowError) return e;
    throw e;
  }
  throw new Error('expected an ImportRowError');
}

function firstSet(rows: Row[], options = KG, separator: ',' | ';' = ',') {
  return parseStrong(strong(rows, separator), options)[0]!.exercises[0]!.sets[0]!;
}

// ---- Shape

test('rows group into workouts, exercises and sets; Rest Timer rows are not sets', () => {
  const text = strong([
    { order: 'W', weight: '60.0', reps: '10.0', workoutNotes: 'Slept well, "8h"' },
    { order: '1', notes: 'felt strong', rpe: '8' },
    { order: 'Rest Timer', weight: '0', reps: '0.0', seconds: '120.0' },
    { order: '2', notes: 'grindy' },
    { exercise: 'Plank', order: '1', weight: '0', reps: '0.0', seconds: '60.0', workoutNotes: 'not this one' },
    { exercise: 'Bench Press (Barbell)', order: '1', weight: '80.0', reps: '8.0' },
    { date: '2024-03-03 10:00:00', name: 'Morning Run', duration: '45m', exercise: 'Running', weight: '0', reps: '0.0', distance: '5.2', seconds: '1800.0' },
  ]);
  const [evening, run] = parseStrong(text, KG) as [ParsedWorkout, ParsedWorkout];
  assert.is(evening.source_ref, 'strong:2024-03-01T18:30:00.000Z:Evening Workout');
  assert.is(evening.started_at, '2024-03-01T18:30:00.000Z');
  assert.is(evening.ended_at, '2024-03-01T19:35:00.000Z');
  assert.is(evening.notes, 'Slept well, "8h"');
  assert.is(evening.line, 2);
  assert.equal(
    evening.exercises.map((e) => [e.title, e.superset_key, e.notes, e.sets.map((s) => [s.position, s.set_type, s.line])]),
    [
      [
        'Bench Press (Barbell)',
        null,
        'felt strong',
        [
          [0, 'warmup', 2],
          [1, 'normal', 3],
          [2, 'normal', 5],
        ],
      ],
      ['Plank', null, null, [[0, 'normal', 6]]],
      ['Bench Press (Barbell)', null, null, [[0, 'normal', 7]]],
    ],
  );
  assert.equal(evening.exercises[0]!.sets[1], {
    position: 1,
    set_type: 'normal',
    weight_kg: 100,
    reps: 5,
    distance_metres: null,
    duration_seconds: null,
    rpe: 8,
    line: 3,
  });
  assert.is(run.source_ref, 'strong:2024-03-03T10:00:00.000Z:Morning Run');
  assert.is(run.ended_at, '2024-03-03T10:45:00.000Z');
  assert.equal(run.exercises[0]!.sets[0]!.distance_metres, 5200);
  assert.equal(run.exercises[0]!.sets[0]!.duration_seconds, 1800);
});

test('set order: numbers, W warm-up, D drop set, F failure, in any case', () => {
  const [w] = parseStrong(strong([{ order: 'W' }, { order: 'w' }, { order: '1' }, { order: '0' }, { order: 'F' }, { order: 'D' }, { order: 'd' }]), KG);
  assert.equal(
    w!.exercises[0]!.sets.map((s) => [s.position, s.set_type]),
    [
      [0, 'warmup'],
      [1, 'warmup'],
      [2, 'normal'],
      [3, 'normal'],
      [4, 'failure'],
      [5, 'drop_set'],
      [6, 'drop_set'],
    ],
  );
});

test('0 is how Strong writes an untracked measure: it becomes null', () => {
  const set = firstSet([{ exercise: 'Plank', weight: '0', reps: '0.0', distance: '0', seconds: '45.0' }]);
  assert.equal([set.weight_kg, set.reps, set.distance_metres, set.duration_seconds], [null, null, null, 45]);
  assert.is(firstSet([{ exercise: 'Pull Up', weight: '0', reps: '12.0' }]).reps, 12);
});

test('durations: 1h 5m, 45m, 1h, 30s and the longer forms', () => {
  const cases: [string, number][] = [
    ['1h 5m', 3900],
    ['45m', 2700],
    ['1h', 3600],
    ['30s', 30],
    ['1h 22min', 4920],
    ['2h 38m', 9480],
    ['1h 5m 30s', 3930],
    ['0m', 0],
  ];
  for (const [text, seconds] of cases) assert.is(parseStrongDuration(text), seconds, text);
  for (const text of ['', 'abc', '5', '1h 5', '-5m', '1.5h', 'm']) assert.is(parseStrongDuration(text), null, text);
  const [w] = parseStrong(strong([{ duration: '1h 22min' }]), KG);
  assert.is(w!.ended_at, '2024-03-01T19:52:00.000Z');
});

test('dates: 24-hour, 12-hour and T forms, in the athlete’s zone', () => {
  assert.equal(parseStrongTime('2024-03-01 18:30:00'), { year: 2024, month: 3, day: 1, hour: 18, minute: 30, second: 0 });
  assert.equal(parseStrongTime('2024-03-01 6:30:15\u202fPM'), { year: 2024, month: 3, day: 1, hour: 18, minute: 30, second: 15 });
  assert.equal(parseStrongTime('2024-03-01T06:30:00'), { year: 2024, month: 3, day: 1, hour: 6, minute: 30, second: 0 });
  for (const text of ['', '01.03.2024 18:30', '2024-02-30 18:30:00', '1 Mar 2024, 18:30']) assert.is(parseStrongTime(text), null, text);
  const [w] = parseStrong(strong([{}]), { ...KG, timezone: 'Europe/Berlin' });
  assert.is(w!.started_at, '2024-03-01T17:30:00.000Z');
});

test('dates: a workout across the spring-forward night in America/New_York lasts its real duration', () => {
  const [w] = parseStrong(strong([{ date: '2024-03-10 01:30:00', duration: '2h' }]), { ...KG, timezone: 'America/New_York' });
  assert.is(w!.started_at, '2024-03-10T06:30:00.000Z');
  assert.is(w!.ended_at, '2024-03-10T08:30:00.000Z');
  const [after] = parseStrong(strong([{ date: '2024-03-10 18:30:00' }]), { ...KG, timezone: 'America/New_York' });
  assert.is(after!.started_at, '2024-03-10T22:30:00.000Z');
});

// ---- Units and separators

test('lbs convert to kg exactly (KG_PER_LB), miles and km to metres', () => {
  const cases: [string, number][] = [
    ['225.0', 102.05828325],
    ['45.0', 20.41165665],
    ['102.5', 46.493217925],
    ['2.25', 1.0205828325],
  ];
  for (const [lbs, kg] of cases) {
    const set = firstSet([{ weight: lbs }], LBS_MI);
    assert.is(set.weight_kg, kg, lbs);
    assert.ok(Math.abs(set.weight_kg! / KG_PER_LB - Number(lbs)) < 1e-9, lbs);
  }
  assert.is(firstSet([{ distance: '3.1' }], LBS_MI).distance_metres, 4988.9664);
  assert.is(firstSet([{ distance: '1' }], LBS_MI).distance_metres, 1609.344);
  assert.is(firstSet([{ distance: '5.23' }], KG).distance_metres, 5230);
  assert.is(firstSet([{ weight: '102.5' }], KG).weight_kg, 102.5);
});

test('semicolon files with a decimal comma', () => {
  const text = strong(
    [
      { weight: '102,5', reps: '5,0', rpe: '8,5' },
      { exercise: 'Running', weight: '0', reps: '0,0', distance: '5,2', seconds: '1800,0' },
      { exercise: 'Row', weight: '60.5' },
    ],
    ';',
  );
  const [w] = parseStrong(text, KG);
  const [bench, run, row] = w!.exercises.map((e) => e.sets[0]!);
  assert.equal([bench!.weight_kg, bench!.reps, bench!.rpe], [102.5, 5, 8.5]);
  assert.equal([run!.distance_metres, run!.duration_seconds], [5200, 1800]);
  assert.is(row!.weight_kg, 60.5);
  assert.is(firstSet([{ weight: '225,0' }], LBS_MI, ';').weight_kg, 102.05828325);
});

test('a decimal comma in a comma file is refused, not misread', () => {
  const e = rowError(() => parseStrong(strong([{ weight: '"102,5"' }]), KG));
  assert.is(e.message, `line 2: Weight '102,5' is not a number`);
});

test('older exports without Notes, Workout Notes and RPE columns', () => {
  const text =
    'Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds\n2024-11-28 17:36:08,"B",35m,"Bent Over Row (Barbell)",1,10.0,13.0,0,0.0\n';
  const [w] = parseStrong(text, KG);
  assert.is(w!.notes, null);
  assert.equal(w!.exercises[0]!.sets[0]!.reps, 13);
  assert.equal(w!.exercises[0]!.sets[0]!.rpe, null);
});

test('quoted line breaks in notes keep line numbers right; CRLF and BOM too', () => {
  const text = `\ufeff${strong([{ notes: 'seat 4,\nhandles 2' }, { order: '2', reps: 'x' }]).replaceAll('\n', '\r\n')}`;
  assert.is(rowError(() => parseStrong(text, KG)).line, 4);
  const [w] = parseStrong(text.replace(';x;', ';5;').replace(',x,', ',5,'), KG);
  assert.is(w!.exercises[0]!.notes, 'seat 4,\nhandles 2');
});

test('refused: an empty file, a header without sets, or rest timers only', () => {
  assert.match(rowError(() => parseStrong('', KG)).message, 'line 1: the file is empty');
  assert.match(rowError(() => parseStrong(`${COLUMNS.join(';')}\n`, KG)).message, 'line 2: the file has a header but no sets');
  assert.match(rowError(() => parseStrong(strong([{ order: 'Rest Timer' }]), KG)).message, 'line 2: the file has a header but no sets');
});

test('refused: a Hevy export says so', () => {
  const hevyFile =
    '"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_lbs","reps","distance_miles","duration_seconds","rpe"\n' +
    '"Push","22 Dec 2025, 08:00","22 Dec 2025, 09:00","","Bench Press (Barbell)",,"",0,"normal",225,5,,,\n';
  const e = rowError(() => parseStrong(hevyFile, KG));
  assert.instance(e, WrongExportError);
  assert.is(e.message, 'line 1: this looks like a Hevy export, not a Strong one');
});

// ---- Refusals

test('refused: missing columns, at line 1', () => {
  const e = rowError(() => parseStrong('Date;Workout Name;Exercise Name;Set Order;Weight;Reps\n', KG));
  assert.is(e.message, `line 1: missing columns 'Duration', 'Distance', 'Seconds' in the header`);
});

test('refused: each bad value, with its line and what was wrong', () => {
  const cases: [Row, string, StrongOptions?][] = [
    [{ weight: 'abc' }, `Weight 'abc' is not a number`],
    [{ weight: '-5' }, 'Weight -5 must be >= 0 kg'],
    [{ weight: '2000.5' }, 'Weight 2000.5 must be <= 2000 kg'],
    [{ weight: '4410' }, 'Weight 4410 must be <= 4409.25 lbs', LBS_MI],
    [{ reps: '-3' }, 'Reps -3 must be >= 0'],
    [{ reps: '10001' }, 'Reps 10001 must be <= 10000'],
    [{ reps: '5.5' }, 'Reps 5.5 is not a whole number'],
    [{ distance: '-1' }, 'Distance -1 must be >= 0'],
    [{ seconds: 'soon' }, `Seconds 'soon' is not a number`],
    [{ rpe: '11' }, 'RPE 11 must be <= 10'],
    [{ order: 'X' }, `Set Order 'X' must be a set number, W (warm-up), D (drop set), F (failure) or Rest Timer`],
    [{ order: '' }, `Set Order '' must be a set number, W (warm-up), D (drop set), F (failure) or Rest Timer`],
    [{ date: '2024-02-30 18:30:00' }, `Date '2024-02-30 18:30:00' is not a date Strong writes`],
    [{ duration: 'long' }, `Duration 'long' is not a duration like 1h 5m, 45m or 30s`],
    [{ name: '' }, 'Workout Name is empty'],
    [{ exercise: ' ' }, 'Exercise Name is empty'],
  ];
  const legs = { date: '2024-03-02 09:00:00', name: 'Legs' };
  for (const [bad, message, options] of cases) {
    const e = rowError(() => parseStrong(strong([{}, { order: '2' }, { ...legs, ...bad }]), options ?? KG));
    assert.is(e.line, 4, message);
    assert.is(e.message, `line 4: ${message}`);
  }
});

test('refused: more than 200 sets in one exercise, at the 201st', () => {
  const rows = Array.from({ length: 201 }, (_, i) => ({ order: String(i + 1) }));
  assert.is(parseStrong(strong(rows.slice(0, 200)), KG)[0]!.exercises[0]!.sets.length, 200);
  const e = rowError(() => parseStrong(strong(rows), KG));
  assert.is(e.message, `line 202: exercise 'Bench Press (Barbell)' has more than 200 sets`);
});

// ---- Generated exports

const VARIANTS: StrongExportOptions[] = [
  { workouts: 450, seed: 5 },
  { workouts: 450, seed: 5, weightUnit: 'lbs', distanceUnit: 'mi', separator: ';' },
];

test('the 450-workout generated files parse to 450 workouts', () => {
  for (const v of VARIANTS) {
    const workouts = parseStrong(generateStrongExport(v), {
      timezone: 'America/New_York',
      weightUnit: v.weightUnit ?? 'kg',
      distanceUnit: v.distanceUnit ?? 'km',
    });
    assert.is(workouts.length, 450);
    const types = new Set(workouts.flatMap((w) => w.exercises.flatMap((e) => e.sets.map((s) => s.set_type))));
    assert.equal([...types].sort(), ['drop_set', 'failure', 'normal', 'warmup']);
  }
});

function expected(w: StrongGeneratedWorkout, options: StrongExportOptions) {
  const t = w.start;
  const start = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  const lbs = options.weightUnit === 'lbs';
  const mi = options.distanceUnit === 'mi';
  return {
    title: w.title,
    started_at: new Date(start).toISOString(),
    ended_at: new Date(start + w.durationMinutes * 60_000).toISOString(),
    notes: w.notes,
    exercises: w.exercises.map((e) => ({
      title: e.title,
      notes: e.notes,
      sets: e.sets.map((s, position) => ({
        position,
        set_type: typeof s.order === 'number' ? 'normal' : ({ W: 'warmup', D: 'drop_set', F: 'failure' } as const)[s.order],
        weight_kg: s.weight === null ? null : lbs ? Math.round(s.weight * KG_PER_LB * 1e10) / 1e10 : s.weight,
        reps: s.reps,
        distance_metres: s.distance === null ? null : Math.round(s.distance * (mi ? 1609.344 : 1000) * 1e6) / 1e6,
        duration_seconds: s.seconds,
        rpe: s.rpe,
      })),
    })),
  };
}

function actual(w: ParsedWorkout) {
  return {
    title: w.title,
    started_at: w.started_at,
    ended_at: w.ended_at,
    notes: w.notes,
    exercises: w.exercises.map((e) => ({
      title: e.title,
      notes: e.notes,
      sets: e.sets.map(({ line: _line, ...s }) => s),
    })),
  };
}

test('parse gives back exactly the generated numbers, in both units and separators', () => {
  for (const v of VARIANTS) {
    const options = { ...v, workouts: 150 };
    const generated = generateStrongWorkouts(options);
    const parsed = parseStrong(formatStrongExport(generated, options.separator ?? ','), {
      timezone: 'UTC',
      weightUnit: options.weightUnit ?? 'kg',
      distanceUnit: options.distanceUnit ?? 'km',
    });
    assert.equal(
      parsed.map(actual),
      generated.map((w) => expected(w, options)),
      JSON.stringify(v),
    );
  }
});

test.run();
