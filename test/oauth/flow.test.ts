// The whole sign-in as a real MCP client runs it, with no shortcut: the MCP SDK's auth()
// (discovery, dynamic registration, PKCE, resource indicator), sign-in and consent in Chromium,
// the code caught on a loopback redirect, then get_access_context with the token.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import * as oidc from 'openid-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getAccessContextResponse } from '../../contracts/agent-access.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { loopbackRedirect, MemoryOAuthClient } from '../support/oauth-client.ts';
import { startServer } from '../support/server.ts';

const noBrowser = whyNoBrowser();
const PASSWORD = 'correct horse battery';

if (noBrowser) {
  console.log(`skipped: OAuth browser flow — ${noBrowser}`);
  test.skip('an MCP client signs in, reads only the ticked areas, and is disconnected by the athlete', () => {});
} else {
  test('an MCP client signs in, reads only the ticked areas, and is disconnected by the athlete', async () => {
    const s = await startServer();
    const redirect = await loopbackRedirect();
    const browser = await launch();
    try {
      await s.app.athletes.register(
        {
          email: 'ada@example.com',
          password: PASSWORD,
          tier: 'pro',
          profile: { display_name: 'Ada', timezone: 'Europe/Berlin', unit_preference: 'kg', height_unit_preference: 'cm', bodyweight_unit_preference: 'kg' },
        },
        { type: 'operator', id: 'test' },
      );
      const discovered = await oidc.discovery(new URL(s.base), 'probe', undefined, oidc.None(), { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] });
      assert.is(discovered.serverMetadata().issuer, s.base);
      assert.equal(discovered.serverMetadata().code_challenge_methods_supported, ['S256']);
      assert.not.ok((discovered.serverMetadata().scopes_supported ?? []).includes('offline_access'));

      const client = new MemoryOAuthClient(redirect.url);
      const serverUrl = `${s.base}/v1/agent-access`;
      assert.is(await auth(client, { serverUrl, scope: 'training recovery nutrition' }), 'REDIRECT');
      const authorize = client.authorizationUrl!;
      assert.is(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.is(authorize.searchParams.get('resource'), serverUrl);

      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(authorize.href);
      await page.waitForURL(/\/sign-in/);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Allow Coach Bot to read your record?');
      assert.match((await page.textContent('main')) ?? '', /127\.0\.0\.1:\d+/);
      const offered = await Promise.all((await page.locator('input[name=area]').all()).map((box) => box.getAttribute('value')));
      assert.equal(offered, ['training', 'recovery', 'nutrition']);
      // Nothing is ticked for the athlete (spec 1.4): they tick each area the app may read.
      assert.is(await page.locator('input[name=area]:checked').count(), 0, 'no area ticked by default');
      await page.check('input[value=training]');
      await page.check('input[value=recovery]');
      await screenshot(page, 'consent');
      await page.click('text=Allow reading');
      const query = await redirect.received;
      assert.is(query.get('error'), null, query.get('error_description') ?? '');

      assert.is(await auth(client, { serverUrl, authorizationCode: query.get('code')! }), 'AUTHORIZED');
      assert.ok(client.saved?.access_token);
      assert.ok(client.saved?.refresh_token, 'a refresh token without offline_access');

      const res = await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${client.saved!.access_token}` } });
      assert.is(res.status, 200);
      assert.is(res.headers.get('cache-control'), 'private, no-store');
      const body = getAccessContextResponse.parse(await res.json());
      assert.equal(body.data.scopes, ['training', 'recovery']);
      assert.is(body.timezone, 'Europe/Berlin');
      assert.is(body.request_id, res.headers.get('x-request-id'));

      const [connection] = await s.app.connections.list((await s.app.athletes.byEmail('ada@example.com'))!.athlete_id);
      assert.is(connection?.client_name, 'Coach Bot');
      assert.is(connection?.id, body.data.grant_id);

      // The athlete reviews the connection and disconnects it; the next read is refused.
      await page.goto(`${s.base}/connections`);
      const card = (await page.textContent('.connection')) ?? '';
      assert.match(card, 'Coach Bot');
      assert.match(card, /May read\s*Training, Recovery/);
      assert.not.match(card, 'Nutrition');
      assert.match(card, 'Last request');
      await screenshot(page, 'connections');
      // Disconnecting asks first, on a page of its own.
      await page.click('text=Disconnect Coach Bot');
      await page.waitForURL(/\/connections\/[0-9a-f-]+\/disconnect$/);
      await page.click('text=Yes, disconnect Coach Bot');
      await page.waitForSelector('[role=status]');
      assert.match((await page.textContent('main')) ?? '', 'No AI clients are connected');
      await screenshot(page, 'connections-after-disconnect');
      const after = await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${client.saved!.access_token}` } });
      assert.is(after.status, 401);
    } finally {
      await browser.close();
      await redirect.close();
      await s.close();
    }
  });
}

test.run();
