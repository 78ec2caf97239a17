// get_exercise_history over HTTP against the strict contract.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';

const set = (position: number, o: Partial<WorkoutSet> = {}): WorkoutSet => workoutSet(position, { weight_kg: 100, reps: 5, ...o });

test('one exercise, workout by workout, working sets only, in the window, newest first', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-15T10:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const get = (exerciseId: string, query = '') =>
      fetch(`${s.base}/v1/agent-access/training/exercises/${exerciseId}/history${query}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const squat = randomUUID();
    const row = randomUUID();
    const actor = { type: 'athlete' as const, id: athleteId };
    await s.app.records.change(
      athleteId,
      [
        { op: 'create', kind: 'exercise', item: { id: squat, name: 'Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } },
        { op: 'create', kind: 'exercise', item: { id: row, name: 'Row', muscle_group: 'back', tracking_type: 'weight_reps' } },
      ],
      actor,
    );
    const day = (d: number): RecordItem<'workout'> => ({
      id: randomUUID(),
      title: `Day ${d}`,
      started_at: `2026-06-${String(d).padStart(2, '0')}T08:00:00.000Z`,
      ended_at: `2026-06-${String(d).padStart(2, '0')}T09:00:00.000Z`,
      notes: null,
      source: null,
      exercises: [
        {
          exercise_id: squat,
          exercise_order: 0,
          superset_id: null,
          notes: null,
          sets: [set(0, { set_type: 'warmup', weight_kg: 60 }), set(1, { weight_kg: 100 + d }), set(2, { completed: false })],
        },
        { exercise_id: row, exercise_order: 1, superset_id: null, notes: null, sets: [set(0)] },
      ],
    });
    const workouts = [1, 3, 5, 7, 9].map(day);
    await s.app.records.change(
      athleteId,
      workouts.map((item) => ({ op: 'create' as const, kind: 'workout' as const, item })),
      actor,
    );

    const first = agentAccessResponses.get_exercise_history.parse(await (await get(squat, '?from=2026-06-02&to=2026-06-15&limit=2')).json());
    assert.equal(first.data.exercise.name, { value: 'Squat', handling: 'untrusted_record_text' });
    assert.equal(
      first.data.items.map((i) => i.workout_id),
      [workouts[4]!.id, workouts[3]!.id],
    );
    assert.equal(
      first.data.items[0]!.sets.map((x) => [x.position, x.weight_kg]),
      [[1, 109]],
      'warm-ups and sets not completed are left out',
    );
    const second = agentAccessResponses.get_exercise_history.parse(
      await (await get(squat, `?limit=2&cursor=${encodeURIComponent(first.data.next_cursor!)}`)).json(),
    );
    assert.equal(
      second.data.items.map((i) => i.workout_id),
      [workouts[2]!.id, workouts[1]!.id],
    );
    assert.is(second.data.next_cursor, null, 'day 1 is outside the window');
    assert.equal(second.data.window, { from: '2026-06-02', to: '2026-06-15' });

    const otherExercise = await get(row, `?cursor=${encodeURIComponent(first.data.next_cursor!)}`);
    assert.is(otherExercise.status, 400, "a cursor of one exercise's history does not page another's");
    const unknown = await get(randomUUID());
    assert.is(unknown.status, 404);
    const empty = agentAccessResponses.get_exercise_history.parse(await (await get(row, '?from=2026-01-01&to=2026-01-31')).json());
    assert.equal(empty.data.items, []);
  } finally {
    await s.close();
  }
});

test.run();
