// The athlete's record in the web app, over HTTP: the numbers and lists equal what Agent Access
// answers for the same athlete, record text is shown as text, lists page through the whole
// history, Progress charts what the same reads give, and each page makes a bounded number of
// store reads however long the history.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { ReadStore } from '../../services/store/read-store.ts';
import { connect } from '../support/connect.ts';
import { FormClient } from '../support/server.ts';
import { addDays, weekStart } from '../../services/domain/time.ts';
import { EXERCISES_PER_PAGE, WEEKS_CHARTED } from '../../services/web/progress.ts';
import { bodyweight, shortDate, weight } from '../../services/words/units.ts';
import {
  HOSTILE_EXERCISE,
  HOSTILE_MEAL,
  HOSTILE_TITLE,
  signedInClient,
  startWebRecord,
  TODAY,
  YEAR_OF_WORKOUTS,
  type WebRecord,
} from '../support/web-record.ts';

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
  assert.equal(
    workoutIds(home.text),
    list.items.map((w) => w.id),
  );
  assert.match(home.text, `value="${r.s.base}/mcp"`);
  for (const client of ['Claude', 'ChatGPT', 'VS Code', 'MCP Inspector']) assert.match(home.text, `<summary>${client}</summary>`);
});

test('workouts: newest first as list_completed_workouts, paged through the whole year and back', async () => {
  const first = await ada.get('/workouts');
  const { data } = agentAccessResponses.list_completed_workouts.parse(await agentAccess('/training/workouts?limit=10'));
  assert.equal(
    workoutIds(first.text).slice(0, 10),
    data.items.map((w) => w.id),
  );
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
  const missing = await fetch(`${r.s.base}/no-such-page`, {
    headers: { accept: 'text/html', cookie: [...ada.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  assert.is(missing.status, 404);
  const text = await missing.text();
  assert.match(text, 'Page not found');
  assert.match(text, 'href="/workouts"');
});

const rowsOf = (page: string, row: RegExp) => [...page.matchAll(row)].map((m) => m.slice(1).map((c) => decode(c ?? '')));

/** Every item of a windowed Agent Access list, following its cursor. */
async function everyItem<T>(path: string, parse: (body: unknown) => { data: { items: T[]; next_cursor: string | null } }): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const { data } = parse(await agentAccess(`${path}&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
    items.push(...data.items);
    cursor = data.next_cursor;
  } while (cursor);
  return items;
}

test('Progress: each week has the workouts list_completed_workouts finds in it; bodyweight is list_body_measurements', async () => {
  const page = await ada.get('/progress');
  assert.is(page.status, 200);
  const weeks = rowsOf(page.text, /<tr><th scope="row">([^<]+)<\/th><td class="num">(\d+)<\/td><\/tr>/g);
  const weekly = weeks.slice(0, WEEKS_CHARTED);
  assert.is(weekly.length, WEEKS_CHARTED);
  // This week and the twelve before it, each Monday to Sunday (inside Agent Access's 90 days).
  const monday = weekStart(TODAY);
  for (let i = 0; i < 13; i++) {
    const from = addDays(monday, -7 * i);
    const { data } = agentAccessResponses.list_completed_workouts.parse(await agentAccess(`/training/workouts?from=${from}&to=${addDays(from, 6)}&limit=10`));
    assert.equal(weekly[i], [shortDate(from), String(data.items.length)], `week of ${from}`);
  }
  assert.ok(
    weekly.slice(0, 13).some(([, n]) => Number(n) >= 6),
    'the weeks compared hold real training',
  );
  assert.match(page.text, /<svg class="chart" viewBox="0 0 \d+ \d+" role="img" aria-labelledby="weekly-title weekly-desc"><title id="weekly-title">/);
  assert.is((page.text.match(/<rect class="bar"/g) ?? []).length, weekly.filter(([, n]) => n !== '0').length, 'a bar for each active week');

  const measurements = await everyItem(`/body-measurements?from=${addDays(TODAY, -29)}&to=${TODAY}`, (b) =>
    agentAccessResponses.list_body_measurements.parse(b),
  );
  const bodyweights = measurements.filter((m) => m.metric === 'bodyweight').map((m) => bodyweight(m.value, 'kg'));
  assert.ok(bodyweights.length >= 10, 'a month of bodyweights to compare');
  const shown = rowsOf(page.text.slice(page.text.indexOf('id="bodyweight-title"')), /<tr><th scope="row">[^<]+<\/th><td class="num">([^<]+)<\/td><\/tr>/g).map(
    ([v]) => v,
  );
  assert.equal(shown.slice(0, bodyweights.length), bodyweights);
});

test("an exercise: each session's heaviest set, best estimated 1RM and records as get_exercise_history and get_completed_workout give them", async () => {
  const progress = (await ada.get('/progress')).text;
  const bench = /href="(\/progress\/exercises\/[0-9a-f-]{36})">Bench Press \(Barbell\)</.exec(progress)?.[1];
  assert.ok(bench, 'the exercise list links to Bench Press');
  const page = await ada.get(bench!);
  assert.is(page.status, 200);
  const rows = new Map(
    rowsOf(
      page.text,
      /<tr><th scope="row"><a href="\/workouts\/([0-9a-f-]{36})">[^<]+<\/a><\/th><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><td>(.*?)<\/td><\/tr>/g,
    ).map(([id, top, e1rm, badges]) => [id, { top, e1rm, badges: [...badges!.matchAll(/<span class="badge">([^<]+)<\/span>/g)].map((m) => m[1]!).sort() }]),
  );
  const exerciseId = bench!.split('/').pop()!;
  const history = await everyItem(`/training/exercises/${exerciseId}/history?from=${addDays(TODAY, -89)}&to=${TODAY}`, (b) =>
    agentAccessResponses.get_exercise_history.parse(b),
  );
  assert.ok(history.length > 20, `${history.length} sessions in 90 days`);
  let records = 0;
  for (const item of history) {
    const row = rows.get(item.workout_id);
    assert.ok(row, `session ${item.workout_id} is on the page`);
    const weighted = item.sets.filter((x) => x.weight_kg !== null && x.weight_kg > 0 && x.reps !== null && x.reps > 0);
    const e1rm = Math.max(...weighted.map((x) => x.weight_kg! * (1 + x.reps! / 30)));
    const top = weighted.reduce((a, b) => (b.weight_kg! > a.weight_kg! || (b.weight_kg === a.weight_kg && b.reps! > a.reps!) ? b : a));
    assert.is(row!.e1rm, weight(e1rm, 'kg'), `best estimated 1RM of ${item.workout_id}`);
    assert.is(row!.top, `${weight(top.weight_kg!, 'kg')} × ${top.reps}`, `heaviest set of ${item.workout_id}`);
    const { data } = agentAccessResponses.get_completed_workout.parse(await agentAccess(`/training/workouts/${item.workout_id}`));
    const indicators = new Set(
      data.workout.exercises.filter((e) => e.exercise_id === exerciseId).flatMap((e) => e.sets.flatMap((x) => x.historical_record_at_completion.indicators)),
    );
    const expected = [...indicators]
      .map((i) => ({ weight: 'Heaviest weight', reps: 'Most reps', set_volume: 'Best set volume', estimated_1rm: 'Best est. 1RM' })[i])
      .sort();
    assert.equal(row!.badges, expected, `records of ${item.workout_id}`);
    records += expected.length;
  }
  assert.ok(records > 0, 'some recent sessions set records');
  // The chart marks exactly the sessions the table badges.
  const all = [...rows.values()];
  assert.is((page.text.match(/class="record first"/g) ?? []).length, all.filter((r) => r.badges.includes('Best est. 1RM')).length);
  assert.is((page.text.match(/class="record second"/g) ?? []).length, all.filter((r) => r.badges.includes('Heaviest weight')).length);
  assert.match(
    page.text,
    'role="img" aria-labelledby="exercise-title exercise-desc"><title id="exercise-title">Bench Press (Barbell): best estimated one-rep max and heaviest set of each session, in kg</title>',
  );

  // In pounds once the athlete says so.
  const settings = (await r.s.app.athletes.get(r.largeId))!;
  await r.s.app.athletes.updateProfile(settings.email, { ...settings.profile, unit_preference: 'lbs' }, { type: 'athlete', id: r.largeId });
  try {
    const inPounds = (await ada.get(bench!)).text;
    assert.match(inPounds, 'heaviest set of each session, in lb</title>');
    const [first] = history;
    const e1rm = Math.max(...first!.sets.filter((x) => x.weight_kg && x.reps).map((x) => x.weight_kg! * (1 + x.reps! / 30)));
    assert.match(inPounds, `<td class="num">${weight(e1rm, 'lbs')}</td>`);
  } finally {
    await r.s.app.athletes.updateProfile(settings.email, settings.profile, { type: 'athlete', id: r.largeId });
  }
});

test('Progress lists the exercises by name, paged there and back; an unknown or foreign exercise is not found', async () => {
  const names = (text: string) => rowsOf(text, /<li><a href="\/progress\/exercises\/[0-9a-f-]{36}">([^<]+)<\/a>/g).map(([n]) => n!);
  const first = (await ada.get('/progress')).text;
  const more = /href="(\/progress\?older=[^"]+)">More exercises/.exec(first)?.[1];
  assert.ok(more, 'a catalog longer than a page links on');
  assert.is(names(first).length, EXERCISES_PER_PAGE);
  const second = (await ada.get(decode(more!))).text;
  const all = [...names(first), ...names(second)];
  assert.equal(all, [...all].sort(), 'by name');
  assert.is(new Set(all).size, all.length, 'no exercise twice');
  const back = /href="(\/progress\?newer=[^"]+)">← Previous exercises/.exec(second)?.[1];
  assert.ok(back);
  assert.equal(names((await ada.get(decode(back!))).text), names(first));

  const empty = await signedInClient(r.s.base, 'empty@example.com');
  const nothing = await empty.get('/progress');
  assert.is(nothing.status, 200);
  for (const sentence of ['No workouts in the last year yet', 'No bodyweight in your record yet', 'No exercises in your record yet'])
    assert.match(nothing.text, sentence);
  assert.not.match(nothing.text, '<svg');
  const exerciseId = /href="\/progress\/exercises\/([0-9a-f-]{36})"/.exec(first)![1]!;
  assert.is((await empty.get(`/progress/exercises/${exerciseId}`)).status, 404, "another athlete's exercise");
  assert.is((await ada.get('/progress/exercises/not-an-id')).status, 404);
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
    const exercise = /href="\/progress\/exercises\/([0-9a-f-]{36})">Bench Press/.exec((await ada.get('/progress')).text)![1]!;
    for (const path of [
      '/account',
      '/workouts',
      `/workouts/${firstWorkout}`,
      '/routines',
      '/goals',
      '/recovery',
      '/nutrition',
      '/body',
      '/progress',
      `/progress/exercises/${exercise}`,
    ]) {
      calls = 0;
      assert.is((await ada.get(path)).status, 200);
      const large = calls;
      calls = 0;
      await empty.get(path);
      counts[path.replace(firstWorkout, ':id').replace(exercise, ':id')] = [large, calls];
      assert.ok(large <= 12, `${path} made ${large} store reads`);
    }
  } finally {
    for (const [method, original] of originals) reads[method] = original;
  }
  console.log(
    `    store reads per page (year of training / empty record): ${Object.entries(counts)
      .map(([p, [l, e]]) => `${p} ${l}/${e}`)
      .join(', ')}`,
  );
});

test.run();
