// Deleting an account in headless Chromium, at a phone's and a desktop's width: from Settings to
// the page that offers the export first, a wrong password refused, then the account deleted.
import { test } from 'uvu';
import { signInInBrowser } from '../support/web-record.ts';
import * as assert from 'uvu/assert';
import { atBothWidths } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const noBrowser = whyNoBrowser();

if (noBrowser) {
  console.log(`skipped: browser tests — ${noBrowser}`);
  test.skip('deleting an account in Chromium', () => {});
} else {
  test('deleting an account in Chromium: the export first, a wrong password refused, then deleted; axe at 390 and 1280 px', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const id = await registerPro(s.app);
      // bypassCSP: axe is injected as a script of the test's, which the pages' policy would refuse.
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true })).newPage();
      await signInInBrowser(page, s.base);

      await page.goto(`${s.base}/settings`);
      await page.click('text=Delete my account');
      await page.waitForURL(`${s.base}/settings/delete-account`);
      assert.equal(await atBothWidths(page, 'delete-account'), []);
      // The download is offered first, and is the record's export.
      const download = page.getByRole('link', { name: 'Download my record' });
      assert.is(await download.getAttribute('href'), '/settings/export');

      await page.setViewportSize({ width: 390, height: 844 });
      // The box and the password are required: the browser itself holds the form back without them.
      await page.fill('#password', 'not my password!');
      await page.check('input[name=understood]');
      await page.click('button.danger');
      assert.match((await page.textContent('[role=alert]')) ?? '', 'that is not your password');
      assert.equal(await atBothWidths(page, 'delete-account-wrong-password'), []);
      assert.ok(await s.app.athletes.get(id), 'nothing deleted');

      await page.setViewportSize({ width: 390, height: 844 });
      await page.fill('#password', PASSWORD);
      await page.check('input[name=understood]');
      await page.click('button.danger');
      await page.waitForURL(`${s.base}/account-deleted`);
      assert.match((await page.textContent('h1')) ?? '', 'Your account is deleted');
      assert.equal(await atBothWidths(page, 'account-deleted'), []);
      assert.is(await s.app.athletes.get(id), null);
      await page.goto(`${s.base}/settings`);
      await page.waitForURL(/\/sign-in/);
      await screenshot(page, 'after-deletion-sign-in');
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
