// Settings > Hevy in headless Chromium, at a phone's and a desktop's width, against the local fake
// Hevy: from Settings to the page, a wrong key refused, the key pasted and the first sync shown,
// pause and resume, then disconnect. axe finds nothing on each page.
import { test } from 'uvu';
import { signInInBrowser } from '../support/web-record.ts';
import * as assert from 'uvu/assert';
import { atBothWidths } from '../support/axe.ts';
import { launch, whyNoBrowser } from '../support/browser.ts';
import { registerPro } from '../support/connect.ts';
import { eventually } from '../support/eventually.ts';
import { BENCH_TEMPLATE, hevyWorkout, startFakeHevy } from '../support/fake-hevy.ts';
import { startServer } from '../support/server.ts';

const KEY = '6a2c8e0d-3f41-4b7a-9c55-0e8f1d2a7b90';
const noBrowser = whyNoBrowser();

if (noBrowser) {
  console.log(`skipped: browser tests — ${noBrowser}`);
  test.skip('Settings > Hevy in Chromium', () => {});
} else {
  test('Settings > Hevy in Chromium: a wrong key refused, connected, synced, paused, resumed, disconnected; axe at 390 and 1280 px', async () => {
    const hevy = await startFakeHevy();
    hevy.keys.add(KEY);
    hevy.templates.set(BENCH_TEMPLATE.id, BENCH_TEMPLATE);
    for (let i = 0; i < 3; i++) hevy.put(hevyWorkout(`w-${i}`, { title: `Session ${i}` }), `2026-05-2${i}T10:00:00Z`);
    const s = await startServer({ env: { HEVY_API_URL: hevy.url, HEVY_SYNC_EVERY_MINUTES: '0' } });
    const browser = await launch();
    try {
      const id = await registerPro(s.app);
      // bypassCSP: axe is injected as a script of the test's, which the pages' policy would refuse.
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true })).newPage();
      await signInInBrowser(page, s.base);

      await page.goto(`${s.base}/settings`);
      await page.click('text=Sync with Hevy');
      await page.waitForURL(`${s.base}/settings/hevy`);
      assert.equal(await atBothWidths(page, 'hevy-connect'), []);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.fill('#api_key', 'ffffffff-0000-4000-8000-000000000000');
      await page.click('button:has-text("Connect Hevy")');
      assert.match((await page.textContent('[role=alert]')) ?? '', 'Hevy did not accept this API key');
      assert.is(await page.inputValue('#api_key'), '', 'the refused key is put back in the form');
      assert.equal(await atBothWidths(page, 'hevy-wrong-key'), []);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.fill('#api_key', KEY);
      await page.click('button:has-text("Connect Hevy")');
      await page.waitForURL(/\/settings\/hevy\?done=connected/);
      await eventually(
        async () => {
          const status = await s.app.hevy.status(id);
          return { done: status.last_run?.state === 'ok', value: status.last_run };
        },
        { what: 'the first sync' },
      );
      await page.reload();
      assert.match((await page.textContent('main')) ?? '', '3 workouts added');
      assert.not.match(await page.content(), KEY);
      assert.equal(await atBothWidths(page, 'hevy-connected'), []);

      await page.click('button:has-text("Pause")');
      await page.waitForURL(/done=paused/);
      assert.match((await page.textContent('h2')) ?? '', '(paused)');
      await page.click('button:has-text("Resume")');
      await page.waitForURL(/done=resumed/);

      await page.click('button:has-text("Disconnect Hevy")');
      await page.waitForURL(/done=disconnected/);
      assert.match((await page.textContent('[role=status]')) ?? '', 'your API key is deleted');
      assert.equal(await atBothWidths(page, 'hevy-disconnected'), []);
      assert.is((await s.app.hevy.status(id)).connected, false);
    } finally {
      await browser.close();
      await s.close();
      await hevy.close();
    }
  });
}

test.run();
