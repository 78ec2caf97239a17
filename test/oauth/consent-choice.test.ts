// The consent screen ticks nothing for the athlete (spec 1.4, 5.2): each area the app may read is
// ticked by them, an answer with none is refused on the same page, and what the page says of
// writing is what the product does (reads only what is ticked; suggestions need a separate
// permission and change nothing until approved).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beginAuthorization, follow, PASSWORD, REDIRECT, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

/** Signs `email` in up to the consent page; returns the browser, the page and the form's address. */
async function atConsent(s: TestServer, scope: string, email = 'ada@example.com') {
  const client = await beginAuthorization(`${s.base}/v1/agent-access`, scope);
  const browser = new FormClient(s.base);
  let page = await follow(browser, client.authorizationUrl!.href);
  const returnTo = new URL(page.location).searchParams.get('return_to')!;
  const signedIn = await browser.post('/sign-in', { email, password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(page.text) });
  page = await follow(browser, new URL(signedIn.headers.get('location')!, s.base).href);
  const allow = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(page.text)?.[1] ?? null;
  return { browser, page: page.text, csrf: FormClient.csrf(page.text), allow };
}

test('nothing is ticked for the athlete; sent with nothing ticked, the same page says so and nothing is granted', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { browser, page, csrf, allow } = await atConsent(s, 'training recovery nutrition');
    const boxes = [...page.matchAll(/<input type="checkbox" name="area" value="([a-z_]+)"([^>]*)>/g)];
    assert.equal(
      boxes.map((b) => b[1]),
      ['training', 'recovery', 'nutrition'],
      'each area asked for is offered',
    );
    assert.equal(
      boxes.filter((b) => /checked/.test(b[2]!)).map((b) => b[1]),
      [],
      'none is ticked',
    );
    // What it says of writing is true: reading the ticked areas, suggestions only with a separate permission.
    assert.not.match(page, 'cannot change your record');
    assert.match(
      page,
      'It may suggest changes only if you later allow that in a separate form, and nothing changes until you approve each batch here in RepLedger.',
    );

    const refused = await browser.post(allow!, { _csrf: csrf });
    assert.is(refused.status, 400);
    assert.match(refused.text, '<p class="error" role="alert">Nothing was allowed: tick at least one area the app may read, or choose Deny.</p>');
    assert.match(refused.text, `action="${allow}"`, 'the same form, to answer again');
    assert.not.match(refused.text, /name="area" value="[a-z_]+" checked/, 'still nothing ticked');
    // An area the app did not ask for counts as none.
    assert.is((await browser.post(allow!, { _csrf: csrf, area: 'body_measurements' })).status, 400);
    assert.equal(await s.app.connections.list(athleteId), [], 'no connection');

    // Ticking one grants that one only.
    const answer = await browser.post(allow!, { _csrf: csrf, area: 'recovery' });
    assert.is(answer.status, 303);
    const done = await follow(browser, new URL(answer.headers.get('location')!, s.base).href);
    assert.ok(done.location.startsWith(REDIRECT) && new URL(done.location).searchParams.get('code'), done.location);
    assert.equal(
      (await s.app.connections.list(athleteId)).map((c) => c.scopes),
      [['recovery']],
    );
  } finally {
    await s.close();
  }
});

test('the Free plan page says what apps can do as it is: read what is ticked, suggest only with a separate permission', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app, 'ada@example.com', 'free');
    const { page, allow } = await atConsent(s, 'training');
    assert.is(allow, null, 'no consent form on Free');
    assert.match(page, 'Connecting AI clients needs Pro');
    assert.not.match(page, 'Apps can only read');
    assert.not.match(page, 'cannot change your record');
    assert.match(
      page,
      'An app may suggest changes to your record only if you also allow that, in a separate form; nothing changes until you approve each batch of suggestions here in RepLedger.',
    );
  } finally {
    await s.close();
  }
});

test.run();
