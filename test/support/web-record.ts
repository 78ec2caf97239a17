// A server with two athletes for the web app's tests: one with an empty record, and one with a
// year of Hevy training imported (plus routines, goals, check-ins, meals and measurements), and a
// few items whose text is markup, which the pages must show as text.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { fixedClock } from '../../services/domain/clock.ts';
import { addDays } from '../../services/domain/time.ts';
import { tempDir } from './app.ts';
import { PASSWORD, registerPro } from './connect.ts';
import { seedAthlete, trainingHistory } from './sample-record.ts';
import { FormClient, startServer, type TestServer } from './server.ts';

/** A Wednesday, so "this week" and "the last 30 days" differ. */
export const NOW = '2026-06-10T10:00:00.000Z';
export const TODAY = '2026-06-10';
/** About a year of training at the sample record's six days a week. */
export const YEAR_OF_WORKOUTS = 310;
/** Markup that must show as text, then a word longer than any screen (a name typed without spaces) that must wrap. */
export const HOSTILE_TITLE = `<script>alert("title")</script>${'Deadlift'.repeat(20)}`;
export const HOSTILE_EXERCISE = `<img src=x onerror=alert(1)>${'Pullup'.repeat(25)}`;
export const HOSTILE_MEAL = '<b>Toast</b> & "jam"';

export interface WebRecord {
  s: TestServer;
  emptyId: string;
  largeId: string;
  hostileWorkoutId: string;
}

export async function startWebRecord(): Promise<WebRecord> {
  const s = await startServer({ clock: fixedClock(NOW) });
  const emptyId = await registerPro(s.app, 'empty@example.com');
  const seeded = await seedAthlete(
    s.app,
    { label: 'year', email: 'ada@example.com', workouts: YEAR_OF_WORKOUTS },
    trainingHistory(YEAR_OF_WORKOUTS, TODAY),
    tempDir(),
  );
  const largeId = seeded.athleteId;
  const exerciseId = randomUUID();
  const hostileWorkoutId = randomUUID();
  const yesterday = addDays(TODAY, -1);
  await s.app.records.change(
    largeId,
    [
      { op: 'create', kind: 'exercise', item: { id: exerciseId, name: HOSTILE_EXERCISE, muscle_group: null, tracking_type: 'weight_reps' } },
      {
        op: 'create',
        kind: 'workout',
        item: {
          id: hostileWorkoutId,
          title: HOSTILE_TITLE,
          started_at: `${yesterday}T05:00:00.000Z`,
          ended_at: `${yesterday}T06:00:00.000Z`,
          // The longest notes there are, ending with an address pasted whole: it wraps too.
          notes: `<a href="https://evil.example">click</a> https://example.com/${'a'.repeat(1939)}`,
          source: null,
          exercises: [
            {
              exercise_id: exerciseId,
              exercise_order: 0,
              superset_id: null,
              notes: null,
              sets: [1, 2].map((n) => ({
                position: n - 1,
                set_number: n,
                set_type: 'normal' as const,
                parent_position: null,
                weight_kg: 60 + n * 2.5,
                reps: 5,
                rpe: null,
                target_rpe: null,
                duration_seconds: null,
                distance_metres: null,
                incline_percent: null,
                completed: true,
              })),
            },
          ],
        },
      },
      {
        op: 'create',
        kind: 'meal',
        item: {
          id: randomUUID(),
          eaten_at: `${TODAY}T08:00:00.000Z`,
          name: HOSTILE_MEAL,
          calories_kcal: 300,
          protein_g: 10,
          carbohydrate_g: null,
          fat_g: null,
        },
      },
    ],
    { type: 'athlete', id: largeId },
  );
  return { s, emptyId, largeId, hostileWorkoutId };
}

/** Signs `email` in through the sign-in page in the browser, as a person does; waits for their account page. */
export async function signInInBrowser(page: Page, base: string, email = 'ada@example.com'): Promise<void> {
  await page.goto(`${base}/sign-in`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/account`);
}

/** A cookie-keeping client signed in as `email`. */

export async function signedInClient(base: string, email: string): Promise<FormClient> {
  const c = new FormClient(base);
  const form = await c.get('/sign-in');
  const res = await c.post('/sign-in', { email, password: PASSWORD, _csrf: FormClient.csrf(form.text) });
  if (res.status !== 303) throw new Error(`sign-in as ${email} answered ${res.status}`);
  return c;
}

/** A multipart upload to /import over HTTP with the client's cookies, as the browser's form sends it. */
export async function uploadImport(
  c: FormClient,
  fields: Record<string, string | string[]>,
  file: { name: string; text: string | Buffer; type?: string } | null,
  path = '/import',
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  if (file) form.append('file', new Blob([file.text], { type: file.type ?? 'text/csv' }), file.name);
  const res = await fetch(`${c.base}${path}`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { origin: c.base, cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}
