// What a command loads before it does anything: oclif answers --help from its manifest and loads
// only the module of the command being run (cli/manifest.ts); building the manifest loads every
// command module, so each one keeps its heavy imports inside `run`. Timing is the benchmark's
// job (bench/cli.ts); this holds the structure that makes a fast start possible.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { CLI } from '../support/cli.ts';

const root = join(import.meta.dirname, '..', '..');

/** The modules a CLI run loaded: project files by path, packages by name. */
async function loaded(args: string[]): Promise<Set<string>> {
  const trace = join(tempDir(), 'modules');
  const child = spawn(process.execPath, ['--import', join(root, 'test/support/module-trace.ts'), CLI, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: tempDir(), MODULE_TRACE_FILE: trace },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, stderr);
  const names = new Set<string>();
  for (const url of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    names.add(pkg ?? url.replace(`file://${root}/`, ''));
  }
  return names;
}

const SERVER = ['fastify', 'oidc-provider', '@modelcontextprotocol/sdk', '@trpc/server'];

const commandModules = (modules: Set<string>) => [...modules].filter((m) => m.startsWith('cli/commands/'));

test('--help loads oclif and nothing of the project: no command module, no store, no schema library, no server', async () => {
  const modules = await loaded(['--help']);
  assert.ok(modules.has('cli/bin/run.js') && modules.has('@oclif/core'), 'the trace sees what loads');
  assert.equal(commandModules(modules), [], 'command modules loaded for --help');
  const service = [...modules].filter((m) => m.startsWith('services/'));
  assert.equal(service, [], 'modules of the service loaded for --help');
  for (const heavy of ['zod', ...SERVER]) assert.not.ok(modules.has(heavy), `${heavy} loaded for --help`);
  // oclif's check of its engines range, which cli/bin/run.js turns off (its own check is enough).
  assert.not.ok(modules.has('semver'), 'semver loaded for --help');
});

test('athletes list loads its own command module only, and opens the store but loads no server, authorization server or MCP SDK', async () => {
  const modules = await loaded(['athletes', 'list']);
  assert.ok(modules.has('services/app.ts') && modules.has('services/store/sqlite/read-store.ts'), 'the trace sees the store load');
  assert.equal(commandModules(modules), ['cli/commands/athletes/list.ts']);
  for (const heavy of SERVER) assert.not.ok(modules.has(heavy), `${heavy} loaded for athletes list`);
});

test.run();
