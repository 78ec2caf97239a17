// `repledger proposals purge` as an operator runs it: the recovery data of proposals past the
// retention period goes, minimal receipts stay, and a second run finds nothing more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { cli, cliJson } from '../support/cli.ts';
import { agentCaller, seedRecord, validBody } from '../support/writes.ts';

test('proposals purge removes what retention removes and keeps the minimal receipt', async () => {
  // Two proposals, prepared long ago and today, by the clock of the app that made them.
  const t = await openTestApp({ now: '2026-01-05T10:00:00.000Z' });
  const dataDir = t.dataDir;
  const athleteId = await registerAthlete(t.app);
  const seeded = await seedRecord(t.app, athleteId);
  const caller = await agentCaller(t.app, athleteId, { scopes: ['nutrition'] });
  const old = validBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
  await t.app.proposals.prepare(caller, old);
  await t.app.proposals.approve(athleteId, old.command_id);
  t.clock.set(new Date().toISOString());
  const recent = validBody([
    {
      op: 'create',
      kind: 'meal',
      record: { eaten_at: new Date(Date.now() - 60_000).toISOString(), name: 'Toast', calories_kcal: 200, protein_g: null, carbohydrate_g: null, fat_g: null },
    },
  ]);
  await t.app.proposals.prepare(caller, recent);
  await t.app.close();

  const env = { DATA_DIR: dataDir };
  const first = await cliJson<{ keys_destroyed: number; cutoff: string }>(['proposals', 'purge'], env);
  assert.is(first.keys_destroyed, 1);
  const again = await cli(['proposals', 'purge'], env);
  assert.is(again.code, 0);
  assert.match(again.stdout, 'Removed the recovery data of 0 proposals');

  const reopened = await openTestApp({ dataDir, now: new Date().toISOString() });
  try {
    const purged = (await reopened.app.proposals.get(caller, old.command_id))!;
    assert.is(purged.actions, null);
    assert.is(purged.changes[0]!.summary, null);
    assert.equal(
      purged.receipt!.changes.map((c) => [c.op, c.kind, c.revision_before, c.revision_after]),
      [['delete', 'meal', 1, 2]],
    );
    assert.ok((await reopened.app.proposals.get(caller, recent.command_id))!.actions, 'a recent proposal keeps its details');
  } finally {
    await reopened.close();
  }
});

test.run();
