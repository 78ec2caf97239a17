// The Hevy sync service on a real embedded app, against the local fake Hevy: connecting checks and
// seals the key (never stored or exported in the clear), a run is one append with its position,
// edits and deletions in Hevy reach the record, 429s are waited out, a revoked key stops the
// background sync, a run that fails midway leaves nothing half-written and the next finishes it,
// one run per athlete at a time, pause and disconnect, and a pending proposal made stale.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams, type Sealed } from '../../contracts/events.ts';
import { exportRecord } from '../../services/export/record-export.ts';
import { HEVY_RESEAL_AFTER_MS, HevySync, type HevySyncError } from '../../services/sync/hevy-sync.ts';
import { dumpReadModels, openTestApp, registerAthlete, type TestApp } from '../support/app.ts';
import { eventually } from '../support/eventually.ts';
import { BENCH_TEMPLATE, hevyWorkout, startFakeHevy, type FakeHevy } from '../support/fake-hevy.ts';
import { agentCaller, validBody } from '../support/writes.ts';

const KEY = '6a2c8e0d-3f41-4b7a-9c55-0e8f1d2a7b90';
const ATHLETE_ACTOR = { type: 'athlete', id: 'test' } as const;

interface Fixture {
  t: TestApp;
  hevy: FakeHevy;
  sync: HevySync;
  athleteId: string;
  waits: number[];
}

async function fixture(): Promise<Fixture> {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  const hevy = await startFakeHevy();
  hevy.keys.add(KEY);
  hevy.templates.set(BENCH_TEMPLATE.id, BENCH_TEMPLATE);
  const waits: number[] = [];
  const sync = newSync(t, hevy, waits);
  const athleteId = await registerAthlete(t.app, { timezone: 'UTC' });
  return { t, hevy, sync, athleteId, waits };
}

function newSync(t: TestApp, hevy: FakeHevy, waits: number[] = []): HevySync {
  const { events, reads, keys, records, clock, maintenance } = t.app;
  return new HevySync({
    events,
    reads,
    keys,
    records,
    clock,
    maintenance,
    config: { apiUrl: hevy.url, everyMs: 15 * 60_000 },
    client: {
      maxAttempts: 3,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  });
}

async function close(f: Fixture) {
  await f.hevy.close();
  await f.t.close();
}

async function failure(work: () => Promise<unknown>): Promise<HevySyncError> {
  try {
    await work();
  } catch (error) {
    return error as HevySyncError;
  }
  throw new Error('expected a failure');
}

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 6, minute)).toISOString();

/** `n` Hevy workouts, one a day from 1 May, each changed in Hevy at 06:<i> that day. */
function logWorkouts(hevy: FakeHevy, n: number, from = 0) {
  for (let i = from; i < from + n; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    hevy.put(hevyWorkout(`w-${i}`, { title: `Session ${i}`, start_time: `2026-05-${day}T07:00:00Z`, end_time: `2026-05-${day}T08:00:00Z` }), at(i));
  }
}

async function recordEvents(f: Fixture) {
  return f.t.app.events.readStream(streams.record(f.athleteId));
}

async function workoutDocs(f: Fixture) {
  const dump = (await dumpReadModels(f.t.app)).workouts as Array<{ partition: string; doc: { id: string; title: string } }> | Record<string, unknown>;
  return JSON.stringify(dump);
}

test('connecting checks the key with Hevy, seals it, and it is nowhere in the clear: not in the log, the read models, the database files, an export', async () => {
  const f = await fixture();
  try {
    const { hevy_user } = await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    assert.equal(hevy_user, { id: 'u-1', name: 'Ada' });
    assert.equal(f.hevy.requests, ['/v1/user/info']);
    const status = await f.sync.status(f.athleteId);
    assert.is(status.connected, true);
    assert.is(status.hevy_user_name, 'Ada');
    assert.is(status.position, null);
    await f.sync.run(f.athleteId);

    const log = await f.t.app.events.readAll(0, 10_000);
    assert.not.ok(JSON.stringify(log).includes(KEY), 'the log holds the key');
    assert.not.ok(JSON.stringify(await dumpReadModels(f.t.app)).includes(KEY), 'a read model holds the key');
    const exported = await exportRecord(f.t.app, f.athleteId);
    assert.not.ok(JSON.stringify(exported).includes(KEY), 'the export holds the key');
    for (const name of readdirSync(f.t.dataDir)) {
      const path = join(f.t.dataDir, name);
      if (name.startsWith('repledger.db')) assert.not.ok(readFileSync(path).includes(Buffer.from(KEY)), `${name} holds the key`);
    }
  } finally {
    await close(f);
  }
});

test('a key Hevy refuses is not saved', async () => {
  const f = await fixture();
  try {
    const error = await failure(() => f.sync.connect(f.athleteId, 'ffffffff-0000-4000-8000-000000000000', ATHLETE_ACTOR));
    assert.is(error.code, 'key_rejected');
    assert.equal(await f.t.app.events.readStream(streams.hevy(f.athleteId)), []);
    assert.is((await f.sync.status(f.athleteId)).connected, false);
  } finally {
    await close(f);
  }
});

test('a run reads every page and is one append, by hevy-sync, ending with its position; the next reads from there', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 23);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    const pages: unknown[] = [];
    const summary = await f.sync.run(f.athleteId, { onProgress: (p) => pages.push(p) });
    assert.is(summary.workouts_created, 23);
    assert.is(summary.exercises_added, 1);
    assert.equal(pages, [
      { page: 1, page_count: 3 },
      { page: 2, page_count: 3 },
      { page: 3, page_count: 3 },
    ]);
    const events = await recordEvents(f);
    assert.is(events.length, 1 + 23 + 1);
    assert.ok(events.every((e) => (e.metadata.actor as { type: string }).type === 'hevy-sync'));
    assert.ok(events.every((e) => e.metadata.occurred_at === events[0]!.metadata.occurred_at));
    assert.is(events.at(-1)!.type, 'hevy.synced');
    const position = (await f.sync.status(f.athleteId)).position;
    assert.is(position, new Date(Date.parse(at(22)) - 5 * 60_000).toISOString());

    f.hevy.requests.length = 0;
    const again = await f.sync.run(f.athleteId);
    assert.is(again.workouts_created, 0);
    assert.ok(f.hevy.requests[0]!.includes(`since=${encodeURIComponent(position!)}`), f.hevy.requests[0]);
    assert.is((await recordEvents(f)).length, events.length, 'nothing appended when nothing changed');
    const status = await f.sync.status(f.athleteId);
    assert.is(status.last_run?.state, 'ok');
    assert.is(status.next_run_at, new Date(f.t.clock.now().getTime() + 15 * 60_000).toISOString());
  } finally {
    await close(f);
  }
});

test('an edit and a deletion in Hevy reach the record', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 3);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.sync.run(f.athleteId);
    f.hevy.put(hevyWorkout('w-1', { title: 'Renamed in Hevy', start_time: '2026-05-02T07:00:00Z', end_time: '2026-05-02T08:00:00Z' }), '2026-05-30T10:00:00Z');
    f.hevy.delete('w-2', '2026-05-30T11:00:00Z');
    f.t.clock.advance(60_000);
    const summary = await f.sync.run(f.athleteId);
    assert.equal([summary.workouts_created, summary.workouts_updated, summary.workouts_deleted], [0, 1, 1]);
    // Both runs are in the history, newest first.
    assert.equal(
      (await f.sync.status(f.athleteId)).history.map((h) => [h.summary.workouts_created, h.summary.workouts_updated, h.summary.workouts_deleted]),
      [
        [0, 1, 1],
        [3, 0, 0],
      ],
    );
    const models = await workoutDocs(f);
    assert.ok(models.includes('Renamed in Hevy'));
    assert.not.ok(models.includes('Session 1"'));
    assert.not.ok(models.includes('Session 2'), 'the deleted workout is still listed');
    assert.ok(models.includes('Session 0'));
  } finally {
    await close(f);
  }
});

test('429 with Retry-After is waited out, and the run completes', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 12);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    f.hevy.inject({ status: 429, headers: { 'retry-after': '3' }, path: '/v1/workouts/events' });
    const summary = await f.sync.run(f.athleteId);
    assert.is(summary.workouts_created, 12);
    assert.equal(f.waits, [3000]);
  } finally {
    await close(f);
  }
});

test('a run that fails midway (Hevy down on page 2) writes nothing; the next run finishes with nothing lost or twice', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 25);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    f.hevy.onEventsPage = (page) => {
      if (page === 2) f.hevy.inject({ status: 503 }, { status: 503 }, { status: 503 });
    };
    const error = await failure(() => f.sync.run(f.athleteId));
    assert.is(error.code, 'hevy_unavailable');
    assert.equal(await recordEvents(f), []);
    const failed = await f.sync.status(f.athleteId);
    assert.is(failed.last_run?.state, 'error');
    assert.is(failed.last_run?.error?.code, 'hevy_unavailable');
    assert.ok(failed.next_run_at !== null && Date.parse(failed.next_run_at) > f.t.clock.now().getTime());

    f.hevy.onEventsPage = null;
    const summary = await f.sync.run(f.athleteId);
    assert.is(summary.workouts_created, 25);
    const created = (await recordEvents(f))
      .filter((e) => e.type === 'workout.created')
      .map((e) => (e.data as { item: { source: { id: string } } }).item.source.id);
    assert.is(created.length, 25);
    assert.is(new Set(created).size, 25);
  } finally {
    await close(f);
  }
});

test('a key revoked in Hevy: the run fails with key_rejected and the background sync stops trying', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 2);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.t.app.runner.catchUp();
    f.hevy.keys.delete(KEY);
    assert.is(await f.sync.runDue(), 0, 'a run was due, and failed');
    const status = await f.sync.status(f.athleteId);
    assert.is(status.last_run?.error?.code, 'key_rejected');
    assert.is(status.next_run_at, null);
    assert.not.ok(JSON.stringify(status).includes(KEY), 'the error names the key');
    f.t.clock.advance(24 * 3_600_000);
    f.hevy.requests.length = 0;
    await f.sync.runDue();
    assert.equal(f.hevy.requests, [], 'the background sync tried a rejected key again');
  } finally {
    await close(f);
  }
});

test('the background sync runs connected athletes when due, and not again until the interval has passed', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 2);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    assert.is(await f.sync.runDue(), 1);
    assert.is(await f.sync.runDue(), 0);
    f.t.clock.advance(15 * 60_000);
    assert.is(await f.sync.runDue(), 1);
  } finally {
    await close(f);
  }
});

test('the schedule the server starts runs due athletes by itself, and stops cleanly', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 2);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.t.app.runner.catchUp();
    const errors: unknown[] = [];
    const stop = f.sync.schedule((_athlete, error) => errors.push(error), 20);
    const status = await eventually(
      async () => {
        const s = await f.sync.status(f.athleteId);
        return { done: s.last_run?.state === 'ok', value: s };
      },
      { what: 'a scheduled run' },
    );
    await stop();
    assert.is(status.last_run?.summary?.workouts_created, 2);
    assert.equal(errors, []);
  } finally {
    await close(f);
  }
});

test('one run of an athlete at a time: a second instance is refused while the first holds the lease', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 12);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    const other = newSync(f.t, f.hevy);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const onPage2 = new Promise<void>((resolve) => {
      reached = resolve;
    });
    f.hevy.onEventsPage = async (page) => {
      if (page === 2) {
        reached();
        await held;
      }
    };
    const first = f.sync.run(f.athleteId);
    await onPage2;
    assert.is((await failure(() => other.run(f.athleteId))).code, 'running');
    release();
    assert.is((await first).workouts_created, 12);
    assert.is((await other.run(f.athleteId)).workouts_created, 0);
  } finally {
    await close(f);
  }
});

test('paused: no run, by hand or in the background; resumed: runs again', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 1);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.sync.setPaused(f.athleteId, true, ATHLETE_ACTOR);
    await f.t.app.runner.catchUp();
    assert.is((await failure(() => f.sync.run(f.athleteId))).code, 'paused');
    assert.is(await f.sync.runDue(), 0);
    assert.is((await f.sync.status(f.athleteId)).next_run_at, null);
    await f.sync.setPaused(f.athleteId, false, ATHLETE_ACTOR);
    assert.is(await f.sync.runDue(), 1);
  } finally {
    await close(f);
  }
});

test('while an operator pauses writes, no run starts; after, the run goes on', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 2);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.t.app.maintenance.set('write', 120, 'operator:test');
    assert.is((await failure(() => f.sync.run(f.athleteId))).code, 'maintenance');
    assert.equal(await recordEvents(f), []);
    await f.t.app.maintenance.set('write', null, 'operator:test');
    assert.is((await f.sync.run(f.athleteId)).workouts_created, 2);
  } finally {
    await close(f);
  }
});

test('disconnecting destroys the sealing key; the synced workouts stay, and connecting again goes on from the position', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 2);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.sync.run(f.athleteId);
    const sealed = (await f.t.app.events.readStream(streams.hevy(f.athleteId)))[0]!.data as { key: Sealed };
    assert.ok(await f.t.app.keys.get(sealed.key.key_id));
    assert.equal(await f.sync.disconnect(f.athleteId, ATHLETE_ACTOR), { disconnected: true });
    assert.is(await f.t.app.keys.get(sealed.key.key_id), null);
    const status = await f.sync.status(f.athleteId);
    assert.is(status.connected, false);
    assert.is((await failure(() => f.sync.run(f.athleteId))).code, 'not_connected');
    assert.is((await recordEvents(f)).filter((e) => e.type === 'workout.created').length, 2);

    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    f.hevy.requests.length = 0;
    assert.is((await f.sync.run(f.athleteId)).workouts_created, 0);
    assert.ok(f.hevy.requests[0]!.includes(`since=${encodeURIComponent(status.position!)}`));
  } finally {
    await close(f);
  }
});

test('the sealing key is replaced after a week, so retention never destroys the one in use', async () => {
  const f = await fixture();
  try {
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    const first = (await f.sync.connection(f.athleteId))!.key.key_id;
    f.t.clock.advance(HEVY_RESEAL_AFTER_MS + 60_000);
    await f.sync.run(f.athleteId);
    const now = (await f.sync.connection(f.athleteId))!.key.key_id;
    assert.is.not(now, first);
    assert.is(await f.t.app.keys.get(first), null);
    assert.ok(await f.t.app.keys.get(now));
    // Retention's purge of everything older than its period leaves the new key.
    f.t.clock.advance(8 * 86_400_000);
    await f.t.app.proposals.purge();
    assert.is((await f.sync.run(f.athleteId)).workouts_created, 0);
  } finally {
    await close(f);
  }
});

test('a pending proposal that a synced edit makes stale shows as stale', async () => {
  const f = await fixture();
  try {
    logWorkouts(f.hevy, 1);
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    await f.sync.run(f.athleteId);
    const workoutId = (await recordEvents(f)).find((e) => e.type === 'workout.created')!.data as { item: { id: string } };
    const body = validBody([{ op: 'delete', kind: 'completed_workout', id: workoutId.item.id, base_revision: 1 }]);
    await f.t.app.proposals.prepare(await agentCaller(f.t.app, f.athleteId), body);
    assert.equal((await f.t.app.proposals.review(f.athleteId, body.command_id))!.stale, []);
    f.hevy.put(hevyWorkout('w-0', { title: 'Edited in Hevy', start_time: '2026-05-01T07:00:00Z', end_time: '2026-05-01T08:00:00Z' }), '2026-05-31T09:00:00Z');
    await f.sync.run(f.athleteId);
    const stale = (await f.t.app.proposals.review(f.athleteId, body.command_id))!.stale;
    assert.equal(
      stale.map((x) => [x.id, x.reason]),
      [[workoutId.item.id, 'changed']],
    );
  } finally {
    await close(f);
  }
});

test('deleting the account deletes the Hevy connection and its key', async () => {
  const f = await fixture();
  try {
    await f.sync.connect(f.athleteId, KEY, ATHLETE_ACTOR);
    const keyId = (await f.sync.connection(f.athleteId))!.key.key_id;
    await f.t.app.accounts.delete(f.athleteId, { type: 'operator', id: 'test' });
    assert.is(await f.t.app.keys.get(keyId), null);
    assert.equal(await f.t.app.events.readStream(streams.hevy(f.athleteId)), []);
  } finally {
    await close(f);
  }
});

test.run();
