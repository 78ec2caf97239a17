// The consent form answered more than once (a double click, the back button and send again)
// before the app has its code: one connection, and a later "Deny" takes back the "Allow".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beginAuthorization, follow, PASSWORD, REDIRECT, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

/** Signs Ada in up to the consent page; returns the browser, the page and the form's addresses. */
async function atConsent(s: TestServer) {
  const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training recovery');
  const browser = new FormClient(s.base);
  let page = await follow(browser, client.authorizationUrl!.href);
  const returnTo = new URL(page.location).searchParams.get('return_to')!;
  const signedIn = await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(page.text) });
  page = await follow(browser, new URL(signedIn.headers.get('location')!, s.base).href);
  const allow = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(page.text)![1]!;
  return { browser, csrf: FormClient.csrf(page.text), allow, deny: allow.replace(/\/consent$/, '/deny') };
}

/** Where the app is sent back to, after the answer's redirects. */
async function answer(s: TestServer, browser: FormClient, action: string, form: Record<string, string | string[]>): Promise<URL> {
  const res = await browser.post(action, form);
  assert.is(res.status, 303, `${action}: ${res.status}`);
  const done = await follow(browser, new URL(res.headers.get('location')!, s.base).href);
  assert.ok(done.location.startsWith(REDIRECT), done.location);
  return new URL(done.location);
}

test('allowing twice before the app has its code makes one connection', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { browser, csrf, allow } = await atConsent(s);
    const first = await browser.post(allow, { area: ['training'], _csrf: csrf });
    const second = await browser.post(allow, { area: ['training', 'recovery'], _csrf: csrf });
    assert.is(first.status, 303);
    assert.is(second.headers.get('location'), first.headers.get('location'), 'the same answer, sent on');
    const connections = await s.app.connections.list(athleteId);
    assert.is(connections.length, 1);
    assert.equal(connections[0]!.scopes, ['training'], 'the first answer stands');
    const back = await follow(browser, new URL(second.headers.get('location')!, s.base).href);
    assert.ok(new URL(back.location).searchParams.get('code'), 'the app gets its code');
  } finally {
    await s.close();
  }
});

test('denying after allowing, before the app has its code, leaves no connection', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { browser, csrf, allow, deny } = await atConsent(s);
    assert.is((await browser.post(allow, { area: ['training'], _csrf: csrf })).status, 303);
    assert.is((await s.app.connections.list(athleteId))[0]?.status, 'connected');
    const back = await answer(s, browser, deny, { _csrf: csrf });
    assert.is(back.searchParams.get('error'), 'access_denied');
    const connections = await s.app.connections.list(athleteId);
    assert.equal(
      connections.map((c) => c.status),
      ['disconnected'],
    );
  } finally {
    await s.close();
  }
});

test.run();
