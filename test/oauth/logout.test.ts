// The authorization server's own pages (sign-out, errors) carry the web app's security headers,
// and signing out takes a deliberate, CSRF-checked POST: a link alone (from any site) ends nothing.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OAUTH } from '../../services/oauth/adapter.ts';
import { contentSecurityPolicy } from '../../services/web/layout.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { loopbackRedirect, MemoryOAuthClient } from '../support/oauth-client.ts';
import { startServer, type TestServer } from '../support/server.ts';

const noBrowser = whyNoBrowser();

function assertPageHeaders(headers: Record<string, string> | Headers, what: string): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  assert.is(get('content-security-policy'), contentSecurityPolicy(), `${what}: CSP`);
  assert.is(get('x-frame-options'), 'DENY', `${what}: X-Frame-Options`);
  assert.is(get('referrer-policy'), 'same-origin', `${what}: Referrer-Policy`);
}

/** oidc-provider sessions stored, and those of them that belong to a signed-in athlete. */
async function sessions(s: TestServer): Promise<{ all: number; signedIn: number }> {
  const docs = (await s.app.reads.dump(OAUTH)).filter((d) => d.partition === 'Session');
  return { all: docs.length, signedIn: docs.filter((d) => (d.doc.payload as { accountId?: string }).accountId).length };
}

test('an anonymous visit to the sign-out link gets a page with the headers, and stores no session', async () => {
  const s = await startServer();
  try {
    for (let i = 0; i < 20; i++) {
      // A trailing slash, or a made-up session cookie, reaches oidc-provider's sign-out too (review finding).
      const res = await fetch(`${s.base}/oauth/logout${i % 3 === 1 ? '/' : ''}`, { redirect: 'manual', headers: i % 3 === 2 ? { cookie: `_session=made-up-${i}` } : {} });
      assert.is(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assertPageHeaders(res.headers, 'anonymous logout');
      assert.not.match(await res.text(), /<script/);
    }
    assert.equal(await sessions(s), { all: 0, signedIn: 0 });
  } finally {
    await s.close();
  }
});

test("the authorization server's error pages carry the headers too", async () => {
  const s = await startServer();
  try {
    const res = await fetch(`${s.base}/oauth/authorize?client_id=nobody&response_type=code&redirect_uri=https://x.example/cb`, { redirect: 'manual' });
    assert.is(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assertPageHeaders(res.headers, 'error page');
    assert.match(await res.text(), /Sign-in could not continue/);
  } finally {
    await s.close();
  }
});

if (noBrowser) {
  console.log(`skipped: sign-out in Chromium — ${noBrowser}`);
  test.skip('visiting the sign-out link ends nothing; only the deliberate, CSRF-checked POST does', () => {});
} else {
  test('visiting the sign-out link ends nothing; only the deliberate, CSRF-checked POST does', async () => {
    const s = await startServer();
    const redirect = await loopbackRedirect();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      const client = new MemoryOAuthClient(redirect.url);
      const serverUrl = `${s.base}/v1/agent-access`;
      assert.is(await auth(client, { serverUrl, scope: 'training' }), 'REDIRECT');
      const context = await browser.newContext();
      const page = await context.newPage();
      // Not signed in yet: the link shows a page and submits nothing by itself.
      await page.goto(`${s.base}/oauth/logout`);
      await page.waitForTimeout(1000);
      assert.match(page.url(), /\/oauth\/logout$/, 'the anonymous page did not submit itself');
      assert.equal(await sessions(s), { all: 0, signedIn: 0 });

      await page.goto(client.authorizationUrl!.href);
      await page.waitForURL(/\/sign-in/);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Allow reading');
      await page.check('input[value=training]');
      await page.click('text=Allow reading');
      await redirect.received;
      assert.is((await sessions(s)).signedIn, 1, 'signed in at the authorization server');

      // The link, as another site would use it: nothing happens until the athlete chooses.
      const visit = await page.goto(`${s.base}/oauth/logout`);
      assert.is(visit?.status(), 200);
      assertPageHeaders(visit!.headers(), 'logout page');
      await page.waitForTimeout(1000);
      assert.match(page.url(), /\/oauth\/logout$/, 'the page did not submit itself');
      assert.match((await page.textContent('main')) ?? '', /Sign out of RepLedger/);
      await screenshot(page, 'oauth-logout');
      assert.is((await sessions(s)).signedIn, 1, 'still signed in after the visit');

      // A forged confirmation (no xsrf token of this session) is refused.
      const cookies = (await context.cookies(s.base)).map((c) => `${c.name}=${c.value}`).join('; ');
      const forged = await fetch(`${s.base}/oauth/logout/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, origin: 'https://evil.example' },
        body: new URLSearchParams({ logout: 'yes', xsrf: 'guessed' }),
        redirect: 'manual',
      });
      assert.is(forged.status, 400);
      assertPageHeaders(forged.headers, 'refused confirmation');
      assert.is((await sessions(s)).signedIn, 1, 'still signed in after a forged POST');
      assert.is((await s.app.connections.list(athleteId))[0]?.status, 'connected');

      // The athlete's own click signs out.
      await page.click('button[name=logout]');
      await page.waitForURL(/\/oauth\/logout\/success/);
      assert.match((await page.textContent('main')) ?? '', /Signed out/);
      assert.is((await sessions(s)).signedIn, 0);
      // Connected apps hold their own tokens (expiresWithSession is off): signing out of the
      // authorization server does not disconnect them; /connections does that.
      assert.is((await s.app.connections.list(athleteId))[0]?.status, 'connected');
      await context.close();
    } finally {
      await browser.close();
      await redirect.close();
      await s.close();
    }
  });
}

test.run();
