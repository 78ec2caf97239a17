// The per-connection quota (services/api/quota.ts) on an injected clock: what it charges each key,
// and its sweep, which every so many charges forgets the keys whose budget is whole again. A key
// whose budget is not whole when the sweep runs must keep what it spent: a connection over its
// budget stays refused, one half spent keeps only its half, one a unit short keeps its 59.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Quota } from '../../services/api/quota.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import type { QuotaPolicy } from '../../services/domain/quota.ts';

const policy: QuotaPolicy = { units: 60, windowMs: 60_000 };
/** More charges than four sweeps apart (the quota sweeps every 1,024): whatever the trigger, sweeps ran. */
const PAST_SWEEPS = 4 * 1024 + 10;

test('a connection over its budget stays refused across sweeps; one half spent keeps its half, one a unit short its 59', () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const quota = new Quota(policy, clock);
  let charges = 0;
  const charge = (key: string, weight: number) => {
    charges++;
    return quota.charge(key, weight);
  };

  for (let i = 0; i < 60; i++) assert.is(charge('spent', 1), 0, `unit ${i + 1} of the budget`);
  for (let i = 0; i < 30; i++) assert.is(charge('half', 1), 0);
  assert.is(charge('one', 1), 0);
  assert.is(charge('spent', 1), 1, 'the budget is gone: wait the one second a unit takes to refill');

  // The clock stands still: nothing refills. Other connections' calls bring the sweeps round, and
  // the spent connection calls again after each one of them, so every sweep falls just before one
  // of its calls or on it.
  let other = 0;
  while (charges < PAST_SWEEPS) {
    assert.is(charge(`other-${other++}`, 1), 0);
    const wait = charge('spent', 1);
    assert.is(wait, 1, `charge ${charges}: a connection over its budget was admitted (Retry-After ${wait}) — a sweep forgot what it spent`);
  }

  assert.equal(quota.left('spent'), { units: 0, fullInSeconds: 60 });
  assert.equal(quota.left('half'), { units: 30, fullInSeconds: 30 }, 'half the budget spent before the sweeps, half left after them');
  assert.is(quota.charge('half', 31), 1, 'one unit more than is left is refused');
  assert.is(quota.charge('half', 30), 0, 'what is left is admitted');
  assert.equal(quota.left('one'), { units: 59, fullInSeconds: 1 }, 'one unit spent before the sweeps, 59 left after them');
  assert.is(quota.charge('one', 60), 1, 'the whole budget is refused: one unit of it was spent');

  // Once a minute has passed every budget is whole again, swept or not.
  clock.advance(60_000);
  assert.equal(quota.left('spent'), { units: 60, fullInSeconds: 0 });
  assert.is(quota.charge('spent', 60), 0);
});

/**
 * An independent statement of one key's budget, never forgotten: a bucket of `units` that refills
 * continuously and is full to begin with (as in test/domain/quota.test.ts), kept in whole
 * milliseconds of refill so that it is exact: at one unit a second, a unit is 1,000 of them.
 */
const MS_PER_UNIT = policy.windowMs / policy.units;
function bucketModel(start: number) {
  let credit = policy.windowMs;
  let last = start;
  const refill = (now: number) => Math.min(policy.windowMs, credit + (now - last));
  return {
    charge(now: number, weight: number): number {
      credit = refill(now);
      last = now;
      if (credit >= weight * MS_PER_UNIT) {
        credit -= weight * MS_PER_UNIT;
        return 0;
      }
      return Math.max(1, Math.ceil((weight * MS_PER_UNIT - credit) / 1000));
    },
    whole: (now: number) => refill(now) === policy.windowMs,
  };
}

test('property: across many sweeps, every key is charged as a bucket that is never forgotten', () => {
  const start = Date.parse('2026-06-01T12:00:00.000Z');
  // The clock moves 0-400 ms between calls. Three busy keys call faster than their budget
  // refills (spent or refused at most sweeps); seven quiet ones call every 15 s or so (whole again
  // at most sweeps, so the sweep has keys to forget).
  const key = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 2 }), weight: 10 }, { arbitrary: fc.integer({ min: 3, max: 9 }), weight: 1 });
  const step = fc.record({ key, gapMs: fc.integer({ min: 0, max: 400 }), weight: fc.integer({ min: 1, max: 5 }) });
  let notWholeAtSweep = 0;
  let wholeAtSweep = 0;
  let refusedAfterSweep = 0;
  fc.assert(
    fc.property(fc.array(step, { minLength: PAST_SWEEPS, maxLength: PAST_SWEEPS + 500 }), (steps) => {
      const clock = fixedClock(new Date(start).toISOString());
      const quota = new Quota(policy, clock);
      const models = new Map<number, ReturnType<typeof bucketModel>>();
      let now = start;
      let sinceSweep = Infinity;
      for (const [i, { key, gapMs, weight }] of steps.entries()) {
        now += gapMs;
        clock.set(new Date(now).toISOString());
        if ((i + 1) % 1024 === 0) {
          // The quota sweeps on this charge: count what the keys' budgets were when it did.
          for (const m of models.values()) m.whole(now) ? wholeAtSweep++ : notWholeAtSweep++;
          sinceSweep = 0;
        }
        const model = models.get(key) ?? bucketModel(now);
        models.set(key, model);
        const expected = model.charge(now, weight);
        const got = quota.charge(`connection-${key}`, weight);
        assert.is(got, expected, `charge ${i + 1} (key ${key}, weight ${weight}, ${sinceSweep} charges after a sweep)`);
        if (expected > 0 && sinceSweep < 64) refusedAfterSweep++;
        sinceSweep++;
      }
    }),
    // No shrinking (thousands of steps take minutes), and not the counterexample (pages of it):
    // the seed replays the run, the error names the charge that differed.
    {
      numRuns: 20,
      endOnFailure: true,
      reporter: (run) => {
        if (run.failed) throw new Error(`seed ${run.seed}: ${run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance)}`);
      },
    },
  );
  // The sequences must bring sweeps round while budgets are spent, or nothing above tested them.
  assert.ok(notWholeAtSweep > 20, `${notWholeAtSweep} keys not whole at a sweep`);
  assert.ok(wholeAtSweep > 20, `${wholeAtSweep} keys whole at a sweep`);
  assert.ok(refusedAfterSweep > 20, `${refusedAfterSweep} refusals soon after a sweep`);
});

test.run();
