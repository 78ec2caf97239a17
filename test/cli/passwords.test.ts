// Passwords after sign-up: an operator's reset from the CLI (`athletes set-password`, the
// password on standard input), and the athlete's own change (AthleteService.changePassword),
// both as `athlete.password_changed` events under the registration rule.
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { AthleteDoc } from '../../projections/athletes.ts';
import { DomainError } from '../../services/domain/errors.ts';
import { verifyPassword } from '../../services/identity/password.ts';
import { openTestApp, registerAthlete, tempDir } from '../support/app.ts';
import { CLI, cliJson, type CliResult } from '../support/cli.ts';

const OLD = 'correct horse battery';
const NEW = 'a brand new passphrase';

/** The CLI with `stdin` written to its standard input. */
function cliWithInput(args: string[], env: Record<string, string>, stdin: string): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

async function passwordHash(dataDir: string, athleteId: string) {
  const t = await openTestApp({ dataDir });
  try {
    const athlete = (await t.app.athletes.get(athleteId))!;
    const events = await t.app.events.readStream(streams.athlete(athleteId));
    return { hash: athlete.password_hash, events: events.map((e) => ({ type: e.type, actor: (e.metadata as { actor: unknown }).actor })) };
  } finally {
    await t.close();
  }
}

test('athletes set-password reads the new password from standard input and replaces the old one', async () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  const { athlete_id } = await cliJson<{ athlete_id: string }>(
    ['athletes', 'create', '--email', 'ada@example.com', '--password', OLD, '--display-name', 'Ada', '--timezone', 'UTC'],
    env,
  );
  const r = await cliWithInput(['athletes', 'set-password', '--athlete', athlete_id, '--password-stdin'], env, `${NEW}\r\n`);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'set a new password for ada@example.com');
  assert.not.match(r.stdout + r.stderr, NEW);

  const after = await passwordHash(dataDir, athlete_id);
  assert.ok(await verifyPassword(NEW, after.hash), 'the new password signs in (the line end is not part of it)');
  assert.not.ok(await verifyPassword(OLD, after.hash), 'the old one no longer does');
  assert.equal(after.events.at(-1), { type: 'athlete.password_changed', actor: { type: 'operator', id: 'cli' } });
  const { athletes } = await cliJson<{ athletes: AthleteDoc[] }>(['athletes', 'list'], env);
  assert.ok(typeof athletes[0]!.password_changed_at === 'string');
  assert.not.ok(JSON.stringify(athletes).includes('scrypt'), 'the directory never holds the hash');
});

test('athletes set-password refuses a password the sign-up rule refuses, or none, and changes nothing', async () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  const { athlete_id } = await cliJson<{ athlete_id: string }>(
    ['athletes', 'create', '--email', 'ada@example.com', '--password', OLD, '--display-name', 'Ada', '--timezone', 'UTC'],
    env,
  );
  const before = await passwordHash(dataDir, athlete_id);
  const args = ['athletes', 'set-password', '--athlete', 'ada@example.com', '--password-stdin', '--json'];
  const short = await cliWithInput(args, env, 'eleven char\n');
  assert.is(short.code, 2);
  assert.equal(JSON.parse(short.stdout), { error: { code: 'invalid_input', message: 'new_password: a password needs at least 12 characters' } });
  const none = await cliWithInput(args, env, '');
  assert.is(none.code, 2);
  assert.match(JSON.parse(none.stdout).error.message, 'no password on standard input');
  const noFlag = await cliWithInput(['athletes', 'set-password', '--athlete', 'ada@example.com', '--json'], env, `${NEW}\n`);
  assert.is(noFlag.code, 2);
  assert.match(JSON.parse(noFlag.stdout).error.message, 'Missing required flag password-stdin');
  assert.equal(await passwordHash(dataDir, athlete_id), before);
});

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

test('changePassword: the current password first, then the sign-up rule; the new one then signs in', async () => {
  const t = await openTestApp();
  try {
    const id = await registerAthlete(t.app);
    const current = 'correct horse battery staple';
    const actor = { type: 'athlete', id } as const;
    const wrong = await refusal(t.app.athletes.changePassword(id, 'not the password', NEW, actor));
    assert.equal([wrong.code, wrong.issues], ['invalid_input', [{ path: 'current_password', message: 'this is not the current password' }]]);
    const short = await refusal(t.app.athletes.changePassword(id, current, 'short', actor));
    assert.equal([short.code, short.issues.map((i) => i.path)], ['invalid_input', ['new_password']]);
    assert.ok(await verifyPassword(current, (await t.app.athletes.get(id))!.password_hash), 'refusals change nothing');

    await t.app.athletes.changePassword(id, current, NEW, actor);
    const hash = (await t.app.athletes.get(id))!.password_hash;
    assert.ok(await verifyPassword(NEW, hash));
    assert.not.ok(await verifyPassword(current, hash));
    // The old password no longer counts as the current one.
    const stale = await refusal(t.app.athletes.changePassword(id, current, 'yet another passphrase', actor));
    assert.is(stale.issues[0]!.path, 'current_password');

    const nobody = await refusal(t.app.athletes.setPassword('00000000-0000-4000-8000-000000000000', NEW, { type: 'operator', id: 'test' }));
    assert.is(nobody.code, 'not_found');
  } finally {
    await t.close();
  }
});

test.run();
