// The newest receipts are the newest commits, not the newest preparations: a proposal prepared
// first may be approved last, up to the expiry later. `receipts list --limit N` must still find it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listReceipts } from '../../services/audit/audit.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { agentCaller, validBody } from '../support/writes.ts';

test('receipts by commit time: one prepared first and approved last is the newest', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  const { app, clock } = t;
  const at = (minute: number) => clock.set(new Date(Date.parse('2026-06-01T12:00:00.000Z') + minute * 60_000).toISOString());
  const meal = (name: string) => ({
    op: 'create',
    kind: 'meal',
    record: { eaten_at: '2026-06-01T10:00:00.000Z', name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
  });
  try {
    const ada = await registerAthlete(app, { email: 'ada@example.com' });
    const caller = await agentCaller(app, ada);
    const [early, middle, late] = [validBody([meal('Soup')]), validBody([meal('Rice')]), validBody([meal('Toast')])];
    await app.proposals.prepare(caller, early);
    at(10);
    await app.proposals.prepare(caller, middle);
    at(11);
    await app.proposals.approve(ada, middle.command_id);
    at(12);
    await app.proposals.prepare(caller, late);
    at(13);
    await app.proposals.approve(ada, late.command_id);
    at(29);
    await app.proposals.approve(ada, early.command_id);

    const ids = async (limit: number, athleteId?: string) => (await listReceipts(app, athleteId ? { athleteId } : {}, limit)).map((r) => r.command_id);
    assert.equal(await ids(1, ada), [early.command_id], 'committed at 12:29, though prepared first');
    assert.equal(await ids(2), [early.command_id, late.command_id]);
    assert.equal(await ids(10, ada), [early.command_id, late.command_id, middle.command_id]);
  } finally {
    await t.close();
  }
});

test.run();
