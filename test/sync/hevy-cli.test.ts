// `repledger sync hevy …` against the local fake Hevy, each command a process of its own as an
// operator runs it: connect with a key from a file, run with progress, status, pause and resume,
// disconnect. And a restart mid-sync: the process running a sync is killed (SIGKILL) while it
// reads Hevy's second page; the record is as the last run left it, and the next run, from the
// last position, brings every workout, the edit and the deletion over once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { StoredEvent } from '../../services/store/event-store.ts';
import { openTestApp, registerAthlete, tempDir } from '../support/app.ts';
import { cli, cliJson, startCli } from '../support/cli.ts';
import { BENCH_TEMPLATE, hevyWorkout, startFakeHevy } from '../support/fake-hevy.ts';

const KEY = '6a2c8e0d-3f41-4b7a-9c55-0e8f1d2a7b90';

async function recordEvents(dataDir: string, athleteId: string): Promise<StoredEvent[]> {
  const t = await openTestApp({ dataDir });
  try {
    return await t.app.events.readStream(streams.record(athleteId));
  } finally {
    await t.close();
  }
}

function log(hevy: Awaited<ReturnType<typeof startFakeHevy>>, from: number, to: number) {
  for (let i = from; i < to; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    hevy.put(
      hevyWorkout(`w-${i}`, { title: `Session ${i}`, start_time: `2026-05-${day}T07:00:00Z`, end_time: `2026-05-${day}T08:00:00Z` }),
      new Date(Date.UTC(2026, 4, 1, 6, i)).toISOString(),
    );
  }
}

test('connect, run, a run killed mid-sync and run again, status, pause, resume, disconnect', async () => {
  const dataDir = tempDir();
  const hevy = await startFakeHevy();
  try {
    hevy.keys.add(KEY);
    hevy.templates.set(BENCH_TEMPLATE.id, BENCH_TEMPLATE);
    const setup = await openTestApp({ dataDir });
    const athleteId = await registerAthlete(setup.app, { timezone: 'UTC' });
    await setup.close();
    const env = { DATA_DIR: dataDir, HEVY_API_URL: hevy.url, HEVY_SYNC_EVERY_MINUTES: '0' };
    const keyFile = join(tempDir(), 'hevy-key');
    writeFileSync(keyFile, `${KEY}\n`);

    const wrong = join(tempDir(), 'wrong-key');
    writeFileSync(wrong, 'ffffffff-0000-4000-8000-000000000000');
    const refused = await cli(['sync', 'hevy', 'connect', '--athlete', 'ada@example.com', '--key-file', wrong, '--json'], env);
    assert.is(refused.code, 2);
    assert.is(JSON.parse(refused.stdout).error.code, 'key_rejected');

    const connected = await cliJson<{ hevy_user: { name: string } }>(['sync', 'hevy', 'connect', '--athlete', 'ada@example.com', '--key-file', keyFile], env);
    assert.is(connected.hevy_user.name, 'Ada');

    // A first run: 15 workouts, two pages, progress on stderr.
    log(hevy, 0, 15);
    const first = await cli(['sync', 'hevy', 'run', '--athlete', athleteId], env);
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /15 workouts added, 0 updated, 0 deleted/);
    assert.match(first.stderr, /reading Hevy's workout events, page/);
    const afterFirst = await recordEvents(dataDir, athleteId);
    const position = (afterFirst.at(-1)!.data as { next_since: string }).next_since;

    // Then, in Hevy: 25 more, one edited, one deleted. The next run is killed on its second page.
    log(hevy, 15, 40);
    hevy.put(hevyWorkout('w-3', { title: 'Edited in Hevy', start_time: '2026-05-04T07:00:00Z', end_time: '2026-05-04T08:30:00Z' }), '2026-05-30T10:00:00Z');
    hevy.delete('w-4', '2026-05-30T11:00:00Z');
    hevy.requests.length = 0;
    const killed = startCli(['sync', 'hevy', 'run', '--athlete', athleteId], env);
    hevy.onEventsPage = async (page) => {
      if (page !== 2) return;
      killed.child.kill('SIGKILL');
      await killed.done;
    };
    const died = await killed.done;
    assert.is(died.signal, 'SIGKILL');
    assert.ok(hevy.requests.some((r) => r.startsWith('/v1/workouts/events') && r.includes('page=2')));
    assert.equal(await recordEvents(dataDir, athleteId), afterFirst, 'the killed run wrote something');

    // Restarted: the next run reads from the last position and brings everything over once.
    hevy.onEventsPage = null;
    hevy.requests.length = 0;
    const again = await cliJson<{ workouts_created: number; workouts_updated: number; workouts_deleted: number; since: string }>(
      ['sync', 'hevy', 'run', '--athlete', athleteId],
      env,
    );
    assert.equal([again.workouts_created, again.workouts_updated, again.workouts_deleted], [25, 1, 1]);
    assert.is(again.since, position);
    assert.ok(hevy.requests[0]!.includes(`since=${encodeURIComponent(position)}`), hevy.requests[0]);

    const events = await recordEvents(dataDir, athleteId);
    const created = events.filter((e) => e.type === 'workout.created').map((e) => (e.data as { item: { source: { id: string } } }).item.source.id);
    assert.is(created.length, 40);
    assert.is(new Set(created).size, 40, 'a workout was created twice');
    const updates = events.filter((e) => e.type === 'workout.updated').map((e) => (e.data as { item: { title: string } }).item.title);
    assert.equal(updates, ['Edited in Hevy']);
    assert.is(events.filter((e) => e.type === 'workout.deleted').length, 1);
    assert.is(events.filter((e) => e.type === 'hevy.synced').length, 2);

    const status = await cli(['sync', 'hevy', 'status', '--athlete', athleteId], env);
    assert.match(status.stdout, /Hevy: connected as Ada/);
    assert.match(status.stdout, /last run: ok/);
    assert.match(status.stdout, /25 workouts added, 1 updated, 1 deleted/);

    await cliJson(['sync', 'hevy', 'pause', '--athlete', athleteId], env);
    const paused = await cli(['sync', 'hevy', 'run', '--athlete', athleteId, '--json'], env);
    assert.is(paused.code, 2);
    assert.is(JSON.parse(paused.stdout).error.code, 'paused');
    await cliJson(['sync', 'hevy', 'resume', '--athlete', athleteId], env);

    const gone = await cliJson<{ disconnected: boolean }>(['sync', 'hevy', 'disconnect', '--athlete', athleteId], env);
    assert.is(gone.disconnected, true);
    const after = await cliJson<{ connected: boolean; position: string }>(['sync', 'hevy', 'status', '--athlete', athleteId], env);
    assert.is(after.connected, false);
    assert.ok(after.position);
  } finally {
    await hevy.close();
  }
});

test.run();
