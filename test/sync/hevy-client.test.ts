// The Hevy client against the local fake Hevy (test/support/fake-hevy.ts): paging to the last page,
// Retry-After and backoff on 429 and 5xx (waits recorded, never slept), a revoked key refused at
// once, and the key never in a URL or an error.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HevyClient, HevyKeyRejected, HevyProtocolError, HevyUnavailable, retryAfterMs } from '../../services/sync/hevy-client.ts';
import { hevyWorkout, startFakeHevy, type FakeHevy } from '../support/fake-hevy.ts';

const KEY = '6a2c8e0d-3f41-4b7a-9c55-0e8f1d2a7b90';
let hevy: FakeHevy;

function client(waits: number[] = [], options: { maxAttempts?: number; key?: string } = {}) {
  return new HevyClient({
    apiKey: options.key ?? KEY,
    baseUrl: hevy.url,
    sleep: async (ms) => {
      waits.push(ms);
    },
    maxAttempts: options.maxAttempts,
  });
}

async function caught(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

test.before.each(async () => {
  hevy = await startFakeHevy();
  hevy.keys.add(KEY);
});
test.after.each(async () => {
  await hevy.close();
});

test('reads every page of the events feed, newest first, 10 a page', async () => {
  for (let i = 0; i < 23; i++) hevy.put(hevyWorkout(`w-${i}`), new Date(Date.UTC(2026, 4, 1, 0, i)).toISOString());
  const pages: Array<[number, number]> = [];
  const events = await client().allEvents('1970-01-01T00:00:00Z', (page, count) => pages.push([page, count]));
  assert.equal(pages, [
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
  assert.equal(
    events.map((e) => (e.type === 'updated' ? e.workout.id : e.id)),
    Array.from({ length: 23 }, (_, i) => `w-${22 - i}`),
  );
  assert.ok(hevy.requests.every((r) => !r.includes(KEY)));
  assert.ok(hevy.requests.filter((r) => r.startsWith('/v1/workouts/events')).every((r) => r.includes('pageSize=10')));
});

test('the feed since a time holds what changed after it, deletions as deletions', async () => {
  hevy.put(hevyWorkout('old'), '2026-05-01T00:00:00Z');
  hevy.put(hevyWorkout('kept'), '2026-05-02T00:00:00Z');
  hevy.put(hevyWorkout('gone'), '2026-05-02T00:00:00Z');
  hevy.delete('gone', '2026-05-03T00:00:00Z');
  const events = await client().allEvents('2026-05-01T12:00:00Z');
  assert.equal(events, [
    { type: 'deleted', id: 'gone', deleted_at: '2026-05-03T00:00:00Z' },
    { type: 'updated', workout: { ...hevyWorkout('kept'), updated_at: '2026-05-02T00:00:00Z', created_at: '2026-05-02T00:00:00Z' } },
  ]);
});

test('an empty feed is one request', async () => {
  assert.equal(await client().allEvents('1970-01-01T00:00:00Z'), []);
  assert.is(hevy.requests.length, 1);
});

test("429 waits for Retry-After's seconds, then the request is made again", async () => {
  hevy.put(hevyWorkout('w'), '2026-05-01T00:00:00Z');
  hevy.inject({ status: 429, headers: { 'retry-after': '7' } }, { status: 429, headers: { 'retry-after': '2' } });
  const waits: number[] = [];
  const events = await client(waits).allEvents('1970-01-01T00:00:00Z');
  assert.is(events.length, 1);
  assert.equal(waits, [7000, 2000]);
  assert.is(hevy.requests.length, 3);
});

test('5xx and 429 without Retry-After back off exponentially; after the last attempt, HevyUnavailable', async () => {
  hevy.inject({ status: 503 }, { status: 500 }, { status: 429 }, { status: 502 });
  const waits: number[] = [];
  const error = await caught(() => client(waits, { maxAttempts: 4 }).user());
  assert.instance(error, HevyUnavailable);
  assert.is((error as HevyUnavailable).status, 502);
  assert.equal(waits, [1000, 2000, 4000]);
  assert.is(hevy.requests.length, 4);
});

test('a revoked key is refused at once, without retries, and the error does not hold the key', async () => {
  hevy.keys.delete(KEY);
  const waits: number[] = [];
  const error = await caught(() => client(waits).eventsPage('1970-01-01T00:00:00Z', 1));
  assert.instance(error, HevyKeyRejected);
  assert.is((error as HevyKeyRejected).status, 401);
  assert.not.ok(error.message.includes(KEY));
  assert.equal(waits, []);
  assert.is(hevy.requests.length, 1);
});

test('connecting checks the key on /v1/user/info', async () => {
  assert.equal(await client().user(), { id: 'u-1', name: 'Ada', url: 'https://hevy.com/user/ada' });
  assert.instance(await caught(() => client([], { key: 'not-a-key' }).user()), HevyKeyRejected);
});

test('a page size over the maximum is a 400, not retried', async () => {
  const error = await caught(() => client().eventsPage('1970-01-01T00:00:00Z', 1, 11));
  assert.instance(error, HevyProtocolError);
  assert.is(hevy.requests.length, 1);
});

test('templates: one by id (null when Hevy has none), and pages', async () => {
  hevy.templates.set('79D0BB3A', { id: '79D0BB3A', title: 'Bench Press (Barbell)', type: 'weight_reps', primary_muscle_group: 'chest' });
  assert.is((await client().exerciseTemplate('79D0BB3A'))?.title, 'Bench Press (Barbell)');
  assert.is(await client().exerciseTemplate('nope'), null);
  assert.is((await client().exerciseTemplatesPage(1)).exercise_templates.length, 1);
});

test('Retry-After as an HTTP date, and unreadable', () => {
  const now = Date.parse('2026-05-01T00:00:00Z');
  assert.is(retryAfterMs('Fri, 01 May 2026 00:00:30 GMT', now), 30_000);
  assert.is(retryAfterMs('soon', now), null);
  assert.is(retryAfterMs(null, now), null);
});

test.run();
