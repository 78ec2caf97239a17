// Sign-up and sign-in in headless Chromium, as an athlete would, with screenshots.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { startServer } from '../support/server.ts';

const noBrowser = whyNoBrowser();

if (noBrowser) {
  console.log(`skipped: browser tests — ${noBrowser}`);
  test.skip('sign-up, sign-out and sign-in in Chromium', () => {});
} else {
  test('sign-up, sign-out and sign-in in Chromium', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(`${s.base}/sign-up`);
      await screenshot(page, 'sign-up');
      await page.fill('#display_name', 'Ada');
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', 'correct horse battery');
      await page.selectOption('#timezone', 'Europe/London');
      await page.click('button[type=submit]');
      await page.waitForURL(`${s.base}/account`);
      assert.match(await page.textContent('h1') ?? '', 'Hello, Ada');
      await screenshot(page, 'account');

      await page.click('text=Sign out');
      await page.waitForURL(`${s.base}/sign-in`);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', 'wrong password!');
      await page.click('button[type=submit]');
      assert.match(await page.textContent('[role=alert]') ?? '', 'do not match');
      await screenshot(page, 'sign-in-error');
      await page.fill('#password', 'correct horse battery');
      await page.click('button[type=submit]');
      await page.waitForURL(`${s.base}/account`);
      assert.match(await page.textContent('main') ?? '', 'ada@example.com');
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
