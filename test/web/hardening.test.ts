// What an outside security test and a new user found in the web app (issue 10): where sign-in may
// send a browser, forms that assumed well-formed input, sessions nobody needed, sign-up as a way
// to test e-mail addresses, and pages that answered browsers with JSON.
import { createHook } from 'node:async_hooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { AttemptLimiter } from '../../services/web/limiter.ts';
import { SESSION_COOKIE, SESSIONS } from '../../services/identity/sessions.ts';
import { beginAuthorization, connect, follow, registerPro, PASSWORD, REDIRECT } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const ADA = { display_name: 'Ada', email: 'ada@example.com', password: PASSWORD, timezone: 'Europe/London', unit_preference: 'kg' };

/** Signs in with `return_to` and answers where the browser is sent. */
async function signInReturningTo(s: TestServer, returnTo: string): Promise<string> {
  const c = new FormClient(s.base);
  const form = await c.get(`/sign-in?return_to=${encodeURIComponent(returnTo)}`);
  assert.is(form.status, 200, `sign-in page for ${JSON.stringify(returnTo)}`);
  const res = await c.post('/sign-in', { email: ADA.email, password: ADA.password, return_to: returnTo, _csrf: FormClient.csrf(form.text) });
  assert.is(res.status, 303, `sign-in with return_to ${JSON.stringify(returnTo)}: ${res.text.slice(0, 200)}`);
  return res.headers.get('location')!;
}

test('sign-in only ever returns to a path on this site, whatever return_to holds', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const hostile = [
      '/\t/evil.example/x',
      '/\n/evil.example/x',
      '/\r\n/evil.example',
      '/\v/evil.example',
      '/\u3000/evil.example',
      '/\u202e/evil.example',
      '//evil.example/x',
      '/\\evil.example/x',
      '/\\/evil.example',
      'https://evil.example/x',
      'javascript:alert(1)',
      ' /account',
      '',
      // Parsing removes dot segments: each of these resolves to //evil.example (review finding).
      '/.//evil.example/x',
      '/..//evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
      '/%2e%2e//evil.example',
      '/./\\evil.example',
    ];
    for (const returnTo of hostile) {
      const location = await signInReturningTo(s, returnTo);
      assert.is(location, '/account', `return_to ${JSON.stringify(returnTo)} is dropped`);
    }
    // A real path on this site survives, query included, percent-encoded as a header must be.
    assert.is(await signInReturningTo(s, '/connections?x=1'), '/connections?x=1');
    assert.is(await signInReturningTo(s, '/oauth/interaction/abc'), '/oauth/interaction/abc');
    assert.is(await signInReturningTo(s, '/bot-tokens?name=Zoë'), '/bot-tokens?name=Zo%C3%AB');
  } finally {
    await s.close();
  }
});

test('a field sent twice, missing or too long gets the form again with what was wrong, never a 500', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const visitor = new FormClient(s.base);
    const signUp = FormClient.csrf((await visitor.get('/sign-up')).text);
    for (const [field, value] of [
      ['email', ['a@example.com', 'b@example.com']],
      ['password', [PASSWORD, PASSWORD]],
      ['display_name', ['Ada', 'Bea']],
      ['timezone', ['Europe/London', 'UTC']],
      ['unit_preference', ['kg', 'lbs']],
    ] as const) {
      const res = await visitor.post('/sign-up', { ...ADA, email: 'new@example.com', [field]: [...value], _csrf: signUp });
      assert.is(res.status, 400, `${field} twice on sign-up`);
      assert.match(res.headers.get('content-type') ?? '', 'text/html');
      assert.match(res.text, field === 'unit_preference' ? 'Weights in: choose kilograms or pounds' : 'give it once');
    }
    const missing = await visitor.post('/sign-up', { email: 'new@example.com', _csrf: signUp });
    assert.is(missing.status, 400);
    assert.match(missing.text, 'Name: ');
    // A name of zero-width spaces shows nothing: as good as missing.
    const invisible = await visitor.post('/sign-up', { ...ADA, email: 'new@example.com', display_name: '\u200b\u200b', _csrf: signUp });
    assert.is(invisible.status, 400);
    assert.match(invisible.text, 'Name: this field is required');
    assert.is(await s.app.athletes.byEmail('new@example.com'), null);
    const long = await visitor.post('/sign-up', { ...ADA, email: 'new@example.com', display_name: 'x'.repeat(5000), _csrf: signUp });
    assert.is(long.status, 400);
    assert.match(long.text, 'at most 100 characters');

    const signIn = FormClient.csrf((await visitor.get('/sign-in')).text);
    for (const field of ['email', 'password'] as const) {
      const res = await visitor.post('/sign-in', { email: ADA.email, password: PASSWORD, [field]: [ADA[field], ADA[field]], _csrf: signIn });
      assert.is(res.status, 400, `${field} twice on sign-in`);
      assert.match(res.text, 'give it once');
    }
    // A refusal keeps the e-mail as typed and where sign-in returns to (a password over 200 characters blanked both).
    const tooLong = await visitor.post('/sign-in', { email: ADA.email, password: 'x'.repeat(201), return_to: '/proposals', _csrf: signIn });
    assert.is(tooLong.status, 400);
    assert.match(tooLong.text, `value="${ADA.email}"`);
    assert.match(tooLong.text, 'name="return_to" value="/proposals"');
    // The return_to of a refused sign-in is dropped with the rest, not turned into a header.
    const bad = await visitor.post('/sign-in', { email: ADA.email, password: PASSWORD, return_to: '/\n/evil', _csrf: signIn });
    assert.is(bad.status, 303);
    assert.is(bad.headers.get('location'), '/account');
  } finally {
    await s.close();
  }
});

test('visitors who have not signed in leave no session rows; expired sessions are swept', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const s = await startServer({ clock });
  try {
    await registerPro(s.app);
    for (let i = 0; i < 50; i++) {
      const visitor = new FormClient(s.base);
      assert.is((await visitor.get('/sign-in')).status, 200);
      assert.is((await visitor.get('/sign-up')).status, 200);
    }
    assert.is(await s.app.reads.count(SESSIONS), 0, 'reading the sign-in and sign-up pages stores nothing');

    // A visitor's form still works: its token is the visitor cookie's.
    const visitor = new FormClient(s.base);
    const form = await visitor.get('/sign-in');
    assert.ok(visitor.cookies.get('repledger_csrf'));
    assert.is((await visitor.post('/sign-in', { email: ADA.email, password: PASSWORD, _csrf: FormClient.csrf(form.text) })).status, 303);
    assert.is(await s.app.reads.count(SESSIONS), 1, 'signing in keeps one session');
    assert.is(visitor.cookies.get('repledger_csrf'), undefined, 'the visitor token is dropped at sign-in');

    // Another visitor's cookie token does not pass for this one's.
    const other = new FormClient(s.base);
    await other.get('/sign-in');
    const stranger = new FormClient(s.base);
    stranger.cookies.set(
      'repledger_csrf',
      other.cookies.get('repledger_csrf')!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    );
    assert.is((await stranger.post('/sign-in', { email: ADA.email, password: PASSWORD, _csrf: other.cookies.get('repledger_csrf')! })).status, 403);

    clock.advance(13 * 3600_000);
    const { Sessions } = await import('../../services/identity/sessions.ts');
    const swept = await new Sessions(s.app.reads, clock, false).sweep();
    assert.is(swept, 1);
    assert.is(await s.app.reads.count(SESSIONS), 0);
  } finally {
    await s.close();
  }
});

test('a one-time value never brings back a session that ended meanwhile, and expires if never shown', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const s = await startServer({ clock });
  try {
    const athleteId = await registerPro(s.app);
    const { Sessions } = await import('../../services/identity/sessions.ts');
    const sessions = new Sessions(s.app.reads, clock, false);
    const reply = { setCookie: () => reply, clearCookie: () => reply } as unknown as Parameters<typeof sessions.start>[0];
    const session = await sessions.start(reply, athleteId);
    // A password change elsewhere ends every session while this request is still creating a token.
    await sessions.endAllOf(athleteId);
    await sessions.setFlash(session, { kind: 'bot_token', name: 'Bot', token: 'rlb_secret' });
    assert.is(await s.app.reads.get(SESSIONS, 'sessions', session.id), null, 'the ended session stays ended');
    assert.equal(await sessions.takeFlash(session), { kind: 'bot_token', name: 'Bot', token: 'rlb_secret' });
    assert.is(await sessions.takeFlash(session), null, 'shown once');

    await sessions.setFlash(session, { kind: 'bot_token', name: 'Bot', token: 'rlb_other' });
    clock.advance(11 * 60_000);
    await sessions.sweep();
    assert.is(await sessions.takeFlash(session), null, 'a token never shown is not kept in clear');
    assert.is(await s.app.reads.count(SESSIONS), 0);
  } finally {
    await s.close();
  }
});

test('sign-up is rate-limited per address and hashes the password for an existing e-mail as for a new one', async () => {
  const s = await startServer();
  // Password hashes started, counted by their scrypt requests: an answer that skipped the hash for
  // a known address would tell it apart by time (2.9 ms against 89 ms, when only new accounts
  // were hashed). Counted rather than timed: a timed comparison failed on a busy machine.
  let hashes = 0;
  const counter = createHook({ init: (_id, type) => void (type === 'SCRYPTREQUEST' && hashes++) }).enable();
  try {
    await registerPro(s.app);
    const visitor = new FormClient(s.base);
    const signUp = async (email: string) => {
      // Each sign-up signs the visitor in; the next one starts as a new visitor.
      visitor.cookies.clear();
      const csrf = FormClient.csrf((await visitor.get('/sign-up')).text);
      const before = hashes;
      const res = await visitor.post('/sign-up', { ...ADA, email, _csrf: csrf });
      return { res, hashed: hashes - before };
    };
    for (let i = 0; i < 3; i++) {
      const known = await signUp(ADA.email);
      assert.is(known.res.status, 400);
      assert.match(known.res.text, 'already exists');
      const made = await signUp(`new${i}@example.com`);
      assert.is(made.res.status, 303);
      assert.equal([known.hashed, made.hashed], [1, 1], 'one password hash for each answer');
    }

    let attempts = 6;
    let last = (await signUp('more6@example.com')).res;
    while (last.status !== 429 && attempts < 20) last = (await signUp(`more${++attempts}@example.com`)).res;
    assert.is(last.status, 429);
    assert.is(attempts, 10, 'the eleventh sign-up within the hour from one address is refused');
    assert.match(last.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(last.text, 'Too many accounts were created from your network');
  } finally {
    counter.disable();
    await s.close();
  }
});

test('a locked-out owner is told how to get back in', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const c = new FormClient(s.base);
    const csrf = FormClient.csrf((await c.get('/sign-in')).text);
    for (let i = 0; i < 5; i++) assert.is((await c.post('/sign-in', { email: ADA.email, password: 'wrong password!!', _csrf: csrf })).status, 401);
    const locked = await c.post('/sign-in', { email: ADA.email, password: PASSWORD, _csrf: csrf });
    assert.is(locked.status, 429);
    assert.match(locked.text, 'Try again in 15 minutes');
    assert.match(locked.text, 'repledger athletes set-password');
  } finally {
    await s.close();
  }
});

test('wrong passwords sent all at once are limited too: attempts are counted before the hash', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const c = new FormClient(s.base);
    const csrf = FormClient.csrf((await c.get('/sign-in')).text);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => c.post('/sign-in', { email: ADA.email, password: `wrong password ${i}!`, _csrf: csrf })),
    );
    const statuses = answers.map((a) => a.status);
    assert.is(statuses.filter((x) => x === 401).length, 5, `5 per e-mail: ${statuses.join(' ')}`);
    assert.is(statuses.filter((x) => x === 429).length, 19);
  } finally {
    await s.close();
  }
});

test('behind a trusted proxy, each client is counted by its forwarded address; otherwise the header is ignored', async () => {
  const signUps = async (s: TestServer, forwardedFor: string, count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const visitor = new FormClient(s.base);
      const csrf = FormClient.csrf((await visitor.get('/sign-up')).text);
      statuses.push(
        (await visitor.post('/sign-up', { ...ADA, email: `p${forwardedFor}-${i}@example.com`, _csrf: csrf }, { 'x-forwarded-for': forwardedFor })).status,
      );
    }
    return statuses;
  };
  const proxied = await startServer({ env: { TRUST_PROXY: '127.0.0.1' } });
  try {
    assert.equal(await signUps(proxied, '203.0.113.1', 11), [...Array(10).fill(303), 429]);
    assert.equal(await signUps(proxied, '203.0.113.2', 1), [303], 'another client behind the same proxy has its own budget');
  } finally {
    await proxied.close();
  }
  const direct = await startServer();
  try {
    assert.equal(await signUps(direct, '203.0.113.1', 10), Array(10).fill(303));
    assert.equal(await signUps(direct, '203.0.113.2', 1), [429], 'a forged header does not buy a new budget');
  } finally {
    await direct.close();
  }
});

test('the attempt limiter forgets keys whose attempts have left the window', () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const limiter = new AttemptLimiter(5, 60_000, clock);
  for (let i = 0; i < 1000; i++) limiter.record(`someone-${i}@example.com`);
  assert.is(limiter.size, 1000);
  clock.advance(61_000);
  limiter.record('one-more@example.com');
  assert.is(limiter.size, 1, 'a thousand failing e-mails are not kept past their window');
  for (let i = 0; i < 5; i++) limiter.record('one-more@example.com');
  assert.is(limiter.retryAfter('one-more@example.com'), 60);
});

test('browsers get pages for unknown addresses and errors; API clients get the error shape', async () => {
  const s = await startServer();
  try {
    const page = await fetch(`${s.base}/no-such-page`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.is(page.status, 404);
    assert.match(page.headers.get('content-type') ?? '', 'text/html');
    assert.match(page.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'");
    const text = await page.text();
    assert.match(text, '<h1>Page not found</h1>');
    assert.not.match(text, '"error"');
    assert.not.match(text, '<nav class="main"', 'no navigation for a browser without a session');
    // The error page runs outside the pages' cookie plugin, and still reads the session cookie.
    const withSession = await fetch(`${s.base}/no-such-page`, { headers: { accept: 'text/html', cookie: `other=1; ${SESSION_COOKIE}=ended-or-not` } });
    assert.is(withSession.status, 404);
    assert.match(await withSession.text(), '<nav class="main"', 'a browser with a session cookie gets the navigation');

    // Under the authorization server, RFC 6749's shape (docs/api.md), still JSON to a browser.
    const oauth = await fetch(`${s.base}/oauth/token/x`, { headers: { accept: 'text/html' } });
    assert.is(oauth.status, 404);
    assert.is(((await oauth.json()) as { error: string }).error, 'invalid_request');
    for (const path of ['/no-such-page', '/v1/agent-access/nothing', '/api/v1/nothing']) {
      const api = await fetch(`${s.base}${path}`, { headers: path === '/no-such-page' ? {} : { accept: 'text/html' } });
      assert.is(api.status, 404, path);
      const body = (await api.json()) as { error: { code: string; request_id: string } };
      assert.is(body.error.code, 'not_found');
      assert.is(body.error.request_id, api.headers.get('x-request-id'));
    }
  } finally {
    await s.close();
  }
});

test('sign-up offers IANA zone names, keeps the older names a browser reports, and accepts the IANA ones', async () => {
  const s = await startServer();
  try {
    const visitor = new FormClient(s.base);
    const form = await visitor.get('/sign-up');
    const values = [...form.text.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]!);
    for (const iana of ['Asia/Kolkata', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires', 'UTC']) assert.ok(values.includes(iana), iana);
    for (const legacy of ['Asia/Calcutta', 'Europe/Kiev', 'America/Buenos_Aires']) assert.not.ok(values.includes(legacy), legacy);
    assert.match(form.text, 'data-aliases="Asia/Calcutta"');
    assert.is(new Set(values).size, values.length, 'each zone once');
    const made = await visitor.post('/sign-up', { ...ADA, timezone: 'Asia/Kolkata', _csrf: FormClient.csrf(form.text) });
    assert.is(made.status, 303);
    assert.is((await s.app.athletes.byEmail(ADA.email))?.profile.timezone, 'Asia/Kolkata');
  } finally {
    await s.close();
  }
});

test('a Free athlete who connects an AI client is told what Pro gives and how to get it, and can go back', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app, ADA.email, 'free');
    const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training');
    const browser = new FormClient(s.base);
    let page = await follow(browser, client.authorizationUrl!.href);
    const returnTo = new URL(page.location).searchParams.get('return_to')!;
    const signedIn = await browser.post('/sign-in', { email: ADA.email, password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(page.text) });
    page = await follow(browser, new URL(signedIn.headers.get('location')!, s.base).href);
    assert.match(page.text, '<h1>Connecting AI clients needs Pro</h1>');
    assert.match(page.text, 'What Pro gives you');
    assert.match(page.text, 'How to get it');
    assert.match(page.text, `repledger subscriptions set --athlete ${ADA.email} --tier pro`);
    assert.not.match(page.text, 'Allow reading', 'no consent is offered');
    const back = /action="(\/oauth\/interaction\/[^"]+\/deny)"/.exec(page.text)?.[1];
    assert.ok(back, 'a way back to the app');
    const answer = await browser.post(back!, { _csrf: FormClient.csrf(page.text) });
    const done = await follow(browser, new URL(answer.headers.get('location')!, s.base).href);
    assert.ok(done.location.startsWith(REDIRECT));
    assert.is(new URL(done.location).searchParams.get('error'), 'access_denied');
  } finally {
    await s.close();
  }
});

test("the connections page answers crafted notices and others' connections without a false word", async () => {
  const s = await startServer();
  try {
    const adaId = await registerPro(s.app);
    await registerPro(s.app, 'bob@example.com');
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const grantId = (
      (await (await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json()) as {
        data: { grant_id: string };
      }
    ).data.grant_id;
    const signedIn = async (email: string) => {
      const c = new FormClient(s.base);
      const form = await c.get('/sign-in');
      assert.is((await c.post('/sign-in', { email, password: PASSWORD, _csrf: FormClient.csrf(form.text) })).status, 303);
      return c;
    };
    const ada = await signedIn('ada@example.com');
    for (const key of ['constructor', '__proto__', 'toString']) {
      const page = await ada.get(`/connections?permissions=${key}`);
      assert.is(page.status, 200);
      assert.match(page.text, 'Saved. The app may now suggest what you allowed', key);
      assert.not.match(page.text, /native code|\[object Object\]/, key);
    }
    // Bob posting Ada's connection: nothing done, and nothing said to have been.
    const bob = await signedIn('bob@example.com');
    const bobsPage = await bob.get('/connections');
    const refused = await bob.post(`/connections/${grantId}/disconnect`, { _csrf: FormClient.csrf(bobsPage.text) });
    assert.is(refused.headers.get('location'), '/connections');
    assert.is((await s.app.connections.get(adaId, grantId))?.status, 'connected');
    // Ada clicking twice: both answers say it is disconnected.
    const csrf = FormClient.csrf((await ada.get('/connections')).text);
    for (let i = 0; i < 2; i++)
      assert.is((await ada.post(`/connections/${grantId}/disconnect`, { _csrf: csrf })).headers.get('location'), '/connections?disconnected=1');
    assert.is((await s.app.connections.get(adaId, grantId))?.status, 'disconnected');
  } finally {
    await s.close();
  }
});

test.run();
