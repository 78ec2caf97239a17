import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHevy, parseHevyTime } from '../../services/import/hevy.ts';
import { ImportRowError, WrongExportError, type ParsedWorkout } from '../../services/import/types.ts';
import { formatHevyExport, generateHevyExport, generateTrainingLog, type GeneratedWorkout, type HevyDateStyle } from '../fixtures/hevy-export.ts';

const HEADER =
  '"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"';

interface Row {
  title?: string;
  start?: string;
  end?: string;
  description?: string;
  exercise?: string;
  superset?: string;
  notes?: string;
  index?: string;
  type?: string;
  weight?: string;
  reps?: string;
  km?: string;
  seconds?: string;
  rpe?: string;
}

const q = (s: string) => `"${s.replaceAll('"', '""')}"`;

function line(r: Row): string {
  return [
    q(r.title ?? 'Push Day'),
    q(r.start ?? '22 Dec 2025, 08:00'),
    q(r.end ?? '22 Dec 2025, 09:05'),
    q(r.description ?? ''),
    q(r.exercise ?? 'Bench Press (Barbell)'),
    r.superset ?? '',
    q(r.notes ?? ''),
    r.index ?? '0',
    q(r.type ?? 'normal'),
    r.weight ?? '80',
    r.reps ?? '5',
    r.km ?? '',
    r.seconds ?? '',
    r.rpe ?? '',
  ].join(',');
}

function hevy(...rows: Row[]): string {
  return `${[HEADER, ...rows.map(line)].join('\n')}\n`;
}

const UTC = { timezone: 'UTC' };

function rowError(fn: () => unknown): ImportRowError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ImportRowError) return e;
    throw e;
  }
  throw new Error('expected an ImportRowError');
}

function refusal(rows: Row[], timezone = 'UTC'): ImportRowError {
  return rowError(() => parseHevy(hevy(...rows), { timezone }));
}

// ---- Dates

const local = (year: number, month: number, day: number, hour: number, minute: number, second = 0) => ({
  year,
  month,
  day,
  hour,
  minute,
  second,
});

test('dates: every format Hevy writes', () => {
  const cases: [string, ReturnType<typeof local>][] = [
    ['22 Dec 2025, 08:00', local(2025, 12, 22, 8, 0)],
    ['22 December 2025, 08:00', local(2025, 12, 22, 8, 0)],
    ['4 Sept 2024, 18:05', local(2024, 9, 4, 18, 5)],
    ['1 jan 2024, 7:09', local(2024, 1, 1, 7, 9)],
    ['Jan 1, 2024, 10:00 AM', local(2024, 1, 1, 10, 0)],
    ['January 1, 2024, 12:05 AM', local(2024, 1, 1, 0, 5)],
    ['Feb 29, 2024, 12:30 PM', local(2024, 2, 29, 12, 30)],
    ['Mar 3, 2024, 11:15\u202fpm', local(2024, 3, 3, 23, 15)],
    ['05.06.2026, 07:30', local(2026, 6, 5, 7, 30)],
    ['5.6.2026, 7:30', local(2026, 6, 5, 7, 30)],
    ['2024-02-01 07:00:00', local(2024, 2, 1, 7, 0)],
    ['2024-02-01T07:00:00', local(2024, 2, 1, 7, 0)],
    ['2024-02-01 07:00:45', local(2024, 2, 1, 7, 0, 45)],
    ['2024-02-01 07:00', local(2024, 2, 1, 7, 0)],
  ];
  for (const [text, expected] of cases) assert.equal(parseHevyTime(text), expected, text);
});

test('dates: what Hevy does not write is not a date', () => {
  for (const text of [
    '',
    '31 Foo 2024, 08:00',
    '31 Feb 2024, 08:00',
    '29 Feb 2023, 08:00',
    '2024-13-01 07:00:00',
    '2024-02-01 24:00:00',
    '2024-02-01 07:60',
    'Jan 1, 2024, 13:00 PM',
    'Jan 1, 2024, 0:30 AM',
    '1 Jan 2024',
    '01/02/2024, 07:00',
    'yesterday',
  ]) {
    assert.is(parseHevyTime(text), null, text);
  }
});

test('dates: each format converts from the athlete’s zone to UTC', () => {
  const starts: [string, string][] = [
    ['22 Dec 2025, 08:00', '2025-12-22T07:00:00.000Z'],
    ['Jun 5, 2026, 7:30 PM', '2026-06-05T17:30:00.000Z'],
    ['05.06.2026, 07:30', '2026-06-05T05:30:00.000Z'],
    ['2024-02-01 07:00:00', '2024-02-01T06:00:00.000Z'],
    ['2024-02-01T07:00:00', '2024-02-01T06:00:00.000Z'],
  ];
  for (const [start, utc] of starts) {
    const [w] = parseHevy(hevy({ start, end: start }), { timezone: 'Europe/Berlin' });
    assert.is(w!.started_at, utc, start);
    assert.is(w!.ended_at, utc, start);
  }
});

test('dates: a spring-forward day in America/New_York', () => {
  const tz = { timezone: 'America/New_York' };
  // 01:30 EST, then the clocks jump from 02:00 to 03:00: 03:30 EDT is one hour later.
  const [night] = parseHevy(hevy({ start: '2024-03-10 01:30:00', end: '2024-03-10 03:30:00' }), tz);
  assert.is(night!.started_at, '2024-03-10T06:30:00.000Z');
  assert.is(night!.ended_at, '2024-03-10T07:30:00.000Z');
  const [morning] = parseHevy(hevy({ start: 'Mar 10, 2024, 8:00 AM', end: 'Mar 10, 2024, 9:00 AM' }), tz);
  assert.is(morning!.started_at, '2024-03-10T12:00:00.000Z');
  // 02:30 does not exist that night; it is read as the moment the clocks showed 03:30.
  assert.is(parseHevy(hevy({ start: '2024-03-10 02:30:00', end: '2024-03-10 04:00:00' }), tz)[0]!.started_at, '2024-03-10T07:30:00.000Z');
});

test('dates: a fall-back day in America/New_York reads the repeated hour as its first pass', () => {
  const [w] = parseHevy(hevy({ start: '03.11.2024, 01:30', end: '03.11.2024, 02:30' }), { timezone: 'America/New_York' });
  assert.is(w!.started_at, '2024-11-03T05:30:00.000Z');
  assert.is(w!.ended_at, '2024-11-03T07:30:00.000Z');
});

test('dates: the offset changes across the spring-forward day in Europe/London', () => {
  const tz = { timezone: 'Europe/London' };
  const before = parseHevy(hevy({ start: '30 Mar 2024, 08:00', end: '30 Mar 2024, 09:00' }), tz)[0]!;
  const on = parseHevy(hevy({ start: '31 Mar 2024, 08:00', end: '31 Mar 2024, 09:00' }), tz)[0]!;
  assert.is(before.started_at, '2024-03-30T08:00:00.000Z');
  assert.is(on.started_at, '2024-03-31T07:00:00.000Z');
});

// ---- Shape

test('rows group into workouts, exercises and sets in file order', () => {
  const text = hevy(
    { description: 'Felt good', exercise: 'Squat', index: '0', type: 'warmup', weight: '60', reps: '8' },
    { description: 'Felt good', exercise: 'Squat', notes: 'belt on', index: '1', weight: '100', reps: '5', rpe: '8.5' },
    { description: 'Felt good', exercise: 'Plank', index: '0', weight: '', reps: '', seconds: '60' },
    { description: 'Felt good', exercise: 'Squat', index: '0', weight: '90', reps: '5' },
    { title: 'Run', start: '23 Dec 2025, 07:00', end: '23 Dec 2025, 07:31', exercise: 'Treadmill', weight: '', reps: '', km: '5.23', seconds: '1805' },
  );
  const [push, run] = parseHevy(text, UTC) as [ParsedWorkout, ParsedWorkout];
  assert.is(push.source_ref, 'hevy:2025-12-22T08:00:00.000Z:Push Day');
  assert.is(push.title, 'Push Day');
  assert.is(push.notes, 'Felt good');
  assert.is(push.line, 2);
  assert.equal(
    push.exercises.map((e) => [e.title, e.notes, e.sets.map((s) => [s.position, s.line])]),
    [
      [
        'Squat',
        'belt on',
        [
          [0, 2],
          [1, 3],
        ],
      ],
      ['Plank', null, [[0, 4]]],
      // The same exercise later in the session, not adjacent: a new entry.
      ['Squat', null, [[0, 5]]],
    ],
  );
  assert.equal(push.exercises[0]!.sets[1], {
    position: 1,
    set_type: 'normal',
    weight_kg: 100,
    reps: 5,
    distance_metres: null,
    duration_seconds: null,
    rpe: 8.5,
    line: 3,
  });
  assert.is(push.exercises[1]!.sets[0]!.duration_seconds, 60);
  assert.is(push.exercises[1]!.sets[0]!.weight_kg, null);
  assert.is(run.source_ref, 'hevy:2025-12-23T07:00:00.000Z:Run');
  assert.is(run.ended_at, '2025-12-23T07:31:00.000Z');
  assert.is(run.notes, null);
  assert.is(run.line, 6);
  assert.equal(run.exercises[0]!.sets[0]!.distance_metres, 5230);
  assert.equal(run.exercises[0]!.sets[0]!.duration_seconds, 1805);
});

test('position is the order listed, whatever set_index says', () => {
  const [w] = parseHevy(hevy({ index: '2' }, { index: '0' }, { index: '1' }), UTC);
  assert.equal(
    w!.exercises[0]!.sets.map((s) => s.position),
    [0, 1, 2],
  );
});

test('units: kg as is, km to metres, seconds rounded, 0 distance or duration is not recorded', () => {
  const [w] = parseHevy(
    hevy(
      { exercise: 'Row', weight: '102.25', km: '0.4', seconds: '90.6' },
      { exercise: 'Bike', weight: '', reps: '', km: '12.345', seconds: '1800' },
      { exercise: 'Curl', weight: '0', reps: '0', km: '0', seconds: '0' },
    ),
    UTC,
  );
  const [row, bike, curl] = w!.exercises.map((e) => e.sets[0]!);
  assert.equal([row!.weight_kg, row!.distance_metres, row!.duration_seconds], [102.25, 400, 91]);
  assert.equal([bike!.weight_kg, bike!.reps, bike!.distance_metres, bike!.duration_seconds], [null, null, 12345, 1800]);
  assert.equal([curl!.weight_kg, curl!.reps, curl!.distance_metres, curl!.duration_seconds], [0, 0, null, null]);
});

test('set types: normal, warmup, failure and dropset', () => {
  const [w] = parseHevy(hevy({ type: 'warmup' }, { type: 'normal' }, { type: 'failure' }, { type: 'dropset' }, { type: ' Warmup ' }), UTC);
  assert.equal(
    w!.exercises[0]!.sets.map((s) => s.set_type),
    ['warmup', 'normal', 'failure', 'drop_set', 'warmup'],
  );
});

test('supersets: exercises sharing a superset_id share a key', () => {
  const [w] = parseHevy(
    hevy(
      { exercise: 'Bench Press (Barbell)' },
      { exercise: 'Lateral Raise', superset: '0' },
      { exercise: 'Lateral Raise', superset: '0' },
      { exercise: 'Face Pull', superset: '0' },
      { exercise: 'Curl', superset: '1' },
      { exercise: 'Pushdown', superset: '1' },
    ),
    UTC,
  );
  assert.equal(
    w!.exercises.map((e) => [e.title, e.superset_key, e.sets.length]),
    [
      ['Bench Press (Barbell)', null, 1],
      ['Lateral Raise', '0', 2],
      ['Face Pull', '0', 1],
      ['Curl', '1', 1],
      ['Pushdown', '1', 1],
    ],
  );
});

test('quoted fields: commas, quotes and line breaks in titles and notes', () => {
  const text = hevy(
    { title: 'Pull, "heavy"', description: 'Slept 6h,\ntired', exercise: 'Face Pull, rope', notes: 'rope "B"\nslow' },
    { title: 'Pull, "heavy"', description: 'Slept 6h,\ntired', exercise: 'Face Pull, rope', index: '1', reps: 'abc' },
  );
  const e = rowError(() => parseHevy(text, UTC));
  // The first row spans lines 2-4 (two line breaks in quotes), so the second starts at line 5.
  assert.is(e.line, 5);
  const [w] = parseHevy(text.replace('"abc"', '5').replace(',abc,', ',5,'), UTC);
  assert.is(w!.title, 'Pull, "heavy"');
  assert.is(w!.notes, 'Slept 6h,\ntired');
  assert.is(w!.source_ref, 'hevy:2025-12-22T08:00:00.000Z:Pull, "heavy"');
  assert.is(w!.exercises[0]!.title, 'Face Pull, rope');
  assert.is(w!.exercises[0]!.notes, 'rope "B"\nslow');
  assert.equal(
    w!.exercises[0]!.sets.map((s) => s.line),
    [2, 5],
  );
});

test('a BOM and CRLF line ends, as Windows tools save the file', () => {
  const text = `\ufeff${hevy({}, { index: '1' }).replaceAll('\n', '\r\n')}`;
  const [w] = parseHevy(text, UTC);
  assert.is(w!.exercises[0]!.sets.length, 2);
});

test('units: weight_lbs and distance_miles convert to kg and metres, each on its own', () => {
  const pounds = (text: string) => text.replace('"weight_kg"', '"weight_lbs"');
  const miles = (text: string) => text.replace('"distance_km"', '"distance_miles"');
  const rows = hevy({ weight: '225', km: '' }, { index: '1', weight: '0', km: '0' }, { exercise: 'Run', weight: '', reps: '', km: '3.1', seconds: '1500' });
  const [lbsMiles] = parseHevy(miles(pounds(rows)), UTC);
  const [bench, run] = lbsMiles!.exercises;
  assert.equal(
    bench!.sets.map((s) => s.weight_kg),
    [102.05828325, 0],
  );
  assert.equal(
    bench!.sets.map((s) => s.distance_metres),
    [null, null],
  );
  assert.is(run!.sets[0]!.distance_metres, 4988.9664);
  // Hevy sets weight and distance units apart: kilograms with miles, pounds with kilometres.
  const [kgMiles] = parseHevy(miles(rows), UTC);
  assert.equal([kgMiles!.exercises[0]!.sets[0]!.weight_kg, kgMiles!.exercises[1]!.sets[0]!.distance_metres], [225, 4988.9664]);
  const [lbsKm] = parseHevy(pounds(rows), UTC);
  assert.equal([lbsKm!.exercises[0]!.sets[0]!.weight_kg, lbsKm!.exercises[1]!.sets[0]!.distance_metres], [102.05828325, 3100]);
});

test('units: pounds are range-checked in pounds, naming the file’s column', () => {
  const text = (weight: string) => hevy({ weight }).replace('"weight_kg"', '"weight_lbs"');
  assert.is(parseHevy(text('4409.24'), UTC)[0]!.exercises[0]!.sets[0]!.weight_kg, 1999.9976214988);
  assert.is(rowError(() => parseHevy(text('4409.26'), UTC)).message, 'line 2: weight_lbs 4409.26 must be <= 4409.25');
  assert.is(rowError(() => parseHevy(text('-1'), UTC)).message, 'line 2: weight_lbs -1 must be >= 0');
  const km = hevy({ km: '-2' }).replace('"distance_km"', '"distance_miles"');
  assert.is(rowError(() => parseHevy(km, UTC)).message, 'line 2: distance_miles -2 must be >= 0');
});

test('refused: both weight columns, or neither', () => {
  const both = hevy({}).replace('"weight_kg"', '"weight_kg","weight_lbs"').replace(',80,', ',80,176,');
  assert.is(rowError(() => parseHevy(both, UTC)).message, `line 1: the header has 'weight_kg' and 'weight_lbs'; an export has one of them`);
  const neither = hevy({}).replace('"weight_kg"', '"weight"');
  assert.is(rowError(() => parseHevy(neither, UTC)).message, `line 1: missing column 'weight_kg' or 'weight_lbs' in the header`);
});

test('refused: an empty file, or a header without sets', () => {
  for (const [text, line, message] of [
    ['', 1, 'the file is empty'],
    ['\ufeff\n', 1, 'the file is empty'],
    [HEADER, 2, 'the file has a header but no sets'],
    [`${HEADER}\r\n\r\n`, 2, 'the file has a header but no sets'],
  ] as const) {
    const e = rowError(() => parseHevy(text, UTC));
    assert.is(e.line, line, JSON.stringify(text));
    assert.match(e.message, message);
  }
});

test('refused: a Strong export says so', () => {
  const strongFile =
    'Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n2024-03-01 18:30:00,"Evening",1h,"Bench",1,100,5,0,0,"","",\n';
  const e = rowError(() => parseHevy(strongFile, UTC));
  assert.instance(e, WrongExportError);
  assert.is(e.message, 'line 1: this looks like a Strong export, not a Hevy one');
});

test('a row of one quoted empty field is refused with its line', () => {
  const text = hevy({}, { index: '1' }).replace(/\n(?=.*\n$)/, '\n""\n');
  assert.is(rowError(() => parseHevy(text, UTC)).message, 'line 3: row has 1 field; the header has 14');
});

// ---- Refusals

test('refused: missing columns, at line 1', () => {
  const text = `${HEADER.replace(',"weight_kg"', '').replace(',"rpe"', '')}\n`;
  const e = rowError(() => parseHevy(text, UTC));
  assert.is(e.line, 1);
  assert.is(e.message, `line 1: missing columns 'rpe', 'weight_kg' or 'weight_lbs' in the header`);
});

test('refused: each bad value, with its line and what was wrong', () => {
  const cases: [Row, string][] = [
    [{ weight: 'abc' }, `weight_kg 'abc' is not a number`],
    [{ weight: '-1' }, 'weight_kg -1 must be >= 0'],
    [{ weight: '2000.5' }, 'weight_kg 2000.5 must be <= 2000'],
    [{ reps: '-3' }, 'reps -3 must be >= 0'],
    [{ reps: '10001' }, 'reps 10001 must be <= 10000'],
    [{ reps: '5.5' }, 'reps 5.5 is not a whole number'],
    [{ km: '-2' }, 'distance_km -2 must be >= 0'],
    [{ seconds: 'long' }, `duration_seconds 'long' is not a number`],
    [{ rpe: '11' }, 'rpe 11 must be <= 10'],
    [{ rpe: '-1' }, 'rpe -1 must be >= 0'],
    [{ index: 'one' }, `set_index 'one' is not a number`],
    [{ type: 'x' }, `set_type 'x' must be normal, warmup, failure or dropset`],
    [{ type: '' }, `set_type '' must be normal, warmup, failure or dropset`],
    [{ type: 'constructor' }, `set_type 'constructor' must be normal, warmup, failure or dropset`],
    [{ start: '31 Foo 2024, 08:00' }, `start_time '31 Foo 2024, 08:00' is not a date Hevy writes`],
    [{ end: '' }, `end_time '' is not a date Hevy writes`],
    [{ end: '23 Dec 2025, 07:59' }, `end_time before start_time ('23 Dec 2025, 07:59' < '23 Dec 2025, 08:00')`],
    [{ title: '  ' }, 'title is empty'],
    [{ title: 'x'.repeat(201) }, 'title is 201 characters long; at most 200 are allowed'],
    [{ exercise: '' }, 'exercise_title is empty'],
    [{ notes: 'n'.repeat(2001) }, 'exercise_notes is 2001 characters long; at most 2000 are allowed'],
  ];
  const legs = { title: 'Legs', start: '23 Dec 2025, 08:00', end: '23 Dec 2025, 09:00' };
  for (const [bad, message] of cases) {
    const e = refusal([{}, { index: '1' }, { ...legs, ...bad }]);
    assert.is(e.line, 4, message);
    assert.is(e.message, `line 4: ${message}`);
  }
});

test('refused: a row whose end_time differs from its workout’s', () => {
  const e = refusal([{}, { index: '1', end: '22 Dec 2025, 09:06' }]);
  assert.is(e.message, `line 3: end_time '22 Dec 2025, 09:06' differs from '22 Dec 2025, 09:05' on line 2, the first row of this workout`);
});

test('refused: a bad row in a later workout names that row', () => {
  const e = refusal([
    {},
    { title: 'Legs', start: '23 Dec 2025, 08:00', end: '23 Dec 2025, 09:00' },
    { title: 'Legs', start: '23 Dec 2025, 08:00', end: '23 Dec 2025, 09:00', reps: '-3' },
  ]);
  assert.is(e.message, 'line 4: reps -3 must be >= 0');
});

test('refused: more than 200 sets in one exercise, at the 201st', () => {
  const rows = Array.from({ length: 201 }, (_, i) => ({ index: String(i) }));
  assert.is(parseHevy(hevy(...rows.slice(0, 200)), UTC)[0]!.exercises[0]!.sets.length, 200);
  const e = refusal(rows);
  assert.is(e.line, 202);
  assert.is(e.message, `line 202: exercise 'Bench Press (Barbell)' has more than 200 sets`);
});

test('refused: an unknown time zone before any row', () => {
  assert.throws(() => parseHevy(hevy({}), { timezone: 'Mars/Olympus' }), /timezone 'Mars\/Olympus'/);
});

// ---- Generated exports

const GENERATED = { workouts: 450, seed: 7, startDate: '2023-01-02' };

test('the 450-workout file round-trips: every workout, set and note as generated, with every set kind, supersets, cardio and multi-line notes among them', () => {
  const log = generateTrainingLog(GENERATED);
  const parsed = parseHevy(formatHevyExport(log, 'en-GB'), UTC);
  assert.equal(parsed.map(actual), log.map(expected));
  // The round trip covers what a real export holds only if the generated log holds it too.
  const sets = log.flatMap((w) => w.exercises.flatMap((e) => e.sets));
  assert.equal([...new Set(sets.map((x) => x.set_type))].sort(), ['drop_set', 'failure', 'normal', 'warmup']);
  assert.ok(
    log.some((w) => w.exercises.some((e) => e.superset_id !== null)) &&
      sets.some((x) => x.distance_metres !== null) &&
      log.some((w) => w.notes?.includes('\n')),
  );
  assert.is(new Set(parsed.map((w) => w.source_ref)).size, log.length, 'each workout its own source reference');
});

function expected(w: GeneratedWorkout) {
  const iso = (t: GeneratedWorkout['start']) => new Date(Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second)).toISOString();
  return {
    title: w.title,
    started_at: iso(w.start),
    ended_at: iso(w.end),
    notes: w.notes,
    exercises: w.exercises.map((e) => ({
      title: e.title,
      superset_key: e.superset_id === null ? null : String(e.superset_id),
      notes: e.notes,
      sets: e.sets.map((s, position) => ({ position, ...s })),
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
      superset_key: e.superset_key,
      notes: e.notes,
      sets: e.sets.map(({ line: _line, ...s }) => s),
    })),
  };
}

test('parse gives back exactly the generated numbers, in every date style', () => {
  const log = generateTrainingLog({ ...GENERATED, workouts: 120 });
  for (const style of ['iso', 'en-GB', 'en-US', 'de'] satisfies HevyDateStyle[]) {
    const parsed = parseHevy(formatHevyExport(log, style), UTC);
    assert.equal(parsed.map(actual), log.map(expected), style);
  }
});

test('the generator is deterministic', () => {
  assert.is(generateHevyExport({ workouts: 30, seed: 3 }), generateHevyExport({ workouts: 30, seed: 3 }));
  assert.is.not(generateHevyExport({ workouts: 30, seed: 3 }), generateHevyExport({ workouts: 30, seed: 4 }));
});

test.run();
