// A workout page shows every field the record keeps of its exercises and sets, over HTTP: each
// exercise's notes (imported from Hevy too), RPE and target RPE, time, distance, incline, the set
// types (a drop set with the set it drops from), sets not done, and supersets by letter, in the
// athlete's units; record text as text.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importFile } from '../../cli/import.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import type { GeneratedWorkout } from '../fixtures/hevy-export.ts';
import { formatHevyExport } from '../fixtures/hevy-export.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { tempDir } from '../support/app.ts';
import { registerPro } from '../support/connect.ts';
import { seedFullWorkout, type FullWorkout } from '../support/full-workout.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';
import type { FormClient } from '../support/server.ts';

const NOW = '2026-06-10T10:00:00.000Z';

let s: TestServer;
let ada: FormClient;
let athleteId: string;
let ids: FullWorkout;

test.before(async () => {
  s = await startServer({ clock: fixedClock(NOW) });
  athleteId = await registerPro(s.app);
  ids = await seedFullWorkout(s.app, athleteId, '2026-06-09T08:15:00.000Z');
  ada = await signedInClient(s.base, 'ada@example.com');
});
test.after(async () => {
  await s.close();
});

/** The section of one exercise on the page, by its heading. */
function section(page: string, name: string): string {
  const start = page.indexOf(`>${name}</h2>`);
  assert.ok(start > 0, `a section for ${name}`);
  const end = page.indexOf('</section>', start);
  return page.slice(start, end);
}

/** The header cells of a section's set table, and its rows as their cells' text. */
function table(part: string): { heads: string[]; rows: string[][] } {
  const heads = [...part.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!);
  const rows = [...part.matchAll(/<tr><th scope="row"[^>]*>(.*?)<\/th>(.*?)<\/tr>/gs)].map((m) => [
    m[1]!.replace(/<[^>]+>/g, '').trim(),
    ...[...m[2]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()),
  ]);
  return { heads, rows };
}

test('every set field: types with what a drop set drops from, RPE and target RPE, sets not done; only columns some set fills', async () => {
  const page = await ada.get(`/workouts/${ids.workoutId}`);
  assert.is(page.status, 200);
  const bench = table(section(page.text, 'Bench Press'));
  assert.equal(bench.heads, ['Set', 'Weight', 'Reps', 'RPE', 'Target RPE', 'Done', 'Records']);
  assert.equal(
    bench.rows.map((r) => r.slice(0, 6)),
    [
      ['1 Warm-up', '40 kg', '8', '—', '—', 'Yes'],
      ['2', '80 kg', '5', '8.5', '8', 'Yes'],
      ['3 Drop set from set 2', '60 kg', '8', '9.5', '—', 'Yes'],
      ['4 To failure', '70 kg', '6', '—', '10', 'Yes'],
      ['5', '80 kg', '3', '—', '—', 'No'],
    ],
  );
  // Time, distance and incline, in the athlete's units.
  const run = table(section(page.text, 'Treadmill'));
  assert.equal(run.heads, ['Set', 'Distance', 'Time', 'Incline', 'Records']);
  assert.equal(run.rows[0]!.slice(0, 4), ['1', '1.61 km', '15:00', '7.5 %']);
  // Every set done, no RPE: no Done or RPE column.
  assert.equal(table(section(page.text, 'Curl')).heads, ['Set', 'Weight', 'Reps', 'Records']);

  // In pounds and miles once the athlete says so.
  const athlete = (await s.app.athletes.get(athleteId))!;
  await s.app.athletes.updateProfile(athlete.email, { ...athlete.profile, unit_preference: 'lbs' }, { type: 'athlete', id: athleteId });
  try {
    const inPounds = await ada.get(`/workouts/${ids.workoutId}`);
    assert.equal(table(section(inPounds.text, 'Bench Press')).rows[1]!.slice(0, 3), ['2', '176.4 lb', '5']);
    assert.equal(table(section(inPounds.text, 'Treadmill')).rows[0]!.slice(0, 2), ['1', '1 mi']);
  } finally {
    await s.app.athletes.updateProfile(athlete.email, athlete.profile, { type: 'athlete', id: athleteId });
  }
});

test("an exercise's notes and its superset, by letter and with the exercises done with it; text stays text", async () => {
  const page = await ada.get(`/workouts/${ids.workoutId}`);
  const bench = section(page.text, 'Bench Press');
  assert.match(bench, '<h3>Notes</h3><p class="notes">Pause on the chest.\nElbows &lt;b&gt;tucked&lt;/b&gt; &amp; &quot;slow&quot;</p>');
  assert.not.match(page.text, '<b>tucked</b>');
  assert.match(bench, '<dt>Superset</dt><dd>Superset A, done with Cable Fly</dd>');
  assert.match(section(page.text, 'Cable Fly'), '<dt>Superset</dt><dd>Superset A, done with Bench Press</dd>');
  assert.not.match(section(page.text, 'Treadmill'), 'Superset');
  assert.not.match(page.text, ids.supersetId, 'no superset id on the page');
});

test("imported from Hevy: each exercise's notes appear on its workout page", async () => {
  const dir = tempDir();
  const workout: GeneratedWorkout = {
    title: 'Imported push',
    start: { year: 2026, month: 6, day: 8, hour: 18, minute: 0, second: 0 },
    end: { year: 2026, month: 6, day: 8, hour: 19, minute: 0, second: 0 },
    notes: 'Felt good',
    exercises: [
      {
        title: 'Overhead Press (Barbell)',
        superset_id: null,
        notes: 'Brace first, then press; belt on the top set',
        sets: [{ set_type: 'normal', weight_kg: 50, reps: 5, distance_metres: null, duration_seconds: null, rpe: 8 }],
      },
      {
        title: 'Lateral Raise (Dumbbell)',
        superset_id: null,
        notes: null,
        sets: [{ set_type: 'normal', weight_kg: 10, reps: 15, distance_metres: null, duration_seconds: null, rpe: null }],
      },
    ],
  };
  const file = join(dir, 'hevy.csv');
  writeFileSync(file, formatHevyExport([workout]));
  const summary = await importFile(
    s.app,
    { app: 'hevy', athlete: 'ada@example.com', file, log: () => undefined, progress: { update: () => undefined, stop: () => undefined } },
    (text, athlete) => parseHevy(text, { timezone: athlete.profile.timezone }),
  );
  assert.is(summary.workouts_added, 1);
  const list = await ada.get('/workouts');
  const id = [...list.text.matchAll(/href="\/workouts\/([0-9a-f-]{36})"/g)].map((m) => m[1]!).find((w) => w !== ids.workoutId);
  assert.ok(id, 'the imported workout is listed');
  const page = await ada.get(`/workouts/${id}`);
  assert.match(page.text, 'Imported push');
  assert.match(section(page.text, 'Overhead Press (Barbell)'), '<h3>Notes</h3><p class="notes">Brace first, then press; belt on the top set</p>');
  assert.not.match(section(page.text, 'Lateral Raise (Dumbbell)'), 'Notes');
});

test.run();
