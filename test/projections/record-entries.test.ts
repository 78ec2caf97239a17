// The record-indicator projection, built one change at a time (workouts added, edited and deleted
// in any order of completion), labels each workout's sets as the rules of spec 4.4 label the final
// history, stated again without the production code in test/support/personal-records-reference.ts:
// a label is a value that beats every eligible set done earlier (equal is no record), one winner
// per label in a workout, warm-ups, sets not completed and drop sets without an eligible parent
// left out.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordItem } from '../../contracts/record.ts';
import { RECORD_INDICATORS, type RecordEntryDoc } from '../../projections/record-entries.ts';
import { nameUuid } from '../../services/domain/ids.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { expectedRecords } from '../support/personal-records-reference.ts';
import { workoutSet } from '../support/sets.ts';

// Few values, zero among them (no value: a label counts only what is positive): ties between
// workouts and within one are common.
const arbSet = fc.record({
  weight: fc.option(fc.constantFrom(0, 20, 30, 40, 50), { nil: null, freq: 6 }),
  reps: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null, freq: 6 }),
  kind: fc.constantFrom('normal', 'normal', 'normal', 'warmup', 'failure', 'drop_set', 'drop_set'),
  completed: fc.constantFrom(true, true, true, false),
  // Which earlier set (in the list) a drop set drops from, or (one in four) none.
  parent: fc.nat(),
  // Orders the positions: a list's order is not always its positions'.
  rank: fc.nat(9),
});
const arbWorkout = fc.record({
  day: fc.integer({ min: 1, max: 12 }),
  exercises: fc.array(fc.record({ which: fc.nat(2), sets: fc.array(arbSet, { minLength: 1, maxLength: 5 }) }), { minLength: 1, maxLength: 3 }),
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
    exercises: w.exercises.map((e, order) => {
      // Positions 0..n-1 dealt by rank; a drop set drops from a set before it in the list, so
      // parents never loop, or names none (the first set of a list always).
      const byRank = e.sets.map((s, i) => ({ s, i })).sort((a, b) => a.s.rank - b.s.rank || a.i - b.i);
      const position = new Map(byRank.map(({ i }, p) => [i, p]));
      return {
        exercise_id: exerciseIds[e.which]!,
        exercise_order: order,
        superset_id: null,
        notes: null,
        sets: e.sets.map((s, i) => {
          const parent = s.kind === 'drop_set' && i > 0 && s.parent % 4 !== 0 ? position.get(s.parent % i)! : null;
          return workoutSet(position.get(i)!, {
            set_type: s.kind as 'normal',
            parent_position: parent,
            weight_kg: s.weight,
            reps: s.reps,
            completed: s.completed,
          });
        }),
      };
    }),
  };
}

test('incrementally maintained record labels equal the rules applied to the final history', async () => {
  // One app for every run, a new athlete each: opening a store per run cost most of the file's time.
  const t = await openTestApp();
  const reached = { labels: 0, equalled: 0, shared: 0, eligibleDrops: 0, orphanDrops: 0, unordered: 0 };
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(arbStep, { minLength: 1, maxLength: 25 }), async (steps) => {
        const athleteId = await registerAthlete(t.app, { email: `run-${run++}@example.com` });
        const actor = { type: 'athlete' as const, id: athleteId };
        // Ids from a counter, so that a counterexample (whose ties are broken by id) reproduces.
        let counter = 0;
        const nextId = () => nameUuid(`records-test/${counter++}`);
        const exerciseIds = [nextId(), nextId(), nextId()];
        await t.app.records.change(
          athleteId,
          exerciseIds.map((id, i) => ({
            op: 'create' as const,
            kind: 'exercise' as const,
            item: { id, name: `Lift ${i}`, muscle_group: null, tracking_type: 'weight_reps' as const },
          })),
          actor,
        );
        const live = new Map<string, { item: RecordItem<'workout'>; revision: number }>();
        for (const step of steps) {
          t.clock.advance(1000);
          const ids = [...live.keys()];
          if (step.op === 'create' || ids.length === 0) {
            const w: WorkoutShape =
              'w' in step
                ? step.w
                : { day: 1, exercises: [{ which: 0, sets: [{ weight: 50, reps: 5, kind: 'normal', completed: true, parent: 0, rank: 0 }] }] };
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
        const expected = expectedRecords(workouts, 'UTC');
        let expectedEntries = 0;
        for (const [exerciseId, { workouts: entries }] of expected) {
          for (const [workoutId, want] of entries) {
            expectedEntries++;
            const got = stored.find((d) => d.workout_id === workoutId && d.exercise_id === exerciseId);
            assert.ok(got, `missing entry for ${workoutId}`);
            assert.equal(
              got!.labels,
              want.labels,
              `workout ${workoutId}, exercise ${exerciseId}: labels ${JSON.stringify(got!.labels)}, by the rules ${JSON.stringify(want.labels)}`,
            );
            assert.is(
              got!.sample_count,
              want.sampleCount,
              `workout ${workoutId}, exercise ${exerciseId}: ${got!.sample_count} eligible sets before it, by the rules ${want.sampleCount}`,
            );
            reached.labels += Object.keys(want.labels).length;
            reached.equalled += want.equalled.length;
            reached.shared += want.shared.length;
          }
        }
        assert.is(stored.length, expectedEntries, 'no entries for deleted workouts or dropped exercises');
        // An entry keeps the sets done (its exercise's history), in workout order (exercise order,
        // then position), and no others.
        for (const d of stored) {
          const w = live.get(d.workout_id)!.item;
          const done = [...w.exercises]
            .sort((a, b) => a.exercise_order - b.exercise_order)
            .filter((e) => e.exercise_id === d.exercise_id)
            .flatMap((e) =>
              [...e.sets]
                .sort((a, b) => a.position - b.position)
                .filter((s) => s.completed && s.set_type !== 'warmup')
                .map((s) => ({ ...s, exercise_order: e.exercise_order })),
            );
          assert.equal(d.sets, done);
        }
        for (const e of workouts.flatMap((w) => w.exercises)) {
          const at = new Map(e.sets.map((s) => [s.position, s]));
          const done = (p: number | null) => p !== null && at.get(p)!.completed && at.get(p)!.set_type !== 'warmup';
          for (const s of e.sets) {
            if (s.set_type !== 'drop_set' || !s.completed) continue;
            if (done(s.parent_position)) reached.eligibleDrops++;
            else reached.orphanDrops++;
          }
          if (e.sets.some((s, i) => i > 0 && s.position < e.sets[i - 1]!.position)) reached.unordered++;
        }
      }),
      // A failure's shrinking replays whole histories: it stops after 200 s (the runner stops a file at 300 s) with the smallest case found so far.
      { numRuns: 200, includeErrorInReport: true, skipAllAfterTimeLimit: 200_000 },
    );
    // The cases the rules are about were each reached many times, whatever the seed. At 100 runs
    // the rarest (equalled) was reached 87-134 times over seven seeds, and once 47 (a CI run):
    // 200 runs keep it well above 50.
    for (const [what, count] of Object.entries(reached)) assert.ok(count >= 50, `${what} reached ${count} times`);
  } finally {
    await t.close();
  }
});

test.run();
