// The record indicator rules of spec 4.4, case by case and as properties.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorkoutSet } from '../../contracts/record.ts';
import { INDICATORS, NO_BEST, recordsOf, indicatorValue, type Best } from '../../services/domain/record-indicators.ts';
import { workoutSet } from '../support/sets.ts';

const set = (position: number, weight: number | null, reps: number | null, o: Partial<WorkoutSet> = {}): WorkoutSet =>
  workoutSet(position, { weight_kg: weight, reps, ...o });

const history = (workouts: WorkoutSet[][]) => {
  let best: Best = NO_BEST;
  return workouts.map((sets) => {
    const r = recordsOf(sets, best);
    best = r.after;
    return r;
  });
};

test('the first eligible sets are records of everything they have a value for', () => {
  const [first] = history([[set(0, 100, 5), set(1, 80, 10)]]);
  assert.equal(first!.labels, { 0: ['weight', 'estimated_1rm'], 1: ['reps', 'set_volume'] });
  assert.is(first!.sampleCount, 0);
});

test('equal values make no new record; beating by a little does', () => {
  const [, second, third] = history([[set(0, 100, 5)], [set(0, 100, 5)], [set(0, 100.5, 5)]]);
  assert.equal(second!.labels, {});
  assert.equal(third!.labels, { 0: ['weight', 'set_volume', 'estimated_1rm'] });
  assert.is(third!.sampleCount, 2);
});

test('warm-ups and sets not completed are never records and never raise the bar', () => {
  const [first, second] = history([[set(0, 200, 20, { set_type: 'warmup' }), set(1, 300, 1, { completed: false }), set(2, 50, 5)], [set(0, 60, 5)]]);
  assert.equal(first!.labels, { 2: ['weight', 'reps', 'set_volume', 'estimated_1rm'] });
  assert.equal(second!.labels, { 0: ['weight', 'set_volume', 'estimated_1rm'] });
  assert.is(second!.sampleCount, 1, 'only the eligible set counts in the baseline');
});

test('drop sets count only with an eligible completed parent', () => {
  const orphan = set(1, 200, 10, { set_type: 'drop_set', parent_position: 0 });
  const [withWarmupParent] = history([[set(0, 50, 5, { set_type: 'warmup' }), orphan]]);
  assert.equal(withWarmupParent!.labels, {}, 'the parent is a warm-up');
  const [withIncompleteParent] = history([[set(0, 50, 5, { completed: false }), orphan]]);
  assert.equal(withIncompleteParent!.labels, {}, 'the parent was not completed');
  const [withParent] = history([[set(0, 50, 5), orphan]]);
  assert.equal(withParent!.labels, { 1: ['weight', 'reps', 'set_volume', 'estimated_1rm'] });
  const [selfParent] = history([[set(0, 200, 10, { set_type: 'drop_set', parent_position: 0 })]]);
  assert.equal(selfParent!.labels, {});
});

test('within one workout one set wins each label; a tie goes to the first in workout order', () => {
  // 100 x 5: volume 500, e1RM 116.7; 90 x 8: volume 720, e1RM 114.
  const [first] = history([[set(0, 100, 5), set(1, 100, 5), set(2, 90, 8)]]);
  assert.equal(first!.labels, { 0: ['weight', 'estimated_1rm'], 2: ['reps', 'set_volume'] });
});

test('Epley: weight x (1 + reps / 30)', () => {
  assert.is(indicatorValue('estimated_1rm', { weight_kg: 100, reps: 30 }), 200);
  assert.is(indicatorValue('estimated_1rm', { weight_kg: 100, reps: null }), null);
  assert.is(indicatorValue('set_volume', { weight_kg: 0, reps: 10 }), null);
});

const arbSet = (position: number) =>
  fc
    .record({
      weight: fc.option(fc.integer({ min: 0, max: 300 }), { nil: null }),
      reps: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
      type: fc.constantFrom('normal', 'normal', 'warmup', 'failure', 'drop_set' as const),
      completed: fc.boolean(),
    })
    .map((x) =>
      set(position, x.weight, x.reps, {
        set_type: x.type,
        completed: x.completed,
        parent_position: x.type === 'drop_set' && position > 0 ? position - 1 : null,
      }),
    );
const arbWorkout = fc.integer({ min: 0, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbSet(i))));

test('property: a labelled set beats every eligible earlier set, and a new best is always labelled', () => {
  fc.assert(
    fc.property(fc.array(arbWorkout, { maxLength: 12 }), (workouts) => {
      const results = history(workouts as WorkoutSet[][]);
      const earlier: WorkoutSet[] = [];
      results.forEach((r, w) => {
        const sets = workouts[w] as WorkoutSet[];
        for (const indicator of INDICATORS) {
          const priorBest = Math.max(-Infinity, ...earlier.map((s) => indicatorValue(indicator, s) ?? -Infinity));
          const labelled = Object.entries(r.labels).filter(([, l]) => l.includes(indicator));
          assert.ok(labelled.length <= 1, 'one winner per label per workout');
          for (const [position] of labelled) {
            const v = indicatorValue(indicator, sets.find((s) => s.position === Number(position))!)!;
            assert.ok(v > priorBest, `${indicator} ${v} does not beat ${priorBest}`);
          }
          const bestHere = Math.max(-Infinity, ...sets.filter((s) => isEligible(s, sets)).map((s) => indicatorValue(indicator, s) ?? -Infinity));
          if (bestHere > priorBest) assert.is(labelled.length, 1, `${indicator}: a new best ${bestHere} over ${priorBest} must be labelled`);
        }
        earlier.push(...sets.filter((s) => isEligible(s, sets)));
        assert.is(r.sampleCount + sets.filter((s) => isEligible(s, sets)).length, r.after.count);
      });
    }),
    { numRuns: 300 },
  );
});

/** An independent statement of eligibility, for the property above. */
function isEligible(s: WorkoutSet, sets: WorkoutSet[]): boolean {
  if (!s.completed || s.set_type === 'warmup') return false;
  if (s.set_type !== 'drop_set') return true;
  const parent = sets.find((p) => p.position === s.parent_position && p !== s);
  return (
    parent !== undefined &&
    isEligible(
      parent,
      sets.filter((x) => x !== s),
    )
  );
}

test.run();
