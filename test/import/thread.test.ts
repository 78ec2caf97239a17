// A web upload is read, decided and saved in a worker thread (services/import/thread.ts): the
// server answers other requests meanwhile, this process's other writes wait for the import's
// commit (without holding the event loop), and a worker that stops midway saves nothing and holds
// nothing. The tests hold the worker where they look with its gate (Atomics.wait in the worker, as
// a long parse would hold it), so that what they see does not depend on how fast the file is read.
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WORKOUTS } from '../../projections/workouts.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { parseStrong } from '../../services/import/strong.ts';
import { IMPORT_NICENESS, importThreadOf } from '../../services/import/thread.ts';
import type { ParsedWorkout } from '../../services/import/types.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { generateStrongExport } from '../fixtures/strong-export.ts';
import { within } from '../support/eventually.ts';
import { registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient, uploadImport } from '../support/web-record.ts';

/** This process's CPU priority (the server's thread's) before any import worker ran. */
const SERVER_NICE = getPriority(0);

/** A large file: half the web upload's limit. */
const LARGE = 2000;

/** Uploads `text` as the import form's file, with `fields` and the form's token. */
const upload = (c: FormClient, csrf: string, text: string, fields: Record<string, string> = { app: 'hevy' }, name = 'hevy.csv') =>
  uploadImport(c, { _csrf: csrf, ...fields }, { name, text });

async function signedIn(s: TestServer): Promise<{ ada: string; c: FormClient; csrf: string }> {
  const ada = await registerPro(s.app);
  const c = await signedInClient(s.base, 'ada@example.com');
  return { ada, c, csrf: FormClient.csrf((await c.get('/import')).text) };
}

const workoutsOf = async (s: TestServer, athleteId: string) =>
  (await s.app.reads.page(WORKOUTS, { partition: athleteId, index: 'by_id', direction: 'asc', limit: 10_000 })).length;

/** Lets the worker past gate element `i` (0: before it reads the file, 1: before it writes). */
function release(gate: Int32Array, i: 0 | 1): void {
  Atomics.store(gate, i, 1);
  Atomics.notify(gate, i);
}

const meal = () => ({
  op: 'create' as const,
  kind: 'meal' as const,
  item: { id: randomUUID(), eaten_at: '2026-05-30T12:00:00.000Z', name: 'Lunch', calories_kcal: 600, protein_g: 30, carbohydrate_g: null, fat_g: null },
});

test('while the worker reads a large upload, the server answers another request', async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const thread = importThreadOf(s.app);
    const gate = new Int32Array(new SharedArrayBuffer(8));
    thread.gate = gate;
    const reading = once(thread, 'reading');
    const order: string[] = [];
    const uploaded = upload(c, csrf, generateHevyExport({ workouts: LARGE, seed: 31 })).then((answer) => {
      order.push('upload');
      return answer;
    });
    await within(reading, { what: 'the worker began to read the upload' });
    // The worker is held in its read of the file, as a long parse holds it: the server is not.
    const page = await within(c.get('/workouts'), { what: 'the workouts page, asked while the worker reads the file' });
    order.push('page');
    assert.is(page.status, 200);
    assert.is(await workoutsOf(s, ada), 0, 'nothing of the file is saved yet');
    release(gate, 0);
    release(gate, 1);
    const answer = await within(uploaded, { what: 'the upload', timeoutMs: 120_000 });
    assert.equal(order, ['page', 'upload'], 'the page was answered before the upload');
    assert.is(answer.status, 303, answer.text.slice(0, 500));
    assert.match(answer.location ?? '', `in_file=${LARGE}&added=${LARGE}&skipped=0&`);
    assert.is(await workoutsOf(s, ada), LARGE);
  } finally {
    await s.close();
  }
});

test("while the worker saves, this process's other writes wait for its commit and reads are answered", async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const bea = await registerPro(s.app, 'bea@example.com');
    const thread = importThreadOf(s.app);
    const gate = new Int32Array(new SharedArrayBuffer(8));
    release(gate, 0);
    thread.gate = gate;
    const saving = once(thread, 'saving');
    const order: string[] = [];
    const uploaded = upload(c, csrf, generateHevyExport({ workouts: 200, seed: 32 })).then((answer) => {
      order.push('upload');
      return answer;
    });
    await within(saving, { what: 'the worker was about to write' });
    // This process now holds its writers for the worker, which is held before its write.
    const beaWrite = s.app.records.change(bea, [meal()], { type: 'athlete', id: bea }).then(() => order.push('bea'));
    const page = await within(c.get('/workouts'), { what: 'the workouts page, asked while the worker saves' });
    order.push('page');
    assert.is(page.status, 200);
    release(gate, 1);
    const answer = await within(uploaded, { what: 'the upload', timeoutMs: 60_000 });
    await within(beaWrite, { what: "bea's write" });
    assert.is(answer.status, 303, answer.text.slice(0, 500));
    assert.is(order[0], 'page', `the page was answered first: ${order.join(', ')}`);
    const imported = await s.app.events.readStream(`record-${ada}`);
    const [beaMeal] = (await s.app.events.readStream(`record-${bea}`)).filter((e) => e.type === 'meal.created');
    assert.ok(beaMeal, "bea's meal was saved");
    assert.ok(
      beaMeal.position > imported.at(-1)!.position,
      `bea's write (position ${beaMeal.position}) came after the import's (up to ${imported.at(-1)!.position})`,
    );
    assert.is(await workoutsOf(s, ada), 200);
  } finally {
    await s.close();
  }
});

test('a worker stopped before its write saves nothing, lets the waiting writes go, and the next upload starts another', async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const bea = await registerPro(s.app, 'bea@example.com');
    const eventsBefore = (await s.app.events.readStream(`record-${ada}`)).length;
    const thread = importThreadOf(s.app);
    const gate = new Int32Array(new SharedArrayBuffer(8));
    release(gate, 0);
    thread.gate = gate;
    const saving = once(thread, 'saving');
    const text = generateHevyExport({ workouts: 50, seed: 33 });
    const uploaded = upload(c, csrf, text);
    await within(saving, { what: 'the worker was about to write' });
    const beaWrite = s.app.records.change(bea, [meal()], { type: 'athlete', id: bea });
    await thread.close();
    const answer = await within(uploaded, { what: 'the upload whose worker stopped' });
    assert.is(answer.status, 500);
    await within(beaWrite, { what: "bea's write, which waited for the stopped worker" });
    assert.is((await s.app.events.readStream(`record-${ada}`)).length, eventsBefore, 'nothing of the file was saved');
    assert.is(await workoutsOf(s, ada), 0);

    thread.gate = null;
    const again = await within(upload(c, csrf, text), { what: 'the next upload', timeoutMs: 60_000 });
    assert.is(again.status, 303, again.text.slice(0, 500));
    assert.match(again.location ?? '', 'added=50&');
    assert.is(await workoutsOf(s, ada), 50);
  } finally {
    await s.close();
  }
});

test('a refused file: its line named from the worker, nothing saved', async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const lines = generateHevyExport({ workouts: 30, seed: 34 }).split('\n');
    const last = lines.length - 2; // the last row (the file ends with a line break)
    lines[last] = lines[last]!.replace(/"(normal|warmup|failure|dropset)"/, '"sideways"');
    assert.match(lines[last]!, 'sideways');
    const answer = await upload(c, csrf, lines.join('\n'));
    assert.is(answer.status, 400);
    assert.match(answer.text, `hevy.csv line ${last + 1}`);
    assert.match(answer.text, 'nothing was imported');
    assert.is(await workoutsOf(s, ada), 0);
    assert.is((await s.app.events.readStream(`record-${ada}`)).filter((e) => e.type.startsWith('workout.')).length, 0);
  } finally {
    await s.close();
  }
});

test("the worker reads the time from the app's clock: a workout after it is refused, and the events carry it", async () => {
  const clock = fixedClock('2023-02-01T12:00:00.000Z');
  const s = await startServer({ clock });
  try {
    const { ada, c, csrf } = await signedIn(s);
    // Every two or three days from 2 January 2023: the 13th workout or so ends after 1 February.
    const text = generateHevyExport({ workouts: 30, seed: 35, startDate: '2023-01-02' });
    const early = await upload(c, csrf, text);
    assert.is(early.status, 400, early.location ?? '');
    assert.match(early.text, 'in the future; only completed workouts are imported');
    assert.is(await workoutsOf(s, ada), 0);

    clock.set('2026-06-01T12:00:00.000Z');
    // Three years on, the session has long expired: signed in again.
    const again = await signedInClient(s.base, 'ada@example.com');
    const later = await upload(again, FormClient.csrf((await again.get('/import')).text), text);
    assert.is(later.status, 303, later.text.slice(0, 500));
    const events = await s.app.events.readStream(`record-${ada}`);
    const imported = events.filter((e) => e.type === 'workout.created');
    assert.is(imported.length, 30);
    assert.ok(
      imported.every((e) => e.metadata.occurred_at === '2026-06-01T12:00:00.000Z'),
      `occurred_at: ${String(imported[0]?.metadata.occurred_at)}`,
    );
  } finally {
    await s.close();
  }
});

test("another app's file: refused from the worker with the form's advice, nothing saved", async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const answer = await upload(c, csrf, generateHevyExport({ workouts: 3, seed: 36 }), { app: 'strong' });
    assert.is(answer.status, 400);
    assert.match(answer.text, 'hevy.csv line 1: this looks like a Hevy export, not a Strong one: choose Hevy above and upload it again; nothing was imported');
    assert.is(await workoutsOf(s, ada), 0);
  } finally {
    await s.close();
  }
});

test('a Strong file in pounds and miles: the units chosen on the form reach the worker', async () => {
  const s = await startServer();
  try {
    const { ada, c, csrf } = await signedIn(s);
    const text = generateStrongExport({ workouts: 8, seed: 37, startDate: '2021-01-04', weightUnit: 'lbs', distanceUnit: 'mi' });
    const answer = await upload(c, csrf, text, { app: 'strong', weight_unit: 'lbs', distance_unit: 'mi' }, 'strong.csv');
    assert.is(answer.status, 303, answer.text.slice(0, 500));
    const sets = (workouts: ParsedWorkout[]) => workouts.flatMap((w) => w.exercises.flatMap((e) => e.sets.map((x) => [x.weight_kg, x.distance_metres])));
    const expected = sets(parseStrong(text, { timezone: 'Europe/London', weightUnit: 'lbs', distanceUnit: 'mi' }));
    assert.not.equal(expected, sets(parseStrong(text, { timezone: 'Europe/London', weightUnit: 'kg', distanceUnit: 'km' })), 'the units change the numbers');
    const events = (await s.app.events.readStream(`record-${ada}`)).filter((e) => e.type === 'workout.created');
    const stored = events.flatMap((e) =>
      (e.data as { item: { exercises: Array<{ sets: Array<{ weight_kg: number | null; distance_metres: number | null }> }> } }).item.exercises.flatMap((x) =>
        x.sets.map((set) => [set.weight_kg, set.distance_metres]),
      ),
    );
    assert.equal(stored, expected);
  } finally {
    await s.close();
  }
});

test("the worker gives way to requests: on Linux its thread's CPU priority is below the server's", async () => {
  if (process.platform !== 'linux') return void console.log('skipped: thread priorities are per thread on Linux only');
  const s = await startServer();
  try {
    const tasks = () =>
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        // Fields after the command's closing parenthesis; the nice value is the 19th field of the line.
        return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
      });
    const known = new Set(tasks().map((t) => t.tid));
    // Showing the form starts the worker.
    const { c, csrf } = await signedIn(s);
    const answer = await upload(c, csrf, generateHevyExport({ workouts: 3, seed: 38 }));
    assert.is(answer.status, 303);
    const started = tasks().filter((t) => !known.has(t.tid));
    assert.ok(
      started.some((t) => t.nice === Math.min(19, SERVER_NICE + IMPORT_NICENESS)),
      `threads started for the upload: ${JSON.stringify(started)}; the server's nice ${SERVER_NICE}`,
    );
    // Checked against its value before this file's first import: every worker of the file so far.
    assert.is(tasks().find((t) => t.tid === process.pid)!.nice, SERVER_NICE, "the server's thread keeps its priority");
  } finally {
    await s.close();
  }
});

test.run();
