import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cli, cliJson } from '../support/cli.ts';

test('operators create, list and revoke bot tokens', async () => {
  const env = { DATA_DIR: tempDir() };
  await cliJson(['athletes', 'create', '--email', 'ada@example.com', '--password', 'correct horse battery', '--display-name', 'Ada', '--timezone', 'UTC'], env);
  const created = await cli(['bot-tokens', 'create', '--athlete', 'ada@example.com', '--name', 'Stats bot'], env);
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout.trim(), /^rlb_/);
  assert.match(created.stderr, /only this once/);
  const { tokens } = await cliJson<{ tokens: Array<{ id: string; name: string; revoked_at: string | null; token_sha256?: string }> }>(
    ['bot-tokens', 'list', '--athlete', 'ada@example.com'],
    env,
  );
  assert.is(tokens.length, 1);
  assert.is(tokens[0]!.name, 'Stats bot');
  assert.is(tokens[0]!.token_sha256, undefined, 'the list never shows the hash');
  const listed = await cli(['bot-tokens', 'list', '--athlete', 'ada@example.com'], env);
  assert.not.match(listed.stdout, created.stdout.trim());
  // A uuid pasted in upper case is the same id.
  await cliJson(['bot-tokens', 'revoke', '--athlete', 'ada@example.com', '--id', tokens[0]!.id.toUpperCase()], env);
  const after = await cliJson<{ tokens: Array<{ revoked_at: string | null }> }>(['bot-tokens', 'list', '--athlete', 'ada@example.com'], env);
  assert.ok(after.tokens[0]!.revoked_at);
  const again = await cli(['bot-tokens', 'revoke', '--athlete', 'ada@example.com', '--id', tokens[0]!.id], env);
  assert.is(again.code, 2);
  assert.match(again.stderr, /no such active bot token/);
});

test.run();
