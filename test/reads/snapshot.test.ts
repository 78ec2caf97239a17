// get_training_snapshot: against the strict contract over HTTP, and its counts against a brute
// force over the workouts, after edits, deletes and timezone changes.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { localDateOf } from '../../services/domain/time.ts';
import { ownerOf } from '../../services/reads/owner.ts';
import { getTrainingSnapshot } from '../../services/reads/snapshot.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { referenceStats } from '../support/stats-reference.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const ZONES = ['Europe/London', 'America/Los_Angeles', 'Asia/Tokyo', 'Australia/Adelaide'];

test('an empty record: zero counts, no streak, empty lists', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-15T10:00:00.000Z') });
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const res = await fetch(`${s.base}/v1/agent-access/training/snapshot`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(res.status, 200);
    const { data } = agentAccessResponses.get_training_snapshot.parse(await res.json());
    assert.equal(
      [
        data.summary.workouts_this_week.value,
        data.summary.workouts_last_30_days.value,
        data.summary.consecutive_active_weeks.value,
        data.summary.streak_is_current.value,
      ],
      [0, 0, 0, false],
    );
    assert.equal(data.summary.workouts_this_week.metadata.window, { from: '2026-06-15', to: '2026-06-15' }, '15 June 2026 is a Monday');
    assert.equal([data.exercise_frequency, data.goals, data.recent_feedback], [[], [], []]);
  } finally {
    await s.close();
  }
});

test('a small record: frequency, active goals and recent feedback', async () => {
  const clock = fixedClock('2026-06-10T10:00:00.000Z');
  const s = await startServer({ clock });
  try {
    const athleteId = await registerPro(s.app);
    const actor = { type: 'athlete' as const, id: athleteId };
    const [squat, bench] = [randomUUID(), randomUUID()];
    await s.app.records.change(
      athleteId,
      [
        { op: 'create', kind: 'exercise', item: { id: squat, name: 'Squat', muscle_group: null, tracking_type: 'weight_reps' } },
        { op: 'create', kind: 'exercise', item: { id: bench, name: 'Bench', muscle_group: null, tracking_type: 'weight_reps' } },
        {
          op: 'create',
          kind: 'goal',
          item: { id: randomUUID(), goal_type: 'target_1rm', status: 'active', exercise_id: squat, target_value: 300, target_unit: 'lbs', achieved_at: null },
        },
        {
          op: 'create',
          kind: 'goal',
          item: {
            id: randomUUID(),
            goal_type: 'weekly_session_count',
            status: 'archived',
            exercise_id: null,
            target_value: 3,
            target_unit: 'sessions',
            achieved_at: null,
          },
        },
      ],
      actor,
    );
    const sets = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        position: i,
        set_number: i + 1,
        set_type: 'normal' as const,
        parent_position: null,
        weight_kg: 100,
        reps: 5,
        rpe: null,
        target_rpe: null,
        duration_seconds: null,
        distance_metres: null,
        incline_percent: null,
        completed: true,
      }));
    const workout = (day: string, exercises: Array<[string, number]>): RecordItem<'workout'> => ({
      id: randomUUID(),
      title: 'Session',
      started_at: `${day}T08:00:00.000Z`,
      ended_at: `${day}T09:00:00.000Z`,
      notes: null,
      source: null,
      exercises: exercises.map(([id, n], i) => ({ exercise_id: id, exercise_order: i, superset_id: null, notes: null, sets: sets(n) })),
    });
    const ws = [
      workout('2026-06-01', [
        [squat, 3],
        [bench, 2],
      ]),
      workout('2026-06-03', [[squat, 4]]),
      workout('2026-06-08', [[bench, 5]]),
      workout('2026-06-10', [[squat, 2]]),
    ];
    await s.app.records.change(
      athleteId,
      ws.map((item) => ({ op: 'create' as const, kind: 'workout' as const, item })),
      actor,
    );
    await s.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'feedback',
          item: { id: ws[3]!.id, difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: '2026-06-10T09:10:00.000Z' },
        },
      ],
      actor,
    );

    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const res = await fetch(`${s.base}/v1/agent-access/training/snapshot`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const { data } = agentAccessResponses.get_training_snapshot.parse(await res.json());
    assert.is(data.summary.workouts_this_week.value, 2, 'Monday 8 and Wednesday 10 June');
    assert.is(data.summary.workouts_last_30_days.value, 4);
    assert.is(data.summary.consecutive_active_weeks.value, 2);
    assert.is(data.summary.streak_is_current.value, true);
    assert.equal(
      data.exercise_frequency.map((f) => [f.name.value, f.completed_sessions, f.achieved_sets]),
      [
        ['Squat', 3, 9],
        ['Bench', 2, 7],
      ],
    );
    assert.equal(
      data.goals.map((g) => [g.goal_type, g.target_unit, g.canonical_target_unit, Math.round(g.canonical_target_value * 100) / 100]),
      [['target_1rm', 'lbs', 'kg', 136.08]],
    );
    assert.equal(
      data.recent_feedback.map((f) => f.workout_id),
      [ws[3]!.id],
    );
  } finally {
    await s.close();
  }
});

interface Live {
  started: string | null;
  created: string;
  revision: number;
}

test('property: counts and streak match a brute force after edits, deletes and timezone changes', async () => {
  const instant = fc.integer({ min: Date.UTC(2026, 3, 1), max: Date.UTC(2026, 5, 20) });
  const step = fc.oneof(
    { weight: 5, arbitrary: fc.record({ op: fc.constant('create' as const), started: fc.option(instant, { nil: null }), at: instant }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), pick: fc.nat(), started: fc.option(instant, { nil: null }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('timezone' as const), zone: fc.constantFrom(...ZONES) }) },
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), instant, async (steps, nowMs) => {
      const t = await openTestApp();
      try {
        const athleteId = await registerAthlete(t.app, { timezone: 'Europe/London' });
        const actor = { type: 'athlete' as const, id: athleteId };
        const live = new Map<string, Live>();
        const item = (id: string, started: string | null): RecordItem<'workout'> => ({
          id,
          title: 'S',
          started_at: started,
          ended_at: started ?? '2026-06-30T00:00:00.000Z',
          notes: null,
          source: null,
          exercises: [],
        });
        for (const st of steps) {
          const ids = [...live.keys()];
          if (st.op === 'timezone') {
            const a = (await t.app.athletes.get(athleteId))!;
            await t.app.athletes.updateProfile(a.email, { ...a.profile, timezone: st.zone }, actor);
          } else if (st.op === 'create' || ids.length === 0) {
            const at = new Date('at' in st ? st.at : nowMs).toISOString();
            t.clock.set(at);
            const started = 'started' in st && st.started !== null ? new Date(Math.min(st.started, Date.parse(at))).toISOString() : null;
            const id = randomUUID();
            await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: item(id, started) }], actor);
            live.set(id, { started, created: at, revision: 1 });
          } else if (st.op === 'update') {
            const id = ids[st.pick % ids.length]!;
            const w = live.get(id)!;
            const started = st.started === null ? null : new Date(st.started).toISOString();
            await t.app.records.change(athleteId, [{ op: 'update', kind: 'workout', item: item(id, started), base_revision: w.revision }], actor);
            live.set(id, { ...w, started, revision: w.revision + 1 });
          } else {
            const id = ids[st.pick % ids.length]!;
            await t.app.records.change(athleteId, [{ op: 'delete', kind: 'workout', id, base_revision: live.get(id)!.revision }], actor);
            live.delete(id);
          }
        }
        const athlete = (await t.app.athletes.get(athleteId))!;
        const now = new Date(nowMs);
        const today = localDateOf(now.getTime(), athlete.profile.timezone);
        const dates = [...live.values()].map((w) => localDateOf(w.started ?? w.created, athlete.profile.timezone));
        const expected = referenceStats(dates, today);
        const snapshot = await getTrainingSnapshot(t.app.reads, ownerOf(athlete), now);
        assert.equal(
          [
            snapshot.summary.workouts_this_week.value,
            snapshot.summary.workouts_last_30_days.value,
            snapshot.summary.consecutive_active_weeks.value,
            snapshot.summary.streak_is_current.value,
          ],
          [expected.thisWeek, expected.last30Days, expected.weeks, expected.current],
        );
      } finally {
        await t.close();
      }
    }),
    { numRuns: 25 },
  );
});

test.run();
