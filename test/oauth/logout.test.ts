// The authorization server's own pages (sign-out, errors) carry the web app's security headers,
// and signing out takes a deliberate, CSRF-checked POST: a link alone (from any site) ends nothing.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OAUTH } from '../../services/identity/oauth-store.ts';
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

/**
 * A page that cannot submit or leave by itself: once it has loaded (every inline script and load
 * handler has then run, and `goto` waits for that), it has sent nothing but GETs, it is still
 * where it was, and it holds nothing that could act later: no script, no inline event handler, no
 * meta refresh. Checked on the page as loaded, not by waiting a while to see whether it moves.
 */
async function assertInert(page: Page, posts: string[], what: string): Promise<void> {
  assert.match(page.url(), /\/oauth\/logout$/, `${what} did not navigate away`);
  assert.equal(posts, [], `${what} submitted nothing`);
  const actors = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ tagName: string; getAttributeNames(): string[] }> } })
      .document;
    return {
      scripts: doc.querySelectorAll('script').length,
      handlers: Array.from(doc.querySelectorAll('*')).flatMap((el) =>
        el
          .getAttributeNames()
          .filter((name) => /^on/i.test(name))
          .map((name) => `${el.tagName.toLowerCase()} ${name}`),
      ),
      refresh: doc.querySelectorAll('meta[http-equiv="refresh" i]').length,
    };
  });
  assert.equal(actors, { scripts: 0, handlers: [], refresh: 0 }, `${what} holds nothing that could submit it later`);
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
      const res = await fetch(`${s.base}/oauth/logout${i % 3 === 1 ? '/' : ''}`, {
        redirect: 'manual',
        headers: i % 3 === 2 ? { cookie: `_session=made-up-${i}` } : {},
      });
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
      const posts: string[] = [];
      page.on('request', (request) => {
        if (request.method() !== 'GET') posts.push(`${request.method()} ${request.url()}`);
      });
      // Not signed in yet: the link shows a page and submits nothing by itself.
      posts.length = 0;
      await page.goto(`${s.base}/oauth/logout`);
      await assertInert(page, posts, 'the anonymous sign-out page');
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
      posts.length = 0;
      const visit = await page.goto(`${s.base}/oauth/logout`);
      assert.is(visit?.status(), 200);
      assertPageHeaders(visit!.headers(), 'logout page');
      await assertInert(page, posts, 'the sign-out page');
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
