// The quota algorithm: what it admits over any stretch of time, and what its Retry-After promises.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admit, type QuotaPolicy } from '../../services/domain/quota.ts';

const policy: QuotaPolicy = { units: 60, windowMs: 60_000 };

test('a fresh connection may spend its whole budget at once, and no more', () => {
  let tat: number | undefined;
  let spent = 0;
  for (;;) {
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

const calls = fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 5_000 }), weight: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 300 });

test('property: over any stretch of time, admitted weight is at most the budget plus what refilled', () => {
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
        }
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
  );
});

test('property: a refused call is admitted once its Retry-After has passed, and not a millisecond before', () => {
  fc.assert(
    fc.property(calls, fc.integer({ min: 1, max: 5 }), (sequence, weight) => {
      let tat: number | undefined;
      let now = 0;
      for (const call of sequence) {
        now += call.gapMs;
        const d = admit(policy, tat, now, call.weight);
        if (d.admitted) tat = d.tat;
      }
      const d = admit(policy, tat, now, weight);
      if (d.admitted) return;
      assert.ok(d.retryAfterMs > 0);
      assert.ok(admit(policy, tat, now + d.retryAfterMs, weight).admitted);
      if (d.retryAfterMs >= 1) assert.not.ok(admit(policy, tat, now + d.retryAfterMs - 1, weight).admitted);
    }),
  );
});

test.run();
