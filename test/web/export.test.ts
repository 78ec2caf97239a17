// "Download my record" over HTTP: the signed-in athlete's own record as a dated JSON attachment
// that is never cached, the same document `repledger export` writes; a signed-out visitor is sent
// to sign in, and no one else's record can be fetched.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXPORT_FORMAT, recordExport } from '../../contracts/export.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { exportRecord } from '../../services/export/record-export.ts';
import { EXPORT_PATH } from '../../services/web/export.ts';
import { registerPro } from '../support/connect.ts';
import { FormClient, startServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';

test('the download: the athlete’s own record, attached, dated, not cached; signed out, sign in first', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-10T10:00:00.000Z') });
  try {
    const ada = await registerPro(s.app, 'ada@example.com');
    const bea = await registerPro(s.app, 'bea@example.com');
    const meal = (id: string, name: string) => ({
      id,
      eaten_at: '2026-06-09T12:00:00.000Z',
      name,
      calories_kcal: 600,
      protein_g: 30,
      carbohydrate_g: null,
      fat_g: null,
    });
    const [adaMeal, beaMeal] = [randomUUID(), randomUUID()];
    await s.app.records.change(ada, [{ op: 'create', kind: 'meal', item: meal(adaMeal, 'Ada’s lunch') }], { type: 'athlete', id: ada });
    await s.app.records.change(ada, [{ op: 'update', kind: 'meal', item: meal(adaMeal, 'Ada’s late lunch'), base_revision: 1 }], { type: 'athlete', id: ada });
    await s.app.records.change(bea, [{ op: 'create', kind: 'meal', item: meal(beaMeal, 'Bea’s lunch') }], { type: 'athlete', id: bea });

    const browser = await signedInClient(s.base, 'ada@example.com');
    assert.match((await browser.get('/settings')).text, `href="${EXPORT_PATH}"`, 'Settings links to the download');
    const res = await browser.get(EXPORT_PATH);
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.is(res.headers.get('content-disposition'), 'attachment; filename="repledger-record-2026-06-10.json"');
    assert.is(res.headers.get('cache-control'), 'no-store');
    const doc = recordExport.parse(JSON.parse(res.text));
    assert.is(doc.format, EXPORT_FORMAT);
    assert.is(doc.athlete_id, ada);
    assert.equal(
      doc.record.meals.map((m) => [m.item.id, m.item.name, m.revision]),
      [[adaMeal, 'Ada’s late lunch', 2]],
      'her meal at its revision, and no one else’s',
    );
    // The same document the CLI writes: one function makes both.
    let cli = '';
    for await (const chunk of (await exportRecord(s.app, ada)).chunks()) cli += chunk;
    assert.is(res.text, cli);

    // Bea signed in gets Bea's record, whatever she adds to the address.
    const other = await signedInClient(s.base, 'bea@example.com');
    for (const path of [EXPORT_PATH, `${EXPORT_PATH}?athlete=${ada}`, `${EXPORT_PATH}?athlete_id=${ada}`]) {
      const theirs = recordExport.parse(JSON.parse((await other.get(path)).text));
      assert.equal([theirs.athlete_id, theirs.record.meals.map((m) => m.item.id)], [bea, [beaMeal]], path);
    }

    const visitor = new FormClient(s.base);
    const signedOut = await visitor.get(EXPORT_PATH);
    assert.is(signedOut.status, 302);
    assert.is(signedOut.headers.get('location'), `/sign-in?return_to=${encodeURIComponent(EXPORT_PATH)}`);
    assert.not.match(signedOut.text, adaMeal);
  } finally {
    await s.close();
  }
});

test.run();
