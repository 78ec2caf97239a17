// get_completed_workout over HTTP against the strict contract.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';

const set = (position: number, weight: number, reps: number, o: Partial<WorkoutSet> = {}): WorkoutSet =>
  workoutSet(position, { weight_kg: weight, reps, rpe: 8, target_rpe: 8.5, ...o });

test('a workout in full: exercises in order, sets with their record labels, feedback', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-15T10:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const get = (id: string, token = tokens.access_token) =>
      fetch(`${s.base}/v1/agent-access/training/workouts/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const actor = { type: 'athlete' as const, id: athleteId };
    const squat = randomUUID();
    await s.app.records.change(
      athleteId,
      [{ op: 'create', kind: 'exercise', item: { id: squat, name: 'Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } }],
      actor,
    );
    const workout = (day: number, sets: WorkoutSet[]): RecordItem<'workout'> => ({
      id: randomUUID(),
      title: `Legs ${day}`,
      started_at: `2026-06-${day}T08:00:00.000Z`,
      ended_at: `2026-06-${day}T09:00:00.000Z`,
      notes: null,
      source: null,
      exercises: [{ exercise_id: squat, exercise_order: 0, superset_id: null, notes: null, sets }],
    });
    const first = workout(10, [set(0, 60, 10, { set_type: 'warmup' }), set(1, 100, 5), set(2, 100, 5)]);
    const second = workout(12, [
      set(0, 60, 10, { set_type: 'warmup' }),
      set(1, 105, 3),
      set(2, 90, 8),
      set(3, 70, 12, { set_type: 'drop_set', parent_position: 2 }),
    ]);
    await s.app.records.change(
      athleteId,
      [first, second].map((item) => ({ op: 'create' as const, kind: 'workout' as const, item })),
      actor,
    );
    await s.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'feedback',
          item: { id: second.id, difficulty: 'harder_than_expected', next_time_intent: 'review', recorded_at: '2026-06-12T09:05:00.000Z' },
        },
      ],
      actor,
    );

    const res = await get(second.id);
    assert.is(res.status, 200);
    const { data } = agentAccessResponses.get_completed_workout.parse(await res.json());
    const w = data.workout;
    assert.is(w.achieved_set_count, 4);
    assert.equal(w.feedback, {
      difficulty: 'harder_than_expected',
      next_time_intent: 'review',
      recorded_at: '2026-06-12T09:05:00.000Z',
      provenance: 'self_reported',
    });
    assert.is(w.duration.seconds, 3600);
    const sets = w.exercises[0]!.sets;
    assert.equal(
      sets.map((x) => x.historical_record_at_completion.indicators),
      [
        [], // warm-up
        ['weight'], // 105 beats 100
        [], // 90 x 8: volume 720 > 500 but the drop set beats it
        ['reps', 'set_volume'], // 70 x 12 = 840, 12 reps; e1RM 98 < 116.7
      ],
    );
    assert.is(sets[1]!.historical_record_at_completion.metadata.sample_count, 2, 'two eligible earlier sets');
    assert.equal([sets[3]!.set_type, sets[3]!.parent_position], ['drop_set', 2]);
    assert.is(sets[1]!.target_rpe_provenance, 'prescribed');
    assert.is(w.exercises[0]!.name.value, 'Squat');

    const firstDetail = agentAccessResponses.get_completed_workout.parse(await (await get(first.id)).json());
    assert.equal(
      firstDetail.data.workout.exercises[0]!.sets.map((x) => x.historical_record_at_completion.indicators),
      [[], ['weight', 'reps', 'set_volume', 'estimated_1rm'], []],
    );
    assert.is(firstDetail.data.workout.feedback, null);
    // A uuid is the same id in either case (as a command_id is).
    const upper = agentAccessResponses.get_completed_workout.parse(await (await get(first.id.toUpperCase())).json());
    assert.is(upper.data.workout.id, first.id);

    await registerPro(s.app, 'bob@example.com');
    const bob = await connect(s.base, `${s.base}/v1/agent-access`, ['training'], 'training', 'bob@example.com');
    assert.is((await get(second.id, bob.tokens.access_token)).status, 404);
    assert.is((await get(randomUUID())).status, 404);
    assert.is((await get('12345')).status, 400);
  } finally {
    await s.close();
  }
});

test('every workout of a large imported record reads against the strict contract', async () => {
  const s = await startServer({ clock: fixedClock('2024-01-01T12:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const csv = generateHevyExport({ workouts: 120, seed: 5, startDate: '2023-01-02' });
    const workouts = parseHevy(csv, { timezone: 'Europe/London' });
    await s.app.records.import(athleteId, { app: 'hevy', file_name: 'h.csv', file_sha256: sha256Hex(csv), workouts }, { type: 'import', id: 'test' });
    const ids = (await s.app.reads.dump('workouts')).map((r) => r.doc.id);
    assert.is(ids.length, 120);
    let labelled = 0;
    for (const id of ids) {
      const res = await fetch(`${s.base}/v1/agent-access/training/workouts/${id}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      const { data } = agentAccessResponses.get_completed_workout.parse(await res.json());
      labelled += data.workout.exercises.flatMap((e) => e.sets).filter((x) => x.historical_record_at_completion.indicators.length > 0).length;
    }
    assert.ok(labelled > 20, `a year of training sets some records (${labelled})`);
  } finally {
    await s.close();
  }
});

test.run();
