// `repledger` started with a Node older than 24 says which Node it needs and how to get it,
// instead of failing on the first .ts file with ERR_UNKNOWN_FILE_EXTENSION.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI } from '../support/cli.ts';

/** A Node older than 24 on this machine's PATH (machines here ship Node 20), or null. */
function olderNode(): string | null {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules'));
  for (const dir of [...dirs, '/usr/local/bin', '/usr/bin']) {
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (Number(version.split('.')[0]) < 24) return node;
  }
  return null;
}

// Without one, the check still runs: this Node, told it is 20.
const old = olderNode();
const command = old
  ? [old, CLI]
  : [process.execPath, '--import', 'data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"20.0.0"}})', CLI];
if (!old) console.log('    no Node older than 24 on PATH: faking the version on this one');

function run(args: string[]) {
  const [node, ...rest] = command;
  return spawnSync(node!, [...rest, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
}

test('an older Node is told that Node 24 is needed and how to run it', () => {
  const r = run(['athletes', 'list']);
  assert.is(r.status, 1);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /repledger needs Node\.js 24 or newer; this is Node\.js 20\./);
  assert.match(r.stderr, 'npx repledger <command>');
  assert.match(r.stderr, 'npm start');
  assert.not.match(r.stderr, 'ERR_UNKNOWN_FILE_EXTENSION');
});

test('under --json, the same error shape as every command', () => {
  const r = run(['athletes', 'list', '--json']);
  assert.is(r.status, 1);
  const body = JSON.parse(r.stdout) as { error: { code: string; message: string } };
  assert.is(body.error.code, 'unsupported_node');
  assert.match(body.error.message, 'needs Node.js 24');
});

test.run();
