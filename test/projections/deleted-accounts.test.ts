// A deleted account stays deleted in every read model, whatever the log still holds or whatever
// runs beside the deletion: KurrentDB keeps a soft-deleted stream's events in $all until a
// scavenge, so a replay before one reads them (here: a log with A's events and, after them, the
// deletion's `account.deleted`); a replay under way when the deletion commits has already
// rebuilt A's documents into its fresh collections. Both end with no document of A and B's
// documents as they were.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { App } from '../../services/app.ts';
import { dumpReadModels, openTestApp } from '../support/app.ts';
import { registerPro } from '../support/connect.ts';
import { seedRecord } from '../support/writes.ts';

/** Every read-model document naming `athleteId`, by collection. */
async function documentsOf(app: App, athleteId: string): Promise<string[]> {
  const models = await dumpReadModels(app);
  return Object.entries(models).flatMap(([name, docs]) => (docs as unknown[]).filter((d) => JSON.stringify(d).includes(athleteId)).map(() => name));
}

/** B's documents: every read model without A's and without the checkpoints' positions. */
async function modelsOf(app: App, athleteId: string): Promise<Record<string, unknown>> {
  const { projection_checkpoints: _, ...models } = await dumpReadModels(app);
  return Object.fromEntries(Object.entries(models).map(([name, docs]) => [name, (docs as unknown[]).filter((d) => JSON.stringify(d).includes(athleteId))]));
}

/** A and B, each with a record; B's documents as they are. */
async function twoAthletes(app: App): Promise<{ a: string; b: string; bBefore: Record<string, unknown> }> {
  const a = await registerPro(app, 'a@example.com');
  const b = await registerPro(app, 'b@example.com');
  await seedRecord(app, a);
  await seedRecord(app, b);
  return { a, b, bBefore: await modelsOf(app, b) };
}

test('a log still holding a deleted account’s events: applying and replaying it forget them at the deletion', async () => {
  const t = await openTestApp();
  try {
    const { a, b, bBefore } = await twoAthletes(t.app);
    assert.ok((await documentsOf(t.app, a)).length > 5, 'A has documents to forget');

    // The log as KurrentDB reads it after a soft delete, before a scavenge: A's events, then the deletion.
    await t.app.events.append(streams.accountDeletions(), [{ type: 'account.deleted', data: { athlete_id: a }, metadata: {} }], 'any');
    assert.equal(await documentsOf(t.app, a), [], 'applied as it is appended');

    await t.app.runner.replay();
    assert.equal(await documentsOf(t.app, a), [], 'replayed');
    assert.equal(await modelsOf(t.app, b), bBefore, 'B as before');
  } finally {
    await t.close();
  }
});

test('a deletion committed while a replay runs: the swapped-in read models hold nothing of the account', async () => {
  const t = await openTestApp();
  try {
    const { a, b, bBefore } = await twoAthletes(t.app);

    let deleted: Promise<unknown> | null = null;
    // The first batch is rebuilt (A's documents with it) before the deletion commits.
    await t.app.runner.replay(undefined, () => {
      deleted ??= t.app.accounts.delete(a, { type: 'operator', id: 'test' });
    });
    assert.ok(deleted, 'the deletion ran during the replay');
    await deleted;
    assert.equal(await documentsOf(t.app, a), []);
    assert.equal(await modelsOf(t.app, b), bBefore, 'B as before');
  } finally {
    await t.close();
  }
});

test.run();
