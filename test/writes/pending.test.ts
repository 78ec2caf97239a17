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
  const meal = (name: string) => ({ op: 'create', kind: 'meal', record: { eaten_at: '2026-06-01T10:00:00.000Z', name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null } });
  try {
    const ada = await registerAthlete(app, { email: 'ada@example.com' });
    const caller = await agentCaller(app, ada);
    const first = validBody([meal('First')]);
    await app.proposals.prepare(caller, first);
    for (let i = 0; i < 120; i++) {
      clock.advance(3_000);
      await app.proposals.prepare(caller, validBody([meal(`Meal ${i}`)]));
    }
    const pending = await app.proposals.pending(ada);
    assert.is(pending.length, 121);
    assert.is(pending[0]!.id, first.command_id, 'the soonest to expire first');
    const listed = await app.proposals.list(ada);
    assert.ok(listed.slice(0, 121).every((d) => d.status === 'prepared'));
    assert.ok(listed.some((d) => d.id === first.command_id));

    clock.advance(31 * 60_000);
    assert.equal(await app.proposals.pending(ada), [], 'all expired now');
  } finally {
    await t.close();
  }
});

test.run();
