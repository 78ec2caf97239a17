// Passwords after sign-up: the athlete's own change form, and hashes made with older scrypt
// parameters replaced at the next sign-in.
import { spawn } from 'node:child_process';
import { randomBytes, scryptSync } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { athleteEvent, streams } from '../../contracts/events.ts';
import { appendEvents } from '../../services/commands/append.ts';
import { hashIsCurrent, PASSWORD_PARAMS, verifyPassword } from '../../services/identity/password.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const EMAIL = 'ada@example.com';
const NEW = 'a much longer passphrase';

async function signIn(s: TestServer, password = PASSWORD): Promise<{ client: FormClient; status: number }> {
  const client = new FormClient(s.base);
  const form = await client.get('/sign-in');
  const res = await client.post('/sign-in', { email: EMAIL, password, _csrf: FormClient.csrf(form.text) });
  return { client, status: res.status };
}

test('the athlete changes their password: current one first, new one twice; other devices are signed out', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const { client: laptop } = await signIn(s);
    const { client: phone } = await signIn(s);
    const page = await laptop.get('/account/password');
    assert.is(page.status, 200);
    const csrf = FormClient.csrf(page.text);
    const change = (fields: Record<string, string | string[]>) => laptop.post('/account/password', { _csrf: csrf, ...fields });

    const wrong = await change({ current_password: 'not my password!', new_password: NEW, confirm_password: NEW });
    assert.is(wrong.status, 400);
    assert.match(wrong.text, 'Your current password is not right.');
    const differ = await change({ current_password: PASSWORD, new_password: NEW, confirm_password: `${NEW}!` });
    assert.is(differ.status, 400);
    assert.match(differ.text, 'the two new passwords differ');
    const short = await change({ current_password: PASSWORD, new_password: 'short', confirm_password: 'short' });
    assert.is(short.status, 400);
    assert.match(short.text, 'New password: ');
    const twice = await change({ current_password: [PASSWORD, PASSWORD], new_password: NEW, confirm_password: NEW });
    assert.is(twice.status, 400);

    const done = await change({ current_password: PASSWORD, new_password: NEW, confirm_password: NEW });
    assert.is(done.status, 303);
    assert.is(done.headers.get('location'), '/account?password_changed=1');
    assert.match((await laptop.get('/account?password_changed=1')).text, 'Your password was changed');
    assert.is((await phone.get('/account')).status, 302, 'the other device is signed out');
    assert.is((await signIn(s)).status, 401, 'the old password no longer signs in');
    assert.is((await signIn(s, NEW)).status, 303, 'the new one does');
  } finally {
    await s.close();
  }
});

test('wrong current passwords are limited like sign-in attempts', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const { client } = await signIn(s);
    const csrf = FormClient.csrf((await client.get('/account/password')).text);
    for (let i = 0; i < 5; i++) {
      assert.is(
        (await client.post('/account/password', { _csrf: csrf, current_password: `guess number ${i}!`, new_password: NEW, confirm_password: NEW })).status,
        400,
      );
    }
    const locked = await client.post('/account/password', { _csrf: csrf, current_password: PASSWORD, new_password: NEW, confirm_password: NEW });
    assert.is(locked.status, 429);
    assert.match(locked.headers.get('retry-after') ?? '', /^\d+$/);
    assert.ok(await verifyPassword(PASSWORD, (await s.app.athletes.byEmail(EMAIL))!.password_hash), 'unchanged while locked');
  } finally {
    await s.close();
  }
});

test("outside the test runner's cheaper setting, a new hash has OWASP's parameters (N=2^17, r=8, p=1), whatever REPLEDGER_TEST_SCRYPT_N says without NODE_ENV=test", async () => {
  const script =
    "const { hashPassword } = await import('./services/identity/password.ts'); process.stdout.write(await hashPassword('correct horse battery staple'));";
  const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: 'production', REPLEDGER_TEST_SCRYPT_N: '1024' };
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..', '..'), env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  assert.is(await new Promise((resolve) => child.on('close', resolve)), 0);
  assert.match(out, /^scrypt\$131072\$8\$1\$/);
});

test('a hash made with older scrypt parameters verifies, and is replaced with a current one at sign-in', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    assert.ok(hashIsCurrent((await s.app.athletes.get(athleteId))!.password_hash), 'new hashes use the current parameters');
    assert.match((await s.app.athletes.get(athleteId))!.password_hash, new RegExp(`^scrypt\\$${PASSWORD_PARAMS.N}\\$8\\$1\\$`));
    // What the service stored before: N=2^15.
    const salt = randomBytes(16);
    const old = [
      'scrypt',
      2 ** 15,
      8,
      1,
      salt.toString('base64url'),
      scryptSync(PASSWORD.normalize('NFKC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString('base64url'),
    ].join('$');
    await appendEvents(
      s.app.events,
      s.app.clock,
      { stream: streams.athlete(athleteId), athleteId },
      [athleteEvent.parse({ type: 'athlete.password_changed', data: { athlete_id: athleteId, password_hash: old } })],
      'any',
      { type: 'operator', id: 'test' },
    );
    assert.not.ok(hashIsCurrent(old));

    assert.is((await signIn(s, 'wrong password here')).status, 401);
    assert.is((await s.app.athletes.get(athleteId))!.password_hash, old, 'a failed sign-in changes nothing');
    assert.is((await signIn(s)).status, 303, 'the old hash still signs in');
    const upgraded = (await s.app.athletes.get(athleteId))!.password_hash;
    assert.ok(hashIsCurrent(upgraded), upgraded.slice(0, 20));
    assert.ok(await verifyPassword(PASSWORD, upgraded));
    assert.is((await signIn(s)).status, 303);
  } finally {
    await s.close();
  }
});

test.run();
