// The Health app's export uploaded on the Import page: streamed to a file and imported from it in
// the import worker, the summary naming workouts, measurements and days of meals; the same file
// again adds nothing; a file of another kind, a missing file and a foreign form are refused with
// nothing saved, and no upload is left behind. In Chromium at 390 and 1280 px (the script under the real CSP: test/web/import.test.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { uploadsDirOf } from '../../services/web/health-upload.ts';
import { writeHealthZip } from '../fixtures/apple-health-export.ts';
import { tempDir } from '../support/app.ts';
import { seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient, uploadImport, signInInBrowser } from '../support/web-record.ts';

const noBrowser = whyNoBrowser();
const files = tempDir('repledger-health-web-');

const send = (c: FormClient, fields: Record<string, string>, file: { name: string; bytes: Buffer } | null) =>
  uploadImport(c, fields, file && { name: file.name, text: file.bytes, type: 'application/zip' }, '/import/apple-health');

const recordSize = async (s: TestServer, athleteId: string) => (await s.app.events.readStream(streams.record(athleteId))).length;
const uploadsLeft = (s: TestServer) => {
  try {
    return readdirSync(uploadsDirOf(s.app.config.dataDir));
  } catch {
    return [];
  }
};

test('over HTTP: imported with its summary, again adds nothing; other files, no file, a foreign form refused; no upload left', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const c = await signedInClient(s.base, 'ada@example.com');
    const page = await c.get('/import');
    assert.match(page.text, 'Export All Health Data');
    const csrf = FormClient.csrf(page.text);
    const path = join(files, 'export.zip');
    await writeHealthZip(path, { days: 14, fillerPerDay: 30, exportedAt: new Date().toISOString() });
    const { readFileSync } = await import('node:fs');
    const zip = { name: 'export.zip', bytes: readFileSync(path) };

    const done = await send(c, { _csrf: csrf }, zip);
    assert.is(done.status, 303, done.text);
    assert.match(done.location ?? '', /^\/import\?from=apple_health&in_file=14&added=14&skipped=0&exercises=2&measurements=16&meals=14&others_skipped=0$/);
    const summary = (await c.get(done.location!)).text;
    assert.match(summary, 'Imported 14 workouts, 16 body measurements and 14 days of meals from Apple Health.');
    const again = await send(c, { _csrf: csrf }, zip);
    const second = (await c.get(again.location!)).text;
    assert.match(second, 'Imported 0 workouts, 0 body measurements and 0 days of meals from Apple Health.');
    assert.match(second, '14 workouts were already in your record and skipped. 30 measurements or meals already in your record were skipped.');
    const size = await recordSize(s, athleteId);

    const notHealth = await send(c, { _csrf: csrf }, { name: 'workouts.csv', bytes: Buffer.from('title,start_time\nPush,1\n') });
    assert.is(notHealth.status, 400);
    assert.match(notHealth.text, 'Apple Health: workouts.csv line');
    assert.match(notHealth.text, 'not the Health app’s export');
    assert.match(notHealth.text, 'nothing was imported');
    const none = await send(c, { _csrf: csrf }, null);
    assert.is(none.status, 400);
    assert.match(none.text, 'choose the export.zip the Health app made');
    const foreign = await send(c, { _csrf: 'not the token' }, zip);
    assert.is(foreign.status, 403);
    assert.is(await recordSize(s, athleteId), size, 'nothing of the refused uploads was saved');
    assert.equal(uploadsLeft(s), [], 'no upload is left behind');
  } finally {
    await s.close();
  }
});

if (noBrowser) {
  test(`in Chromium: skipped — ${noBrowser}`, () => undefined);
} else {
  test('in Chromium: the export uploaded from the page (its script sends it), the summary shown, at 390 and 1280 px', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      await registerPro(s.app);
      const path = join(files, 'browser-export.zip');
      await writeHealthZip(path, { days: 7, fillerPerDay: 20, exportedAt: new Date().toISOString() });
      for (const width of [390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
        const page = await context.newPage();
        await signInInBrowser(page, s.base);
        await page.goto(`${s.base}/import`);
        assert.equal(await seriousViolations(page), []);
        await screenshot(page, `web-import-health-${width}`);
        await page.setInputFiles('#health-file', path);
        await page.click('#health-form button[type=submit]');
        await page.waitForSelector('[role=status], [role=alert]');
        const said = (await page.textContent('[role=status]')) ?? '';
        assert.match(said, width === 390 ? 'Imported 7 workouts, 8 body measurements and 7 days of meals from Apple Health.' : 'were already in your record');
        assert.equal(await seriousViolations(page), []);
        await screenshot(page, `web-import-health-done-${width}`);
        await context.close();
      }
      assert.equal(uploadsLeft(s), []);
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
