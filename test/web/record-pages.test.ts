// The athlete's record in the web app, over HTTP: the numbers and lists equal what Agent Access
// answers for the same athlete, record text is shown as text, lists page through the whole
// history, and each page makes a bounded number of store reads however long the history.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { ReadStore } from '../../services/store/read-store.ts';
import { connect } from '../support/connect.ts';
import { FormClient } from '../support/server.ts';
import { HOSTILE_EXERCISE, HOSTILE_MEAL, HOSTILE_TITLE, signedInClient, startWebRecord, YEAR_OF_WORKOUTS, type WebRecord } from '../support/web-record.ts';

let r: WebRecord;
let ada: FormClient;
let token: string;

test.before(async () => {
  r = await startWebRecord();
  ada = await signedInClient(r.s.base, 'ada@example.com');
  token = (await connect(r.s.base, `${r.s.base}/v1/agent-access`, ['training', 'recovery', 'nutrition', 'body_measurements'])).tokens.access_token;
});
test.after(async () => {
  await r.s.close();
});

async function agentAccess(path: string): Promise<unknown> {
  const res = await fetch(`${r.s.base}/v1/agent-access${path}`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200, path);
  return res.json();
}

const workoutIds = (page: string) => [...page.matchAll(/href="\/workouts\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);
const decode = (s: string) => s.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>');

test('Home shows the numbers get_training_snapshot answers, and the newest workouts', async () => {
  const home = await ada.get('/account');
  assert.is(home.status, 200);
  const { data } = agentAccessResponses.get_training_snapshot.parse(await agentAccess('/training/snapshot'));
  const shown = [...home.text.matchAll(/<span class="value">(\d+)<\/span>/g)].map((m) => Number(m[1]));
  const s = data.summary;
  assert.equal(shown, [s.workouts_this_week.value, s.workouts_last_30_days.value, s.consecutive_active_weeks.value]);
  assert.ok(s.workouts_last_30_days.value > 20 && s.consecutive_active_weeks.value > 40, 'a year of training shows real numbers');
  const { data: list } = agentAccessResponses.list_completed_workouts.parse(await agentAccess('/training/workouts?limit=5'));
  assert.equal(workoutIds(home.text), list.items.map((w) => w.id));
  assert.match(home.text, `value="${r.s.base}/mcp"`);
  for (const client of ['Claude', 'ChatGPT', 'VS Code', 'MCP Inspector']) assert.match(home.text, `<summary>${client}</summary>`);
});

test('workouts: newest first as list_completed_workouts, paged through the whole year and back', async () => {
  const first = await ada.get('/workouts');
  const { data } = agentAccessResponses.list_completed_workouts.parse(await agentAccess('/training/workouts?limit=10'));
  assert.equal(workoutIds(first.text).slice(0, 10), data.items.map((w) => w.id));
  const seen: string[] = [];
  let page = first.text;
  let pages = 1;
  for (;;) {
    seen.push(...workoutIds(page));
    const older = /href="(\/workouts\?older=[^"]+)"/.exec(page)?.[1];
    if (!older) break;
    page = (await ada.get(decode(older))).text;
    pages++;
    if (pages === 2) {
      const newer = /href="(\/workouts\?newer=[^"]+)"/.exec(page)?.[1];
      assert.ok(newer, 'page 2 links back');
      assert.equal(workoutIds((await ada.get(decode(newer!))).text), workoutIds(first.text), 'newer from page 2 is page 1');
    }
  }
  assert.is(seen.length, YEAR_OF_WORKOUTS + 1);
  assert.is(new Set(seen).size, seen.length, 'no workout twice');
  assert.is(pages, Math.ceil((YEAR_OF_WORKOUTS + 1) / 20));
  // A made-up position is the first page, never an error.
  assert.equal(workoutIds((await ada.get('/workouts?older=bm90IGpzb24')).text), workoutIds(first.text));
});

test('a workout page: every set in the athlete units with the record badges get_completed_workout reports', async () => {
  const id = workoutIds((await ada.get('/workouts')).text)[0]!;
  const page = await ada.get(`/workouts/${id}`);
  assert.is(page.status, 200);
  const { data } = agentAccessResponses.get_completed_workout.parse(await agentAccess(`/training/workouts/${id}`));
  const badges = data.workout.exercises.flatMap((e) => e.sets.flatMap((s) => s.historical_record_at_completion.indicators));
  assert.is((page.text.match(/class="badge"/g) ?? []).length, badges.length);
  const rows = data.workout.exercises.reduce((n, e) => n + e.sets.length, 0);
  assert.is((page.text.match(/<tr><th scope="row">/g) ?? []).length, rows);
  const firstWeight = data.workout.exercises.flatMap((e) => e.sets).find((s) => s.weight_kg !== null)!.weight_kg!;
  assert.match(page.text, `${Math.round(firstWeight * 100) / 100} kg`);

  // In pounds once the athlete says so (a profile event), and the record itself unchanged.
  const settings = (await r.s.app.athletes.get(r.largeId))!;
  await r.s.app.athletes.updateProfile(settings.email, { ...settings.profile, unit_preference: 'lbs' }, { type: 'athlete', id: r.largeId });
  const inPounds = await ada.get(`/workouts/${id}`);
  assert.match(inPounds.text, `${Math.round((firstWeight / 0.45359237) * 10) / 10} lb`);
  await r.s.app.athletes.updateProfile(settings.email, settings.profile, { type: 'athlete', id: r.largeId });
});

test('record text is shown as text, never as markup', async () => {
  const workout = await ada.get(`/workouts/${r.hostileWorkoutId}`);
  assert.is(workout.status, 200);
  assert.not.match(workout.text, HOSTILE_TITLE);
  assert.not.match(workout.text, HOSTILE_EXERCISE);
  assert.not.match(workout.text, '<a href="https://evil.example">');
  assert.match(workout.text, '&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
  assert.match(workout.text, '&lt;img src=x onerror=alert(1)&gt;');
  const nutrition = await ada.get('/nutrition');
  assert.not.match(nutrition.text, HOSTILE_MEAL);
  assert.match(nutrition.text, '&lt;b&gt;Toast&lt;/b&gt; &amp; &quot;jam&quot;');
  assert.not.match((await ada.get('/account')).text, HOSTILE_TITLE);
});

test('the other pages: routines with dates, goals, check-ins, meals with daily totals, measurements', async () => {
  for (const [path, expected] of [
    ['/routines', 'Push A'],
    ['/goals', 'One-rep max of 140 kg'],
    ['/recovery', 'Sleep'],
    ['/nutrition', 'Porridge with berries'],
    ['/body', 'Bodyweight'],
  ] as const) {
    const page = await ada.get(path);
    assert.is(page.status, 200, path);
    assert.match(page.text, expected, path);
  }
  // Daily totals are list_daily_nutrition's.
  const { data } = agentAccessResponses.list_daily_nutrition.parse(await agentAccess('/nutrition/daily?limit=1'));
  const day = data.items[0]!;
  assert.match((await ada.get('/nutrition')).text, `${Math.round(day.calories_kcal.value!).toLocaleString('en-GB')} kcal`);
  const routine = /href="(\/routines\/[0-9a-f-]{36})"/.exec((await ada.get('/routines')).text)![1]!;
  const detail = await ada.get(routine);
  assert.is(detail.status, 200);
  assert.match(detail.text, 'Scheduled dates');
});

test('an empty record: every page answers, and says there is nothing yet', async () => {
  const empty = await signedInClient(r.s.base, 'empty@example.com');
  for (const path of ['/account', '/workouts', '/routines', '/goals', '/recovery', '/nutrition', '/body']) {
    const page = await empty.get(path);
    assert.is(page.status, 200, path);
    assert.match(page.text, 'aria-current="page"', `${path} marks where the athlete is`);
    assert.match(page.text, 'href="/proposals"', `${path} has the navigation`);
  }
  assert.match((await empty.get('/account')).text, 'No workouts yet');
  // Another athlete's workout is as absent as a made-up one.
  const foreign = await empty.get(`/workouts/${r.hostileWorkoutId}`);
  assert.is(foreign.status, 404);
  assert.not.match(foreign.text, 'alert');
  assert.is((await empty.get('/workouts/not-an-id')).status, 404);
});

test('signed out, a page sends the browser to sign in and back; an unknown address is a page with the navigation', async () => {
  const visitor = new FormClient(r.s.base);
  const res = await visitor.get('/workouts?older=abc');
  assert.is(res.status, 302);
  assert.is(res.headers.get('location'), `/sign-in?return_to=${encodeURIComponent('/workouts?older=abc')}`);
  const missing = await fetch(`${r.s.base}/no-such-page`, { headers: { accept: 'text/html', cookie: [...ada.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
  assert.is(missing.status, 404);
  const text = await missing.text();
  assert.match(text, 'Page not found');
  assert.match(text, 'href="/workouts"');
});

test('each page makes a bounded number of store reads, however long the history', async () => {
  const reads = r.s.app.reads as ReadStore & Record<string, unknown>;
  let calls = 0;
  const originals = new Map<string, unknown>();
  for (const method of ['get', 'getMany', 'page', 'count']) {
    const original = (reads[method] as (...args: unknown[]) => unknown).bind(reads);
    originals.set(method, reads[method]);
    reads[method] = (...args: unknown[]) => {
      calls++;
      return original(...args);
    };
  }
  const counts: Record<string, [number, number]> = {};
  try {
    const empty = await signedInClient(r.s.base, 'empty@example.com');
    const firstWorkout = workoutIds((await ada.get('/workouts')).text)[0]!;
    for (const path of ['/account', '/workouts', `/workouts/${firstWorkout}`, '/routines', '/goals', '/recovery', '/nutrition', '/body']) {
      calls = 0;
      assert.is((await ada.get(path)).status, 200);
      const large = calls;
      calls = 0;
      await empty.get(path);
      counts[path.replace(firstWorkout, ':id')] = [large, calls];
      assert.ok(large <= 12, `${path} made ${large} store reads`);
    }
  } finally {
    for (const [method, original] of originals) reads[method] = original;
  }
  console.log(`    store reads per page (year of training / empty record): ${Object.entries(counts).map(([p, [l, e]]) => `${p} ${l}/${e}`).join(', ')}`);
});

test.run();
