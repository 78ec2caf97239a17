// Sign-up and sign-in in headless Chromium, as an athlete would, with screenshots.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atBothWidths, seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { beginAuthorization, PASSWORD, registerPro } from '../support/connect.ts';
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
      assert.match((await page.textContent('h1')) ?? '', 'Hello, Ada');
      await screenshot(page, 'account');

      await page.click('text=Sign out');
      await page.waitForURL(`${s.base}/sign-in`);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', 'wrong password!');
      await page.click('button[type=submit]');
      assert.match((await page.textContent('[role=alert]')) ?? '', 'do not match');
      await screenshot(page, 'sign-in-error');
      await page.fill('#password', 'correct horse battery');
      await page.click('button[type=submit]');
      await page.waitForURL(`${s.base}/account`);
      assert.match((await page.textContent('main')) ?? '', 'ada@example.com');
    } finally {
      await browser.close();
      await s.close();
    }
  });

  test('sign-up preselects the browser zone; sign-in never leaves the site; pages pass axe', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      await registerPro(s.app);
      // India: Chromium may report the zone by its older name, Asia/Calcutta.
      const india = await browser.newContext({ timezoneId: 'Asia/Kolkata', viewport: { width: 390, height: 844 }, bypassCSP: true });
      const page = await india.newPage();
      await page.goto(`${s.base}/sign-up`);
      assert.is(await page.inputValue('#timezone'), 'Asia/Kolkata');
      assert.equal(await seriousViolations(page), [], 'sign-up');

      // The tab is dropped by the browser: "/\t/evil.example/x" would have meant //evil.example/x.
      await page.goto(`${s.base}/sign-in?return_to=%2F%09%2Fevil.example%2Fx`);
      assert.equal(await seriousViolations(page), [], 'sign-in');
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL(`${s.base}/account`);
      assert.is(new URL(page.url()).origin, s.base);

      await page.goto(`${s.base}/no-such-page`);
      assert.match((await page.textContent('h1')) ?? '', 'Page not found');
      assert.equal(await seriousViolations(page), [], 'not found');
      await screenshot(page, 'not-found');
      await page.goto(`${s.base}/bot-tokens`);
      assert.equal(await seriousViolations(page), [], 'bot tokens');
      await india.close();

      // Without script the form still works, with UTC chosen.
      const noScript = await browser.newContext({ javaScriptEnabled: false, timezoneId: 'Asia/Kolkata' });
      const plain = await noScript.newPage();
      await plain.goto(`${s.base}/sign-up`);
      assert.is(await plain.inputValue('#timezone'), 'UTC');
      await noScript.close();

      // What an athlete sees on connecting an AI client, at both widths: a Free athlete what Pro
      // gives (and a way back), a Pro athlete the areas to tick.
      await registerPro(s.app, 'bea@example.com', 'free');
      for (const [email, scope, shown, name] of [
        ['bea@example.com', 'training', 'text=What Pro gives you', 'consent-needs-pro'],
        ['ada@example.com', 'training recovery', 'form[action$="/consent"]', 'consent'],
      ] as const) {
        const client = await beginAuthorization(`${s.base}/mcp`, scope);
        const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
        const consent = await phone.newPage();
        await consent.goto(client.authorizationUrl!.href);
        await consent.fill('#email', email);
        await consent.fill('#password', PASSWORD);
        await consent.click('button[type=submit]');
        await consent.waitForSelector(shown);
        assert.equal(await atBothWidths(consent, name), [], name);
        await phone.close();
      }
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
