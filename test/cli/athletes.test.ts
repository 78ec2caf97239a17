import { test } from 'uvu';
import { projections } from '../../projections/index.ts';
import * as assert from 'uvu/assert';
import type { AthleteDoc } from '../../projections/athletes.ts';
import { tempDir } from '../support/app.ts';
import { cli, cliJson, createAthleteArgs } from '../support/cli.ts';

const create = (email: string, extra: string[] = []) => createAthleteArgs(email, 'Ada Lovelace', extra);

test('athletes create prints the id; list, subscriptions set and --json agree', async () => {
  const env = { DATA_DIR: tempDir() };
  const created = await cli(create('Ada@Example.com', ['--unit-preference', 'lbs']), env);
  assert.is(created.code, 0, created.stderr);
  const id = created.stdout.trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  await cliJson(create('bob@example.com', ['--tier', 'pro']), env);

  const listed = await cli(['athletes', 'list'], env);
  assert.match(listed.stdout, /ID\s+E-MAIL\s+NAME/);
  assert.match(listed.stdout, new RegExp(`${id}\\s+ada@example.com\\s+Ada Lovelace\\s+Europe/London\\s+lbs\\s+free`));

  const tier = await cliJson<{ tier: string }>(['subscriptions', 'set', '--athlete', 'ada@example.com', '--tier', 'pro'], env);
  assert.is(tier.tier, 'pro');
  const { athletes } = await cliJson<{ athletes: AthleteDoc[] }>(['athletes', 'list'], env);
  assert.equal(
    athletes.map((a) => [a.email, a.tier, a.unit_preference, a.bodyweight_unit_preference]),
    [
      ['ada@example.com', 'pro', 'lbs', 'lbs'],
      ['bob@example.com', 'pro', 'kg', 'kg'],
    ],
  );
});

test('text output writes control characters out: a name cannot clear the screen or forge a line', async () => {
  const env = { DATA_DIR: tempDir() };
  const name = 'Ada\u001b[2J\u001b[31m\r\nforged line\u0007\u202e';
  assert.is(
    (await cli(['athletes', 'create', '--email', 'ada@example.com', '--password', 'correct horse battery', '--display-name', name, '--timezone', 'UTC'], env))
      .code,
    0,
  );
  const listed = await cli(['athletes', 'list'], env);
  assert.not.match(listed.stdout, /[\u0000-\u0009\u000b-\u001f\u202e]/, 'nothing but the line ends a terminal acts on');
  assert.is(listed.stdout.trim().split('\n').length, 2, 'the header and one athlete');
  assert.match(listed.stdout, 'Ada\\u{1b}[2J\\u{1b}[31m\\u{d}\\u{a}forged line\\u{7}\\u{202e}');
  // JSON keeps the name as it is, escaped by JSON itself.
  const { athletes } = await cliJson<{ athletes: AthleteDoc[] }>(['athletes', 'list'], env);
  assert.is(athletes[0]!.display_name, name);
});

test('refusals say what was wrong and change nothing', async () => {
  const env = { DATA_DIR: tempDir() };
  await cliJson(create('ada@example.com'), env);
  const twice = await cli(create('ADA@example.com'), env);
  assert.is(twice.code, 2);
  assert.match(twice.stderr, 'an athlete with e-mail ada@example.com exists');
  const badZone = await cli(
    ['athletes', 'create', '--email', 'c@example.com', '--password', 'correct horse battery', '--display-name', 'C', '--timezone', 'Mars/Olympus'],
    env,
  );
  assert.is(badZone.code, 2);
  assert.match(badZone.stderr, /timezone/);
  const shortPassword = await cli(['athletes', 'create', '--email', 'd@example.com', '--password', 'short', '--display-name', 'D', '--timezone', 'UTC'], env);
  assert.is(shortPassword.code, 2);
  assert.match(shortPassword.stderr, /12 characters/);
  const nobody = await cli(['subscriptions', 'set', '--athlete', 'nobody@example.com', '--tier', 'pro'], env);
  assert.is(nobody.code, 2);
  const { athletes } = await cliJson<{ athletes: AthleteDoc[] }>(['athletes', 'list'], env);
  assert.is(athletes.length, 1);
});

test('--athlete takes the id that athletes create printed, as well as the e-mail', async () => {
  const env = { DATA_DIR: tempDir() };
  const created = await cli(create('ada@example.com'), env);
  const id = created.stdout.trim();
  const tier = await cliJson<{ athlete_id: string; tier: string }>(['subscriptions', 'set', '--athlete', id, '--tier', 'pro'], env);
  assert.equal(tier, { athlete_id: id, tier: 'pro' });
  const token = await cliJson<{ token_id: string }>(['bot-tokens', 'create', '--athlete', id.toUpperCase(), '--name', 'stats bot'], env);
  const byEmail = await cliJson<{ tokens: Array<{ id: string }> }>(['bot-tokens', 'list', '--athlete', 'ADA@example.com'], env);
  const byId = await cliJson<{ tokens: Array<{ id: string }> }>(['bot-tokens', 'list', '--athlete', id], env);
  assert.equal(byId, byEmail);
  assert.equal(
    byId.tokens.map((t) => t.id),
    [token.token_id],
  );

  const unknown = await cli(['subscriptions', 'set', '--athlete', '00000000-0000-4000-8000-000000000000', '--tier', 'free'], env);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, 'no athlete with id 00000000-0000-4000-8000-000000000000');
  const { athletes } = await cliJson<{ athletes: AthleteDoc[] }>(['athletes', 'list'], env);
  assert.equal(
    athletes.map((a) => a.tier),
    ['pro'],
  );
});

test('projections status lists every projection with its checkpoint and lag', async () => {
  const env = { DATA_DIR: tempDir() };
  await cliJson(create('ada@example.com'), env);
  const status = await cliJson<{ mode: string; projections: Array<{ name: string; checkpoint: number; head: number; lag_events: number }> }>(
    ['projections', 'status'],
    env,
  );
  assert.is(status.mode, 'inline');
  assert.equal(status.projections.map((p) => p.name).sort(), projections.map((p) => p.name).sort(), 'every projection of the service, and no other');
  for (const p of status.projections) assert.equal([p.checkpoint, p.lag_events], [p.head, 0], p.name);
  const unknown = await cli(['projections', 'replay', '--projection', 'nope'], env);
  assert.is.not(unknown.code, 0);
  assert.match(unknown.stderr, /no projection named nope/);
});

test.run();
