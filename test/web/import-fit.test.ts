// Garmin FIT files imported from the browser's import page: a zip of a strength activity, a run
// and a weight-scale reading, saved in one append with a summary of workouts and body measurements;
// the same zip again adds nothing; a damaged .fit, a CSV sent as Garmin and a zip without FIT files
// are refused on the form, naming the file, with nothing saved. In Chromium, the page with the
// summary and with a refusal (axe, screenshots).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atBothWidths, seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient, uploadImport, signInInBrowser } from '../support/web-record.ts';
import { runFit, strengthFit, weightFit, zipOf } from '../fixtures/fit-files.ts';

const noBrowser = whyNoBrowser();
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 7));

async function recordEvents(s: TestServer, athleteId: string): Promise<string[]> {
  return (await s.app.events.readStream(`record-${athleteId}`)).map((e) => e.type);
}

async function week(): Promise<Buffer> {
  return zipOf({
    'strength.fit': strengthFit({ serialNumber: 7, start: day(2) }),
    'run.fit': runFit({ serialNumber: 7, start: day(3) }),
    'scale.fit': weightFit({ serialNumber: 99, start: day(4) }),
  });
}

test('over HTTP: a zip of FIT files, the summary, the same zip again, and refusals on the form with nothing saved', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const c = await signedInClient(s.base, 'ada@example.com');
    const page = await c.get('/import');
    assert.match(page.text, '<input type="hidden" name="app" value="garmin">', 'the Garmin form names its app');
    const csrf = FormClient.csrf(page.text);
    const zip = { name: 'garmin-week.zip', text: await week(), type: 'application/zip' };

    const done = await uploadImport(c, { _csrf: csrf, app: 'garmin' }, zip);
    assert.is(done.status, 303, done.text);
    assert.is(done.location, '/import?from=garmin&in_file=2&added=2&skipped=0&exercises=3&measurements=2&meals=0&others_skipped=0&fit_files=3&fit_ignored=0');
    const summary = (await c.get(done.location!)).text;
    assert.match(
      summary,
      'Imported 2 workouts and 2 body measurements from Garmin.</strong></p><p>The upload held 3 FIT files (2 workouts). 3 new exercises added.',
    );
    const saved = await recordEvents(s, athleteId);
    assert.equal(saved.filter((t) => t === 'workout.created').length, 2);
    const run = (await s.app.events.readStream(`record-${athleteId}`)).find(
      (e) => e.type === 'workout.created' && (e.data as { item: { title: string } }).item.title === 'Running',
    );
    const runPage = (await c.get(`/workouts/${(run!.data as { item: { id: string } }).item.id}`)).text;
    assert.match(runPage, 'imported from Garmin', "the workout's page says where it came from");
    assert.equal(saved.filter((t) => t === 'body_measurement.created').length, 2);

    const again = await uploadImport(c, { _csrf: csrf, app: 'garmin' }, zip);
    assert.match(
      (await c.get(again.location!)).text,
      '2 workouts were already in your record and skipped. 2 body measurements already in your record were skipped. No new exercises.',
    );

    const before = await recordEvents(s, athleteId);
    const damaged = Uint8Array.from(strengthFit({ serialNumber: 7, start: day(5) }));
    damaged[40]! ^= 0xff;
    const crc = await uploadImport(c, { _csrf: csrf, app: 'garmin' }, { name: 'bench.fit', text: Buffer.from(damaged), type: 'application/octet-stream' });
    assert.is(crc.status, 400);
    assert.match(crc.text, 'Garmin: bench.fit: the FIT file fails its CRC check');
    assert.match(crc.text, 'nothing was imported');
    const csv = await uploadImport(
      c,
      { _csrf: csrf, app: 'garmin' },
      { name: 'hevy.csv', text: 'title,start_time,end_time\nPush,"1 Mar 2026, 07:00","1 Mar 2026, 08:00"\n' },
    );
    assert.is(csv.status, 400);
    assert.match(csv.text, 'hevy.csv: this is not a FIT file (it looks like a CSV export');
    const empty = await uploadImport(
      c,
      { _csrf: csrf, app: 'garmin' },
      { name: 'notes.zip', text: await zipOf({ 'notes.txt': 'hi' }), type: 'application/zip' },
    );
    assert.is(empty.status, 400);
    assert.match(empty.text, 'notes.zip: the zip holds no .fit file');
    assert.equal(await recordEvents(s, athleteId), before, 'nothing refused was saved');
  } finally {
    await s.close();
  }
});

if (noBrowser) {
  console.log(`skipped: FIT import in Chromium — ${noBrowser}`);
  test.skip('FIT import in Chromium', () => {});
} else {
  test('in Chromium: a zip of FIT files chosen as Garmin, its summary; a damaged file refused in place', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      await registerPro(s.app);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
      const page = await context.newPage();
      await signInInBrowser(page, s.base);
      await page.goto(`${s.base}/import`);
      await page.setInputFiles('#garmin-file', { name: 'garmin-week.zip', mimeType: 'application/zip', buffer: await week() });
      await page.click('#garmin-form button[type=submit]');
      await page.waitForSelector('[role=status]');
      assert.match((await page.textContent('[role=status]')) ?? '', 'Imported 2 workouts and 2 body measurements from Garmin.');
      assert.equal(await seriousViolations(page), []);
      await screenshot(page, 'web-import-fit-done-390');

      const damaged = Uint8Array.from(runFit({ serialNumber: 8, start: day(6) }));
      damaged[40]! ^= 0xff;
      await page.setInputFiles('#garmin-file', { name: 'run.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(damaged) });
      await page.click('#garmin-form button[type=submit]');
      await page.waitForSelector('[role=alert]');
      assert.match((await page.textContent('[role=alert]')) ?? '', 'run.fit: the FIT file fails its CRC check');
      assert.equal(await atBothWidths(page, 'web-import-fit-refused'), []);
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
