// Athlete accounts in the web app, over HTTP: what a browser would send, and what an attacker would.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const ADA = {
  display_name: 'Ada <script>alert(1)</script>',
  email: 'ada@example.com',
  password: 'correct horse battery',
  timezone: 'Europe/London',
  unit_preference: 'kg',
};

async function signUp(s: TestServer, who = ADA): Promise<FormClient> {
  const c = new FormClient(s.base);
  const form = await c.get('/sign-up');
  const res = await c.post('/sign-up', { ...who, _csrf: FormClient.csrf(form.text) });
  assert.is(res.status, 303, res.text);
  assert.is(res.headers.get('location'), '/account');
  return c;
}

test('sign-up signs the athlete in; record text is shown as text; pages carry the security headers', async () => {
  const s = await startServer();
  try {
    const c = await signUp(s);
    const account = await c.get('/account');
    assert.is(account.status, 200);
    assert.match(account.text, 'Hello, Ada &lt;script&gt;alert(1)&lt;/script&gt;');
    assert.not.match(account.text, '<script>alert(1)');
    assert.match(account.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.match(account.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.is(account.headers.get('x-frame-options'), 'DENY');
    assert.is(account.headers.get('cache-control'), 'private, no-store');
    const cookie = (await new FormClient(s.base).get('/sign-in')).headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    const athlete = await s.app.athletes.byEmail('ada@example.com');
    assert.is(athlete?.tier, 'free');
    assert.match(athlete!.password_hash, /^scrypt\$/);
  } finally {
    await s.close();
  }
});

test('sign-in, sign-out, and a new session token at each sign-in', async () => {
  const s = await startServer();
  try {
    await signUp(s);
    const c = new FormClient(s.base);
    const form = await c.get('/sign-in');
    const before = c.cookies.get('repledger_session');
    const wrong = await c.post('/sign-in', { email: ADA.email, password: 'not the password', _csrf: FormClient.csrf(form.text) });
    assert.is(wrong.status, 401);
    assert.match(wrong.text, 'do not match an account');
    const ok = await c.post('/sign-in', { email: 'ADA@example.com', password: ADA.password, _csrf: FormClient.csrf(form.text), return_to: '/account' });
    assert.is(ok.status, 303);
    assert.is.not(c.cookies.get('repledger_session'), before, 'signing in issues a fresh session token');
    const account = await c.get('/account');
    assert.is(account.status, 200);
    const out = await c.post('/sign-out', { _csrf: FormClient.csrf(account.text) });
    assert.is(out.status, 303);
    assert.is((await c.get('/account')).status, 302, 'signed out: the account page sends you to sign in');
    // A page left open posts after its session ended: told so, and brought back after signing in.
    const late = await c.post('/settings', { _csrf: FormClient.csrf(account.text), display_name: 'Ada' }, { referer: `${s.base}/settings` });
    assert.is(late.status, 403);
    assert.match(late.text, 'You were signed out');
    assert.match(late.text, 'href="/sign-in?return_to=%2Fsettings"');
  } finally {
    await s.close();
  }
});

test('forms without the session token, or posted from another site, are refused', async () => {
  const s = await startServer();
  try {
    const c = await signUp(s);
    const account = await c.get('/account');
    const token = FormClient.csrf(account.text);
    assert.is((await c.post('/sign-out', {})).status, 403, 'no token');
    assert.is((await c.post('/sign-out', { _csrf: `${token.slice(1)}x` })).status, 403, 'wrong token');
    assert.is((await c.post('/sign-out', { _csrf: token }, { origin: 'https://evil.example' })).status, 403, 'another origin');
    assert.is((await c.post('/sign-out', { _csrf: token }, { 'sec-fetch-site': 'cross-site' })).status, 403, 'cross-site fetch');
    assert.is((await c.get('/account')).status, 200, 'still signed in after the refused posts');
    const stranger = new FormClient(s.base);
    assert.is((await stranger.post('/sign-in', { email: ADA.email, password: ADA.password, _csrf: token })).status, 403, "another session's token");
  } finally {
    await s.close();
  }
});

test('bad sign-up input is shown back with what was wrong, and creates nothing', async () => {
  const s = await startServer();
  try {
    const c = new FormClient(s.base);
    const form = await c.get('/sign-up');
    const res = await c.post('/sign-up', { ...ADA, password: 'short', timezone: 'Mars/Olympus', _csrf: FormClient.csrf(form.text) });
    assert.is(res.status, 400);
    assert.match(res.text, 'Password: a password needs at least 12 characters');
    assert.match(res.text, 'Timezone:');
    assert.match(res.text, 'value="ada@example.com"', 'the form keeps what was typed');
    assert.is(await s.app.athletes.byEmail('ada@example.com'), null);
    await signUp(s);
    const again = await c.post('/sign-up', { ...ADA, _csrf: FormClient.csrf(form.text) });
    assert.is(again.status, 400);
    assert.match(again.text, 'already exists');
  } finally {
    await s.close();
  }
});

test('sign-in attempts are limited per e-mail, with Retry-After', async () => {
  const s = await startServer();
  try {
    await signUp(s);
    const c = new FormClient(s.base);
    const token = FormClient.csrf((await c.get('/sign-in')).text);
    for (let i = 0; i < 5; i++) assert.is((await c.post('/sign-in', { email: ADA.email, password: `guess ${i}`, _csrf: token })).status, 401);
    const limited = await c.post('/sign-in', { email: ADA.email, password: ADA.password, _csrf: token });
    assert.is(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.match(limited.text, 'Too many attempts');
  } finally {
    await s.close();
  }
});

test('return_to only ever leads back into this site', async () => {
  const s = await startServer();
  try {
    await signUp(s);
    for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const c = new FormClient(s.base);
      const form = await c.get(`/sign-in?return_to=${encodeURIComponent(target)}`);
      assert.not.match(form.text, 'evil.example');
      const res = await c.post('/sign-in', { email: ADA.email, password: ADA.password, _csrf: FormClient.csrf(form.text), return_to: target });
      assert.is(res.headers.get('location'), '/account', target);
    }
  } finally {
    await s.close();
  }
});

test.run();
