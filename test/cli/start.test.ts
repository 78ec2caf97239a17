// What a command loads before it does anything: oclif answers --help from its manifest and loads
// only the module of the command being run (cli/manifest.ts); building the manifest loads every
// command module, so each one keeps its heavy imports inside `run`. Timing is the benchmark's
// job (bench/cli.ts); this holds the structure that makes a fast start possible.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modulesLoaded } from '../support/cli.ts';

const SERVER = ['fastify', 'oidc-provider', '@modelcontextprotocol/sdk', '@trpc/server'];

const commandModules = (modules: Set<string>) => [...modules].filter((m) => m.startsWith('cli/commands/'));

test('--help loads oclif and nothing of the project: no command module, no store, no schema library, no server', async () => {
  const modules = await modulesLoaded(['--help']);
  assert.ok(modules.has('cli/bin/run.js') && modules.has('@oclif/core'), 'the trace sees what loads');
  assert.equal(commandModules(modules), [], 'command modules loaded for --help');
  const service = [...modules].filter((m) => m.startsWith('services/'));
  assert.equal(service, [], 'modules of the service loaded for --help');
  for (const heavy of ['zod', ...SERVER]) assert.not.ok(modules.has(heavy), `${heavy} loaded for --help`);
  // oclif's check of its engines range, which cli/bin/run.js turns off (its own check is enough).
  assert.not.ok(modules.has('semver'), 'semver loaded for --help');
});

test('athletes list loads its own command module only, and opens the store but loads no server, authorization server or MCP SDK', async () => {
  const modules = await modulesLoaded(['athletes', 'list']);
  assert.ok(modules.has('services/app.ts') && modules.has('services/store/sqlite/read-store.ts'), 'the trace sees the store load');
  assert.equal(commandModules(modules), ['cli/commands/athletes/list.ts']);
  for (const heavy of SERVER) assert.not.ok(modules.has(heavy), `${heavy} loaded for athletes list`);
});

test.run();
