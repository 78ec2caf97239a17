// `import repledger` sets the account's profile before its items land, so that the projections
// date them in the timezone they had. A record that fills between the import's check and its
// append (another import, an approval) refuses the items: the profile then goes back to what it
// was, so that a refused file changes nothing, as the command promises.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../services/domain/errors.ts';
import { exportRecord } from '../../services/export/record-export.ts';
import { importRecordExport } from '../../services/import/repledger.ts';
import { openTestApp, registerAthlete, type TestApp } from '../support/app.ts';

const meal = (id: string) => ({ id, eaten_at: '2026-05-30T12:00:00.000Z', name: 'Lunch', calories_kcal: 700, protein_g: 40, carbohydrate_g: null, fat_g: 20 });

/** The export of athlete a (in Asia/Tokyo, one meal), as the file `repledger export` writes. */
async function exportOfA(t: TestApp, prefix = ''): Promise<Buffer> {
  const a = await registerAthlete(t.app, { email: 'a@example.com', timezone: 'Asia/Tokyo' });
  await t.app.records.change(a, [{ op: 'create', kind: 'meal', item: meal('7d1b3c6e-0000-4000-8000-000000000001') }], { type: 'athlete', id: a });
  const chunks: string[] = [prefix];
  for await (const chunk of (await exportRecord(t.app, a)).chunks()) chunks.push(chunk);
  return Buffer.from(chunks.join(''));
}

test('a record that fills before the items land: refused, and the profile is as it was', async () => {
  const t = await openTestApp();
  try {
    const bytes = await exportOfA(t);

    const b = await registerAthlete(t.app, { email: 'b@example.com', timezone: 'Europe/London' });
    const before = (await t.app.athletes.get(b))!;
    // Another writer lands right after the profile is set, before the import's append.
    const setProfile = t.app.athletes.updateProfile.bind(t.app.athletes);
    let raced = false;
    t.app.athletes.updateProfile = async (...args) => {
      const changed = await setProfile(...args);
      if (!raced) {
        raced = true;
        await t.app.records.change(b, [{ op: 'create', kind: 'meal', item: meal('7d1b3c6e-0000-4000-8000-000000000002') }], { type: 'athlete', id: b });
      }
      return changed;
    };

    const refusal = await importRecordExport(t.app, before, { fileName: 'a.json', bytes }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(raced, 'the import set the profile');
    assert.instance(refusal, DomainError);
    assert.is((refusal as DomainError).code, 'already_exists');
    assert.match((refusal as DomainError).message, /not empty.*nothing was imported/);
    const after = (await t.app.athletes.get(b))!;
    assert.equal(after.profile, before.profile, 'timezone, units and name as before the import');
    const items = (await t.app.records.load(b)).state.items;
    assert.equal([...items.keys()], ['meal/7d1b3c6e-0000-4000-8000-000000000002'], "only the other writer's meal");
  } finally {
    await t.close();
  }
});

test("the same export imported twice at once: one lands, the other is refused, and the profile is the export's", async () => {
  const t = await openTestApp();
  try {
    const bytes = await exportOfA(t);

    const b = await registerAthlete(t.app, { email: 'b@example.com', timezone: 'Europe/London' });
    const before = (await t.app.athletes.get(b))!;
    const results = await Promise.allSettled([
      importRecordExport(t.app, before, { fileName: 'a.json', bytes }),
      importRecordExport(t.app, before, { fileName: 'a.json', bytes }),
    ]);
    assert.equal(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected')!.reason as DomainError;
    assert.is(refused.code, 'already_exists');
    assert.is((await t.app.athletes.get(b))!.profile.timezone, 'Asia/Tokyo', "the export's, with its items");
    assert.equal([...(await t.app.records.load(b)).state.items.keys()], ['meal/7d1b3c6e-0000-4000-8000-000000000001']);
  } finally {
    await t.close();
  }
});

test('a byte order mark before the document (some editors write one) is not part of it', async () => {
  const t = await openTestApp();
  try {
    const bytes = await exportOfA(t, '\uFEFF');
    const b = await registerAthlete(t.app, { email: 'b@example.com' });
    const result = await importRecordExport(t.app, (await t.app.athletes.get(b))!, { fileName: 'a.json', bytes });
    assert.is(result.items_added, 1);
  } finally {
    await t.close();
  }
});

test.run();
