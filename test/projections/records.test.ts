// The record-indicator projection, built one change at a time (workouts added, edited and deleted
// in any order of completion), equals labelling the final history from scratch.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordItem } from '../../contracts/record.ts';
import { RECORD_INDICATORS, setKey, type RecordEntryDoc } from '../../projections/records.ts';
import { nameUuid } from '../../services/domain/ids.ts';
import { NO_BEST, recordsOf, type Best } from '../../services/domain/records.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';

const arbSet = fc.record({
  weight: fc.option(fc.integer({ min: 20, max: 140 }), { nil: null }),
  reps: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
  warmup: fc.boolean(),
  completed: fc.boolean(),
});
const arbWorkout = fc.record({
  day: fc.integer({ min: 1, max: 60 }),
  exercises: fc.array(fc.record({ which: fc.nat(2), sets: fc.array(arbSet, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 3 }),
});
const arbStep = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('create' as const), w: arbWorkout }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), pick: fc.nat(), w: arbWorkout }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
);

type WorkoutShape = typeof arbWorkout extends fc.Arbitrary<infer T> ? T : never;

function toItem(id: string, w: WorkoutShape, exerciseIds: string[]): RecordItem<'workout'> {
  const ended = new Date(Date.UTC(2026, 0, w.day, 9)).toISOString();
  return {
    id,
    title: 'Session',
    started_at: null,
    ended_at: ended,
    notes: null,
    source: null,
    exercises: w.exercises.map((e, order) => ({
      exercise_id: exerciseIds[e.which]!,
      exercise_order: order,
      superset_id: null,
      notes: null,
      sets: e.sets.map((s, position) => workoutSet(position, { set_type: s.warmup ? 'warmup' : 'normal', weight_kg: s.weight, reps: s.reps, completed: s.completed })),
    })),
  };
}

/** Labels computed from scratch: each exercise's workouts in completion order. */
function fromScratch(workouts: RecordItem<'workout'>[], exerciseId: string): Map<string, { labels: Record<string, string[]>; sample_count: number }> {
  const ordered = workouts.filter((w) => w.exercises.some((e) => e.exercise_id === exerciseId)).sort((a, b) => (a.ended_at === b.ended_at ? (a.id < b.id ? -1 : 1) : a.ended_at < b.ended_at ? -1 : 1));
  let best: Best = NO_BEST;
  const out = new Map<string, { labels: Record<string, string[]>; sample_count: number }>();
  for (const w of ordered) {
    const sets = w.exercises.filter((e) => e.exercise_id === exerciseId).flatMap((e) => e.sets.map((s) => ({ ...s, key: setKey(e.exercise_order, s.position) })));
    const r = recordsOf(sets.map((s, i) => ({ ...s, position: i })), best);
    best = r.after;
    out.set(w.id, { labels: Object.fromEntries(Object.entries(r.labels).map(([i, l]) => [sets[Number(i)]!.key, l])), sample_count: r.sampleCount });
  }
  return out;
}

test('incrementally maintained record labels equal labelling the final history from scratch', async () => {
  // One app for every run, a new athlete each: opening a store per run cost most of the file's time.
  const t = await openTestApp();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(arbStep, { minLength: 1, maxLength: 25 }), async (steps) => {
      {
        const athleteId = await registerAthlete(t.app, { email: `run-${run++}@example.com` });
        const actor = { type: 'athlete' as const, id: athleteId };
        // Ids from a counter, so that a counterexample (whose ties are broken by id) reproduces.
        let counter = 0;
        const nextId = () => nameUuid(`records-test/${counter++}`);
        const exerciseIds = [nextId(), nextId(), nextId()];
        await t.app.records.change(athleteId, exerciseIds.map((id, i) => ({ op: 'create' as const, kind: 'exercise' as const, item: { id, name: `Lift ${i}`, muscle_group: null, tracking_type: 'weight_reps' as const } })), actor);
        const live = new Map<string, { item: RecordItem<'workout'>; revision: number }>();
        for (const step of steps) {
          t.clock.advance(1000);
          const ids = [...live.keys()];
          if (step.op === 'create' || ids.length === 0) {
            const w = 'w' in step ? step.w : { day: 1, exercises: [{ which: 0, sets: [{ weight: 50, reps: 5, warmup: false, completed: true }] }] };
            const item = toItem(nextId(), w, exerciseIds);
            await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item }], actor);
            live.set(item.id, { item, revision: 1 });
          } else if (step.op === 'update') {
            const id = ids[step.pick % ids.length]!;
            const current = live.get(id)!;
            const item = toItem(id, step.w, exerciseIds);
            await t.app.records.change(athleteId, [{ op: 'update', kind: 'workout', item, base_revision: current.revision }], actor);
            live.set(id, { item, revision: current.revision + 1 });
          } else {
            const id = ids[step.pick % ids.length]!;
            await t.app.records.change(athleteId, [{ op: 'delete', kind: 'workout', id, base_revision: live.get(id)!.revision }], actor);
            live.delete(id);
          }
        }
        const stored = (await t.app.reads.dump(RECORD_INDICATORS)).filter((r) => r.partition === athleteId).map((r) => r.doc as RecordEntryDoc);
        const workouts = [...live.values()].map((l) => l.item);
        let expectedEntries = 0;
        for (const exerciseId of exerciseIds) {
          for (const [workoutId, want] of fromScratch(workouts, exerciseId)) {
            expectedEntries++;
            const got = stored.find((d) => d.workout_id === workoutId && d.exercise_id === exerciseId);
            assert.ok(got, `missing entry for ${workoutId}`);
            assert.equal(got!.labels, want.labels);
            assert.is(got!.sample_count, want.sample_count);
          }
        }
        assert.is(stored.length, expectedEntries, 'no entries for deleted workouts or dropped exercises');
        // An entry keeps the sets done (its exercise's history), in workout order, and no others.
        for (const d of stored) {
          const w = live.get(d.workout_id)!.item;
          const done = [...w.exercises].sort((a, b) => a.exercise_order - b.exercise_order).filter((e) => e.exercise_id === d.exercise_id).flatMap((e) => e.sets.filter((s) => s.completed && s.set_type !== 'warmup').map((s) => ({ ...s, exercise_order: e.exercise_order })));
          assert.equal(d.sets, done);
        }
      }
    }),
    { numRuns: 100 },
  );
  await t.close();
});

test.run();
