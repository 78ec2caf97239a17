// The CLI's conventions (issue 40): `help TOPIC` (oclif's help plugin), a typo answered with the
// nearest command and exit 127 without waiting for an answer (cli/hooks/command-not-found.ts), as
// `help` of a typo is (cli/help.ts), shell completion (oclif's autocomplete plugin), and a command's start, which the plugins leave
// alone: they add their manifests, not their modules. Every case runs the real CLI, whose stdin is
// a pipe, as in a script or CI.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cli, cliJson, modulesLoaded } from '../support/cli.ts';

/** oclif's error text as one line: its ` ›   ` prefixes and the wrapping at 80 columns removed. */
const oneLine = (text: string) => text.replace(/›/g, ' ').replace(/\s+/g, ' ').trim();

test('help TOPIC and TOPIC --help print the topic with its commands', async () => {
  const env = { DATA_DIR: tempDir() };
  const help = await cli(['help', 'athletes'], env);
  assert.is(help.code, 0, help.stderr);
  assert.match(help.stdout, /Create and list athlete accounts/);
  assert.match(help.stdout, /\$ repledger athletes COMMAND/);
  for (const command of ['create', 'list', 'set-password']) assert.match(help.stdout, new RegExp(`athletes ${command}\\s`));
  const flag = await cli(['athletes', '--help'], env);
  assert.is(flag.code, 0, flag.stderr);
  assert.is(flag.stdout, help.stdout);
  // And a command's own help, through `help`.
  const command = await cli(['help', 'receipts', 'verify'], env);
  assert.is(command.code, 0, command.stderr);
  assert.match(command.stdout, /\$ repledger receipts verify/);
  // The root help lists the plugins' commands beside ours.
  const all = await cli(['--help'], env);
  assert.match(all.stdout, /\n {2}autocomplete\s/);
  assert.match(all.stdout, /\n {2}help\s/);
});

test('a typo names the nearest command or topic, exits 127 without asking, and runs nothing', async () => {
  const env = { DATA_DIR: tempDir() };
  const typo = await cli(['athlets', 'list'], env);
  assert.is(typo.code, 127);
  assert.is(typo.stdout, '');
  assert.match(oneLine(typo.stderr), /athlets list is not a repledger command\. Did you mean repledger athletes list\? Run repledger help for/);
  // Within a topic, the topic's help.
  const command = await cli(['receipts', 'verfy'], env);
  assert.is(command.code, 127);
  assert.match(oneLine(command.stderr), /Did you mean repledger receipts verify\? Run repledger help receipts for/);
  // A topic alone.
  const topic = await cli(['subscription'], env);
  assert.is(topic.code, 127);
  assert.match(oneLine(topic.stderr), /Did you mean repledger subscriptions\?/);
  // Nothing near: no guess.
  const far = await cli(['frobnicate'], env);
  assert.is(far.code, 127);
  assert.not.match(far.stderr, /Did you mean/);
  assert.match(oneLine(far.stderr), /frobnicate is not a repledger command\. Run repledger help for a list/);
  // The suggestion is only said: the command it names did not run.
  const create = ['athlets', 'create', '--email', 'ada@example.com', '--password', 'correct horse battery', '--display-name', 'Ada', '--timezone', 'UTC'];
  const notRun = await cli(create, env);
  assert.is(notRun.code, 127);
  assert.match(oneLine(notRun.stderr), /Did you mean repledger athletes create\?/);
  assert.equal(await cliJson<{ athletes: unknown[] }>(['athletes', 'list'], env), { athletes: [] });
  // Under --json, the same as one error object on stdout.
  const json = await cli(['athlets', 'list', '--json'], env);
  assert.is(json.code, 127);
  const { error } = JSON.parse(json.stdout) as { error: { code: string; message: string } };
  assert.is(error.code, 'invalid_input');
  assert.match(error.message, /^athlets list is not a repledger command\. Did you mean repledger athletes list\?/);
});

test('help of a typo names the nearest topic or command as `help` of it and exits 127, as the typo alone does (cli/help.ts)', async () => {
  const env = { DATA_DIR: tempDir() };
  const topic = await cli(['help', 'athlets'], env);
  assert.is(topic.code, 127);
  assert.is(topic.stdout, '');
  assert.match(oneLine(topic.stderr), /athlets is not a repledger command or topic\. Did you mean repledger help athletes\? Run repledger help for a list/);
  // The same through --help.
  const flag = await cli(['athlets', '--help'], env);
  assert.is(flag.code, 127);
  assert.match(oneLine(flag.stderr), /Did you mean repledger help athletes\?/);
  // A command: its topic's help is the list offered.
  const command = await cli(['help', 'receipts', 'verfy'], env);
  assert.is(command.code, 127);
  assert.match(
    oneLine(command.stderr),
    /receipts verfy is not a repledger command or topic\. Did you mean repledger help receipts verify\? Run repledger help receipts for/,
  );
  const both = await cli(['help', 'athlets', 'list'], env);
  assert.is(both.code, 127);
  assert.match(oneLine(both.stderr), /Did you mean repledger help athletes list\?/);
  // Nothing near: no guess.
  const far = await cli(['help', 'frobnicate'], env);
  assert.is(far.code, 127);
  assert.not.match(far.stderr, /Did you mean/);
  assert.match(oneLine(far.stderr), /frobnicate is not a repledger command or topic\. Run repledger help for a list/);
  // What exists is helped as before (the first test has the topic's text), the plugins' commands too.
  const athletes = await cli(['help', 'athletes'], env);
  assert.is(athletes.code, 0, athletes.stderr);
  assert.match(athletes.stdout, /\$ repledger athletes COMMAND/);
  const plugin = await cli(['help', 'autocomplete'], env);
  assert.is(plugin.code, 0, plugin.stderr);
  assert.match(plugin.stdout, /\$ repledger autocomplete/);
  const root = await cli(['help'], env);
  assert.is(root.code, 0, root.stderr);
  assert.match(root.stdout, /\n {2}athletes\s/);
});

test('autocomplete prints the setup instructions and the shell script, and builds the completions from the commands', async () => {
  const cache = tempDir();
  const env = { DATA_DIR: tempDir(), REPLEDGER_CACHE_DIR: cache };
  const setup = await cli(['autocomplete', 'bash'], env);
  assert.is(setup.code, 0, setup.stderr);
  assert.match(setup.stdout, /Setup Instructions for REPLEDGER CLI Autocomplete/);
  assert.match(setup.stdout, /printf "\$\(repledger autocomplete script bash\)" >> ~\/\.bashrc/);
  const script = await cli(['autocomplete', 'script', 'bash'], env);
  assert.is(script.code, 0, script.stderr);
  const setupPath = join(cache, 'autocomplete', 'bash_setup');
  assert.ok(script.stdout.includes(`REPLEDGER_AC_BASH_SETUP_PATH=${setupPath} && test -f $REPLEDGER_AC_BASH_SETUP_PATH && source`), script.stdout);
  assert.ok(existsSync(setupPath), 'the setup file the script sources');
  const completions = readFileSync(join(cache, 'autocomplete', 'functions', 'bash', 'repledger.bash'), 'utf8');
  for (const id of ['athletes:list', 'receipts:verify', 'maintenance:pause']) assert.ok(completions.includes(id), `${id} completes`);
  const zsh = await cli(['autocomplete', 'script', 'zsh'], env);
  assert.is(zsh.code, 0, zsh.stderr);
  assert.match(zsh.stdout, /REPLEDGER_AC_ZSH_SETUP_PATH=/);
});

test('a cold command still starts as before: no plugin module, no prompt library loaded for athletes list or --help', async () => {
  for (const args of [['athletes', 'list'], ['--help']]) {
    const started = performance.now();
    const modules = await modulesLoaded(args);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(modules.has('@oclif/core'), 'the trace sees what loads');
    const plugins = [...modules].filter((p) => p.startsWith('@oclif/plugin-') || p.startsWith('@inquirer/'));
    assert.equal(plugins, [], `loaded for ${args.join(' ')}`);
    console.log(`  repledger ${args.join(' ')}: ${seconds.toFixed(2)} s with the module trace`);
  }
});

test.run();
