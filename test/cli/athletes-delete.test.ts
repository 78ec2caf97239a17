// `repledger athletes delete`: refused without the e-mail repeated (nothing deleted), then the
// account is gone, the other stays, and the e-mail can sign up again.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cli, cliJson, createAthleteArgs } from '../support/cli.ts';

/** Whether any file of `dir` holds `text`, read as bytes. */
const foundIn = (dir: string, text: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).some((f) => f.isFile() && readFileSync(join(f.parentPath, f.name)).includes(text));
const emails = async (env: Record<string, string>) =>
  (await cliJson<{ athletes: Array<{ email: string }> }>(['athletes', 'list'], env)).athletes.map((a) => a.email);

test('athletes delete: refused without --confirm or with another e-mail, nothing deleted; with it, the account goes', async () => {
  const env = { DATA_DIR: tempDir() };
  const id = (await cli(createAthleteArgs('ada@example.com', 'Ada Lovelace'), env)).stdout.trim();
  await cliJson(createAthleteArgs('bob@example.com', 'Bob'), env);

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
  // Run again, a deleted account is only erased from the files again; an id never seen is not found.
  const again = await cli(['athletes', 'delete', '--athlete', id], env);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /was already deleted/);
  const unknown = await cli(['athletes', 'delete', '--athlete', randomUUID()], env);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /no athlete with id/);

  // The e-mail signs up again, as a new account.
  const second = await cli(createAthleteArgs('ada@example.com', 'Ada again'), env);
  assert.is(second.code, 0, second.stderr);
  assert.is.not(second.stdout.trim(), id);
});

test('athletes delete while another process keeps reading the store: deleted, exit 2 saying the files are not yet erased; run again, they are', async () => {
  const dir = tempDir();
  const env = { DATA_DIR: dir };
  const id = (await cli(createAthleteArgs('zephyrine@example.com', 'Zephyrine Quillfeather'), env)).stdout.trim();
  // A reader holding a snapshot: the WAL, which holds pages with the account, cannot be truncated under it.
  const reader = new DatabaseSync(join(dir, 'repledger.db'), { readOnly: true });
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM events').get();
  try {
    const held = await cli(['athletes', 'delete', '--athlete', id, '--confirm', 'zephyrine@example.com', '--json'], env);
    assert.is(held.code, 2, held.stderr);
    const { error } = JSON.parse(held.stdout) as { error: { code: string; message: string } };
    assert.is(error.code, 'busy');
    assert.match(
      error.message,
      new RegExp(`the account ${id} is deleted, but the store's files may still hold copies of it \\(the WAL could not be truncated`),
    );
    assert.match(error.message, new RegExp(`run \`repledger athletes delete --athlete ${id}\` again`));
    assert.ok(foundIn(dir, 'Quillfeather'), 'its bytes are still in the files while the reader holds them');
  } finally {
    reader.exec('COMMIT');
    reader.close();
  }
  assert.equal(await emails(env), [], 'the account is deleted all the same');

  const again = await cli(['athletes', 'delete', '--athlete', id], env);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /was already deleted; the store's files now hold no copy of it/);
  assert.not.ok(foundIn(dir, 'Quillfeather'), 'erased');
});

test.run();
