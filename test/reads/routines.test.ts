// list_saved_routines and get_saved_routine over HTTP against the strict contract.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

async function setup() {
  const clock = fixedClock('2026-06-15T10:00:00.000Z');
  const s = await startServer({ clock });
  const athleteId = await registerPro(s.app);
  const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
  const get = (path: string, token = tokens.access_token) =>
    fetch(`${s.base}/v1/agent-access/training/routines${path}`, { headers: { authorization: `Bearer ${token}` } });
  const actor = { type: 'athlete' as const, id: athleteId };
  const squat = randomUUID();
  const bench = randomUUID();
  await s.app.records.change(
    athleteId,
    [
      { op: 'create', kind: 'exercise', item: { id: squat, name: 'Back Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } },
      { op: 'create', kind: 'exercise', item: { id: bench, name: 'Bench <b>Press</b>', muscle_group: null, tracking_type: 'weight_reps' } },
    ],
    actor,
  );
  const routine = (id: string, title: string): RecordItem<'routine'> => ({
    id,
    title,
    exercises: [
      { position: 1, exercise_id: bench, sets: 3, reps: '8-12', target_rpe: 8, rest_seconds: 90 },
      { position: 0, exercise_id: squat, sets: 5, reps: '5', target_rpe: null, rest_seconds: 180 },
    ],
    scheduled_dates: [],
  });
  return { s, clock, athleteId, actor, get, routine, squat, bench };
}

test('an empty record lists no routines', async () => {
  const { s, get } = await setup();
  try {
    const body = agentAccessResponses.list_saved_routines.parse(await (await get('')).json());
    assert.equal(body.data, { items: [], next_cursor: null });
  } finally {
    await s.close();
  }
});

test('routines list most recently changed first, a page at a time; one routine reads in full', async () => {
  const { s, clock, athleteId, actor, get, routine, squat } = await setup();
  try {
    const ids = Array.from({ length: 7 }, () => randomUUID());
    for (const [i, id] of ids.entries()) {
      clock.advance(60_000);
      await s.app.records.change(athleteId, [{ op: 'create', kind: 'routine', item: routine(id, `Plan ${i}`) }], actor);
    }
    clock.advance(60_000);
    await s.app.records.change(athleteId, [{ op: 'update', kind: 'routine', item: routine(ids[2]!, 'Plan 2, revised'), base_revision: 1 }], actor);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body = agentAccessResponses.list_saved_routines.parse(await (await get(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json());
      seen.push(...body.data.items.map((r) => r.title.value));
      cursor = body.data.next_cursor;
    } while (cursor);
    assert.equal(seen, ['Plan 2, revised', 'Plan 6', 'Plan 5', 'Plan 4', 'Plan 3', 'Plan 1', 'Plan 0']);

    const res = await get(`/${ids[2]}`);
    assert.is(res.status, 200);
    const { data } = agentAccessResponses.get_saved_routine.parse(await res.json());
    assert.is(data.routine.revision, 2);
    assert.equal(
      data.routine.exercises.map((e) => [e.position, e.name.value, e.sets, e.reps]),
      [
        [0, 'Back Squat', 5, '5'],
        [1, 'Bench <b>Press</b>', 3, '8-12'],
      ],
    );
    assert.is(data.routine.exercises[0]!.exercise_id, squat);
    assert.is(data.routine.exercises[1]!.name.handling, 'untrusted_record_text');
  } finally {
    await s.close();
  }
});

test("another athlete's routine and a made-up id are the same 404; a malformed id is a 400", async () => {
  const { s, athleteId, actor, get, routine } = await setup();
  try {
    const mine = randomUUID();
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'routine', item: routine(mine, 'Mine') }], actor);
    await registerPro(s.app, 'bob@example.com');
    const bob = await connect(s.base, `${s.base}/v1/agent-access`, ['training'], 'training', 'bob@example.com');
    const foreign = await get(`/${mine}`, bob.tokens.access_token);
    const madeUp = await get(`/${randomUUID()}`, bob.tokens.access_token);
    assert.is(foreign.status, 404);
    assert.is(madeUp.status, 404);
    const a = (await foreign.json()) as { error: { code: string; message: string } };
    const b = (await madeUp.json()) as { error: { code: string; message: string } };
    assert.is(a.error.code, 'not_found');
    assert.is(a.error.message.replace(/[0-9a-f-]{36}/, 'ID'), b.error.message.replace(/[0-9a-f-]{36}/, 'ID'), 'the answers do not tell them apart');
    const malformed = await get('/not-a-uuid');
    assert.is(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: { message: string } }).error.message, /routine_id/);
  } finally {
    await s.close();
  }
});

test.run();
