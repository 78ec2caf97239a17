// Bot tokens: made by the athlete, shown once, stored hashed; they open the Read API v1 only,
// and Agent Access tokens do not open it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { meResponse } from '../../contracts/read-api.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';

test('the list holds every token, newest first, however many there are (read a page at a time)', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app, { tier: 'pro' });
    const made: string[] = [];
    for (let i = 0; i < 205; i++) {
      // Two a minute: pages meet both ties of creation time and distinct times.
      if (i % 2 === 0) t.clock.advance(60_000);
      made.push((await t.app.botTokens.create(athleteId, `bot ${i}`, { type: 'athlete', id: athleteId })).token_id);
    }
    const listed = await t.app.botTokens.list(athleteId);
    assert.is(listed.length, 205);
    assert.equal(new Set(listed.map((x) => x.id)), new Set(made), 'every token, the oldest too');
    const times = listed.map((x) => x.created_at);
    assert.equal(times, [...times].sort().reverse(), 'newest first');
  } finally {
    await t.close();
  }
});

test('a bot token reads /api/v1 and nothing else; an Agent Access token does not read /api/v1', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { token, token_id } = await s.app.botTokens.create(athleteId, 'Stats bot', { type: 'athlete', id: athleteId });
    assert.match(token, /^rlb_[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${s.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(me.status, 200);
    assert.is(me.headers.get('cache-control'), 'private, no-store');
    const body = meResponse.parse(await me.json());
    assert.equal(body.data, { display_name: 'Ada', unit_preference: 'kg', timezone: 'Europe/London' });
    assert.is(body.request_id, me.headers.get('x-request-id'));

    const events = await s.app.events.readStream(`bot_tokens-${athleteId}`);
    assert.not.match(JSON.stringify(events), token, 'the token itself is never stored');
    assert.match(JSON.stringify(events), sha256Hex(token));

    const agentAccess = await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(agentAccess.status, 401, 'a bot token does not authorise Agent Access');
    assert.match(agentAccess.headers.get('www-authenticate') ?? '', /resource_metadata=/);

    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const withOAuth = await fetch(`${s.base}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(withOAuth.status, 401, 'an Agent Access token does not authorise the Read API');
    const error = (await withOAuth.json()) as { error: { code: string; request_id: string } };
    assert.is(error.error.code, 'unauthorized');
    assert.is(error.error.request_id, withOAuth.headers.get('x-request-id'));

    await s.app.botTokens.revoke(athleteId, token_id, { type: 'athlete', id: athleteId });
    assert.is((await fetch(`${s.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status, 401, 'revoked at once');
    assert.is((await fetch(`${s.base}/api/v1/me`)).status, 401);
  } finally {
    await s.close();
  }
});

const noBrowser = whyNoBrowser();
if (noBrowser) {
  console.log(`skipped: bot token browser test — ${noBrowser}`);
  test.skip('an athlete creates, uses and revokes a bot token in the web app', () => {});
} else {
  test('an athlete creates, uses and revokes a bot token in the web app', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      await registerPro(s.app);
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(`${s.base}/sign-in?return_to=/bot-tokens`);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL(`${s.base}/bot-tokens`);
      await page.fill('#name', 'Discord stats bot');
      await page.click('text=Create token');
      const token = ((await page.textContent('code.token')) ?? '').trim();
      assert.match(token, /^rlb_/);
      assert.is(new URL(page.url()).pathname, '/bot-tokens', 'post/redirect/get: the token is shown by a GET');
      await screenshot(page, 'bot-token-created');
      assert.is((await fetch(`${s.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

      // Reloading neither shows the token again nor makes a second one.
      await page.reload();
      assert.not.match((await page.textContent('main')) ?? '', token, 'shown only once');
      const athleteId = (await s.app.athletes.byEmail('ada@example.com'))!.athlete_id;
      assert.is((await s.app.botTokens.list(athleteId)).length, 1, 'a reload made no second token');
      // Two tokens of one name are told apart by their first characters and their last use.
      await page.fill('#name', 'Discord stats bot');
      await page.click('text=Create token');
      const second = ((await page.textContent('code.token')) ?? '').trim();
      const rows = await page.locator('ul.tokens li').allTextContents();
      assert.is(rows.length, 2);
      assert.ok(
        rows.some((r) => r.includes(`${token.slice(0, 8)}…`) && /last used/.test(r)),
        rows.join(' | '),
      );
      assert.ok(
        rows.some((r) => r.includes(`${second.slice(0, 8)}…`) && /never used/.test(r)),
        rows.join(' | '),
      );
      await page.setViewportSize({ width: 1280, height: 800 });
      const buttons = await page.locator('ul.tokens li button').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().right)));
      assert.is(new Set(buttons).size, 1, `revoke buttons line up at desktop width: ${buttons}`);
      await screenshot(page, 'bot-tokens-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      await page
        .locator('ul.tokens li', { hasText: second.slice(0, 8) })
        .locator('button')
        .click();
      await page.waitForFunction("document.querySelectorAll('ul.tokens li').length === 1");
      await page.click('text=Revoke Discord stats bot');
      await page.waitForSelector('text=No bot tokens yet.');
      await screenshot(page, 'bot-tokens-after-revoke');
      assert.is((await fetch(`${s.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test('a refused token name comes back in the field, to be corrected rather than typed again', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const c = await signedInClient(s.base, 'ada@example.com');
    const csrf = FormClient.csrf((await c.get('/bot-tokens')).text);
    const long = 'Discord stats bot '.repeat(6);
    const refused = await c.post('/bot-tokens', { name: long, _csrf: csrf });
    assert.is(refused.status, 400);
    assert.match(refused.text, 'at most 100 characters');
    assert.match(refused.text, `value="${long}"`);
  } finally {
    await s.close();
  }
});

test('the form sent twice at once (a double click) makes one token, shown once', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const c = await signedInClient(s.base, 'ada@example.com');
    const page = (await c.get('/bot-tokens')).text;
    const form = { name: 'Stats bot', _csrf: FormClient.csrf(page), request_key: /name="request_key" value="([^"]+)"/.exec(page)![1]! };
    const answers = await Promise.all([c.post('/bot-tokens', form), c.post('/bot-tokens', form)]);
    assert.equal(
      answers.map((a) => [a.status, a.headers.get('location')]),
      [
        [303, '/bot-tokens'],
        [303, '/bot-tokens'],
      ],
    );
    assert.is((await s.app.botTokens.list(athleteId)).length, 1);
    assert.match((await c.get('/bot-tokens')).text, /<code class="token">rlb_/);
    // A form shown again has a key of its own: a second token is made on purpose.
    const again = (await c.get('/bot-tokens')).text;
    assert.is(
      (await c.post('/bot-tokens', { name: 'Another bot', _csrf: FormClient.csrf(again), request_key: /name="request_key" value="([^"]+)"/.exec(again)![1]! }))
        .status,
      303,
    );
    assert.is((await s.app.botTokens.list(athleteId)).length, 2);
  } finally {
    await s.close();
  }
});

test.run();
