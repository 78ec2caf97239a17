// Failures under --json: every command answers {"error":{"code","message"}} on stdout, and
// exits as the same failure does without --json.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cli, cliJson } from '../support/cli.ts';

const ADA = ['--email', 'ada@example.com', '--password', 'correct horse battery', '--display-name', 'Ada', '--timezone', 'UTC'];

test('--json failures print one error object on stdout, with a code and the exit code of the plain failure', async () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  await cliJson(['athletes', 'create', ...ADA], env);
  const empty = join(dataDir, 'empty.csv');
  writeFileSync(empty, '');
  const cases: Array<{ args: string[]; code: string; message: RegExp; exit: number }> = [
    { args: ['athletes', 'create', ...ADA], code: 'already_exists', message: /ada@example.com exists/, exit: 2 },
    { args: ['athletes', 'create', ...ADA.slice(0, 2), '--password', 'short', ...ADA.slice(4)], code: 'invalid_input', message: /12 characters/, exit: 2 },
    {
      args: ['subscriptions', 'set', '--athlete', 'nobody@example.com', '--tier', 'pro'],
      code: 'not_found',
      message: /no athlete with e-mail nobody@example.com/,
      exit: 2,
    },
    { args: ['subscriptions', 'set', '--athlete', 'ada@example.com'], code: 'invalid_input', message: /Missing required flag tier/, exit: 2 },
    { args: ['athletes', 'list', '--bogus'], code: 'invalid_input', message: /Nonexistent flag: --bogus/, exit: 2 },
    { args: ['status', '--bogus'], code: 'invalid_input', message: /Nonexistent flag: --bogus/, exit: 2 },
    // Refused before any command runs (cli/hooks/command-not-found.ts): 127, the shell's "command not found".
    { args: ['nosuch'], code: 'invalid_input', message: /^nosuch is not a repledger command\. Run repledger help for/, exit: 127 },
    {
      args: ['athletes', 'lst'],
      code: 'invalid_input',
      message: /athletes lst is not a repledger command\. Did you mean repledger athletes list\?/,
      exit: 127,
    },
    {
      args: ['athletes', 'create', '--email', 'blank@example.com', '--password', 'correct horse battery', '--display-name', '   ', '--timezone', 'UTC'],
      code: 'invalid_input',
      message: /profile\.display_name: give a name that is not only spaces/,
      exit: 2,
    },
    {
      args: ['import', 'hevy', '--athlete', 'ada@example.com', '--file', join(dataDir, 'nope.csv')],
      code: 'invalid_input',
      message: /nope\.csv does not exist; nothing was imported/,
      exit: 2,
    },
    {
      args: ['import', 'hevy', '--athlete', 'ada@example.com', '--file', empty],
      code: 'invalid_input',
      message: /empty\.csv line 1: the file is empty/,
      exit: 2,
    },
    { args: ['projections', 'replay', '--projection', 'nope'], code: 'not_found', message: /no projection named nope/, exit: 2 },
  ];
  for (const c of cases) {
    const name = c.args.slice(0, 2).join(' ');
    const json = await cli([...c.args, '--json'], env);
    assert.is(json.code, c.exit, `${name} --json: ${json.stderr}`);
    const body = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    assert.equal(Object.keys(body), ['error'], name);
    assert.equal(Object.keys(body.error).sort(), ['code', 'message'], name);
    assert.is(body.error.code, c.code, name);
    assert.match(body.error.message, c.message, name);
    const plain = await cli(c.args, env);
    assert.is(plain.code, c.exit, `${name}: ${plain.stderr}`);
    assert.is(plain.stdout, '', name);
  }
});

test('standard output that cannot be written (a full disk) is said in one line with exit 1, not a stack trace', async () => {
  const env = { ...process.env, DATA_DIR: tempDir(), LOG_LEVEL: 'silent' };
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'cli', 'bin', 'run.js'), 'athletes', 'list'], {
      env,
      stdio: ['ignore', full, 'pipe'],
      encoding: 'utf8',
    });
    assert.is(r.status, 1, r.stderr);
    assert.is(r.stderr, 'repledger: cannot write to standard output: ENOSPC: no space left on device, write\n');
  } finally {
    closeSync(full);
  }
});

test('a DATA_DIR that is a file, or a store that is not a database, is said plainly, naming the path', async () => {
  const dir = tempDir();
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const notDir = await cli(['status', '--json'], { DATA_DIR: file });
  assert.is(notDir.code, 1);
  assert.is(JSON.parse(notDir.stdout).error.message, `${file} is not a directory: DATA_DIR must name a directory`);
  writeFileSync(join(dir, 'repledger.db'), 'not a database, only text long enough to be read as a header');
  const notDb = await cli(['status', '--json'], { DATA_DIR: dir });
  assert.is(JSON.parse(notDb.stdout).error.message, `${join(dir, 'repledger.db')} is not a RepLedger store: it is not an SQLite database`);
});

test.run();
