// What awaits the athlete's review is every proposal still awaiting it, however many an agent has
// prepared since: the list read the newest 100 and kept the pending ones among them, so the 101st
// newest, still awaiting review, was shown nowhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { agentCaller, validBody } from '../support/writes.ts';

test('every pending proposal is listed first, the oldest too; expired ones are not pending', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  const { app, clock } = t;
  const meal = (name: string) => ({
    op: 'create',
    kind: 'meal',
    record: { eaten_at: '2026-06-01T10:00:00.000Z', name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
  });
  try {
    const ada = await registerAthlete(app, { email: 'ada@example.com' });
    // One connection may have 10 awaiting review at once (WRITE_POLICY): 13 connections prepare them.
    const callers = await Promise.all(Array.from({ length: 13 }, () => agentCaller(app, ada)));
    const first = validBody([meal('First')]);
    await app.proposals.prepare(callers[0]!, first);
    for (let i = 0; i < 120; i++) {
      clock.advance(3_000);
      await app.proposals.prepare(callers[Math.floor((i + 1) / 10)]!, validBody([meal(`Meal ${i}`)]));
    }
    const pending = await app.proposals.pending(ada, await app.proposals.waiting(ada));
    assert.is(pending.length, 121);
    assert.is(pending[0]!.id, first.command_id, 'the soonest to expire first');
    assert.equal((await app.proposals.history(ada, 10)).docs, [], 'none decided yet');

    clock.advance(31 * 60_000);
    assert.equal(await app.proposals.waiting(ada), [], 'all expired now');
    // The history, newest first, 50 a page: every proposal once, in order, whatever the page size.
    const seen: string[] = [];
    let before: [string, string] | undefined;
    for (let page = 0; page < 10; page++) {
      const { docs, next } = await app.proposals.history(ada, 50, before);
      seen.push(...docs.map((d) => d.id));
      if (!next) break;
      before = next;
    }
    assert.is(seen.length, 121);
    assert.is(new Set(seen).size, 121);
    assert.is(seen.at(-1), first.command_id, 'the oldest last');
  } finally {
    await t.close();
  }
});

test.run();
