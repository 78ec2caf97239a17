// The quota algorithm: what it admits over any stretch of time, and what its Retry-After promises.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admit, type QuotaPolicy } from '../../services/domain/quota.ts';

const policy: QuotaPolicy = { units: 60, windowMs: 60_000 };

test('a fresh connection may spend its whole budget at once, and no more', () => {
  let tat: number | undefined;
  let spent = 0;
  // Bounded: an `admit` that always admits must fail here, not loop for ever.
  for (let call = 0; call < 100; call++) {
    const d = admit(policy, tat, 0, 4);
    if (!d.admitted) {
      // 60 units at 1 s each: after 15 calls of 4 the budget is gone until 4 units have refilled.
      assert.is(d.retryAfterMs, 4000);
      break;
    }
    tat = d.tat;
    spent += 4;
  }
  assert.is(spent, 60);
});

test('property: any budget admits a whole burst of single units, whatever windowMs / units rounds to', () => {
  fc.assert(
    fc.property(fc.integer({ min: 10, max: 5000 }), (units) => {
      const p = { units, windowMs: 60_000 };
      let tat: number | undefined;
      for (let i = 0; i < units; i++) {
        const d = admit(p, tat, 0, 1);
        assert.ok(d.admitted, `unit ${i + 1} of ${units}`);
        if (d.admitted) tat = d.tat;
      }
      assert.not.ok(admit(p, tat, 0, 1).admitted);
    }),
    { numRuns: 300 },
  );
});

test('a cheaper call still fits when a costlier one does not', () => {
  const afterBurst = admit(policy, undefined, 0, 58);
  assert.ok(afterBurst.admitted);
  if (!afterBurst.admitted) return;
  assert.not.ok(admit(policy, afterBurst.tat, 0, 4).admitted);
  assert.ok(admit(policy, afterBurst.tat, 0, 2).admitted);
});

/**
 * Call sequences that reach and pass the 60-unit budget: bursts (many calls close together) and
 * steady rates (one call every `gapMs`, some faster than the budget refills, some slower). Sizes
 * are set here, not left to fast-check's defaults, which stay below the budget.
 */
const call = (maxGapMs: number) => fc.record({ gapMs: fc.integer({ min: 0, max: maxGapMs }), weight: fc.integer({ min: 1, max: 5 }) });
const burst = fc.array(call(200), { minLength: 20, maxLength: 200 });
const steady = fc
  .record({ gapMs: fc.integer({ min: 50, max: 3_000 }), weight: fc.integer({ min: 1, max: 5 }), count: fc.integer({ min: 30, max: 200 }) })
  .map(({ gapMs, weight, count }) => Array.from({ length: count }, () => ({ gapMs, weight })));
const mixed = fc
  .array(fc.oneof(burst, steady, fc.array(call(30_000), { minLength: 1, maxLength: 20 })), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.flat());
const calls = fc.oneof(burst, steady, mixed);

/**
 * An independent statement of the budget: a bucket of `units` that refills at units/window per
 * millisecond and is full to begin with. A call is admitted when its weight is in the bucket;
 * otherwise it waits exactly until the missing units have refilled.
 */
function bucketModel(p: QuotaPolicy) {
  const ratePerMs = p.units / p.windowMs;
  let level = p.units;
  let last = 0;
  return (now: number, weight: number): { admitted: boolean; retryAfterMs: number } => {
    level = Math.min(p.units, level + (now - last) * ratePerMs);
    last = now;
    if (level + 1e-9 >= weight) {
      level -= weight;
      return { admitted: true, retryAfterMs: 0 };
    }
    return { admitted: false, retryAfterMs: (weight - level) / ratePerMs };
  };
}

let refusalsSeen = 0;
let runs = 0;

test('property: every call is admitted or refused exactly as the bucket model says, with its exact Retry-After', () => {
  fc.assert(
    fc.property(calls, (sequence) => {
      runs++;
      const model = bucketModel(policy);
      let tat: number | undefined;
      let now = 0;
      for (const [i, { gapMs, weight }] of sequence.entries()) {
        now += gapMs;
        const d = admit(policy, tat, now, weight);
        const expected = model(now, weight);
        assert.is(d.admitted, expected.admitted, `call ${i} (weight ${weight} at ${now} ms)`);
        if (d.admitted) tat = d.tat;
        else {
          refusalsSeen++;
          assert.ok(Math.abs(d.retryAfterMs - expected.retryAfterMs) < 1e-6, `call ${i}: Retry-After ${d.retryAfterMs} ms, expected ${expected.retryAfterMs}`);
        }
      }
    }),
    { numRuns: 300 },
  );
  // The generators must reach the budget, or the refusals above were never checked.
  assert.ok(refusalsSeen > runs, `${refusalsSeen} refusals in ${runs} runs`);
});

test('property: over any stretch of time, admitted weight is at most the budget plus what refilled', () => {
  let refused = 0;
  fc.assert(
    fc.property(calls, (sequence) => {
      let tat: number | undefined;
      let now = 0;
      const admitted: Array<{ at: number; weight: number }> = [];
      for (const { gapMs, weight } of sequence) {
        now += gapMs;
        const d = admit(policy, tat, now, weight);
        if (d.admitted) {
          tat = d.tat;
          admitted.push({ at: now, weight });
        } else refused++;
      }
      for (let i = 0; i < admitted.length; i++) {
        let sum = 0;
        for (let j = i; j < admitted.length; j++) {
          sum += admitted[j]!.weight;
          const elapsed = admitted[j]!.at - admitted[i]!.at;
          assert.ok(sum <= policy.units + (elapsed * policy.units) / policy.windowMs + 1e-9, `${sum} units in ${elapsed} ms`);
        }
      }
    }),
    { numRuns: 200 },
  );
  assert.ok(refused > 200, `the sequences reached the budget (${refused} refusals)`);
});

test('property: a refused call is admitted once its Retry-After has passed, and not a millisecond before', () => {
  // A burst of more than the budget first, so the call at the end is refused in every run.
  const overBudget = fc.tuple(fc.array(fc.constant({ gapMs: 0, weight: 5 }), { minLength: 13, maxLength: 20 }), calls).map(([a, b]) => [...a, ...b]);
  let checked = 0;
  fc.assert(
    fc.property(overBudget, fc.integer({ min: 1, max: 5 }), (sequence, weight) => {
      let tat: number | undefined;
      let now = 0;
      for (const c of sequence) {
        now += c.gapMs;
        const d = admit(policy, tat, now, c.weight);
        if (d.admitted) tat = d.tat;
      }
      // Right after the last call: refused whenever the bucket holds less than `weight`.
      const d = admit(policy, tat, now, weight);
      if (d.admitted) return;
      checked++;
      assert.ok(d.retryAfterMs > 0);
      assert.ok(admit(policy, tat, now + d.retryAfterMs, weight).admitted);
      if (d.retryAfterMs >= 1) assert.not.ok(admit(policy, tat, now + d.retryAfterMs - 1, weight).admitted);
    }),
    { numRuns: 300 },
  );
  assert.ok(checked > 100, `the refusal branch was checked in ${checked} of 300 runs`);
});

test.run();
