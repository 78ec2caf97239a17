// `repledger athletes delete`: refused without the e-mail repeated (nothing deleted), then the
// account is gone, the other stays, and the e-mail can sign up again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cli, cliJson } from '../support/cli.ts';

const create = (email: string, name: string) => [
  'athletes',
  'create',
  '--email',
  email,
  '--password',
  'correct horse battery',
  '--display-name',
  name,
  '--timezone',
  'Europe/London',
];
const emails = async (env: Record<string, string>) =>
  (await cliJson<{ athletes: Array<{ email: string }> }>(['athletes', 'list'], env)).athletes.map((a) => a.email);

test('athletes delete: refused without --confirm or with another e-mail, nothing deleted; with it, the account goes', async () => {
  const env = { DATA_DIR: tempDir() };
  const id = (await cli(create('ada@example.com', 'Ada Lovelace'), env)).stdout.trim();
  await cliJson(create('bob@example.com', 'Bob'), env);

  const unconfirmed = await cli(['athletes', 'delete', '--athlete', 'ada@example.com'], env);
  assert.is(unconfirmed.code, 2, unconfirmed.stderr);
  assert.match(unconfirmed.stderr, /nothing deleted/);
  assert.match(unconfirmed.stderr, /--confirm ada@example\.com/);
  const wrong = await cli(['athletes', 'delete', '--athlete', id, '--confirm', 'bob@example.com', '--json'], env);
  assert.is(wrong.code, 2);
  assert.is((JSON.parse(wrong.stdout) as { error: { code: string } }).error.code, 'invalid_input');
  assert.equal(await emails(env), ['ada@example.com', 'bob@example.com'], 'nothing deleted');

  const deleted = await cliJson<{ athlete_id: string; deleted: boolean; accounts_deleted: number }>(
    ['athletes', 'delete', '--athlete', id, '--confirm', 'Ada@Example.com'],
    env,
  );
  assert.equal(deleted, { athlete_id: id, deleted: true, accounts_deleted: 1 });
  assert.equal(await emails(env), ['bob@example.com']);
  const again = await cli(['athletes', 'delete', '--athlete', id, '--confirm', 'ada@example.com'], env);
  assert.is(again.code, 2);
  assert.match(again.stderr, /no athlete with id/);

  // The e-mail signs up again, as a new account.
  const second = await cli(create('ada@example.com', 'Ada again'), env);
  assert.is(second.code, 0, second.stderr);
  assert.is.not(second.stdout.trim(), id);
});

test.run();
