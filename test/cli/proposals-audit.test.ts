// `repledger proposals list|show|history` as an operator runs them, in their own process, on a
// store where proposals were really prepared, approved, rejected and undone.
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openTestApp } from '../support/app.ts';
import { auditStore, type AuditStore } from '../support/audit.ts';
import { agentCaller, validBody } from '../support/writes.ts';
import { cli, cliJson } from '../support/cli.ts';

let s: AuditStore;
let env: Record<string, string>;

test.before(async () => {
  s = await auditStore();
  env = { DATA_DIR: s.dataDir };
});

interface Listed {
  proposals: Array<{ athlete_id: string; athlete_email: string | null; command_id: string; status: string; client: { name: string }; prepared_at: string }>;
}

test.after(() => rmSync(s.dataDir, { recursive: true, force: true }));

test('proposals list: every athlete, newest prepared first, as a table or JSON', async () => {
  const { proposals } = await cliJson<Listed>(['proposals', 'list'], env);
  assert.equal(
    proposals.map((p) => [p.command_id, p.status]),
    // The CLI's clock is the real one: the proposal left awaiting review is long past its expiry.
    [
      [s.graceCommitted, 'committed'],
      [s.pending, 'expired'],
      [s.rejected, 'rejected'],
      [s.committed, 'committed'],
      [s.undone, 'undone'],
    ],
  );
  const table = await cli(['proposals', 'list'], env);
  assert.is(table.code, 0);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0]!, /^COMMAND ID\s+ATHLETE\s+E-MAIL\s+CLIENT\s+STATUS\s+PREPARED\s+DECIDED\s+CHANGES$/);
  assert.is(lines.length, 6);
  assert.match(lines[1]!, s.graceCommitted);
  assert.match(lines[1]!, 'Other agent');
  // The athlete's e-mail beside their id, in the table and in JSON.
  assert.match(lines[1]!, new RegExp(`${s.grace}\\s+grace@example\\.com\\s`));
  assert.match(lines[5]!, new RegExp(`${s.ada}\\s+ada@example\\.com\\s`));
  assert.equal([...new Set(proposals.map((p) => `${p.athlete_id} ${p.athlete_email}`))], [`${s.grace} grace@example.com`, `${s.ada} ada@example.com`]);
});

test('proposals list filters by athlete (id or e-mail), client, status and time', async () => {
  const ids = async (args: string[]) => (await cliJson<Listed>(['proposals', 'list', ...args], env)).proposals.map((p) => p.command_id);
  assert.equal(await ids(['--athlete', 'grace@example.com']), [s.graceCommitted]);
  assert.equal(await ids(['--athlete', s.ada, '--status', 'committed']), [s.committed]);
  assert.equal(await ids(['--client', 'https://other.example/client.json']), [s.graceCommitted]);
  assert.equal(await ids(['--client', 'Agent', '--status', 'undone']), [s.undone]);
  // Prepared at 12:00 (undone), 12:03 (committed), 12:05 (rejected), 12:07 (pending), 12:08 (Grace's).
  assert.equal(await ids(['--since', '2026-06-01T12:03:00Z', '--until', '2026-06-01T12:05:00Z']), [s.rejected, s.committed]);
  assert.equal(await ids(['--since', '2026-06-02']), []);
  assert.equal(await ids(['--until', '2026-06-01', '--limit', '2']), [s.graceCommitted, s.pending]);
});

test('proposals list refuses what it cannot use, saying what was wrong, with a non-zero exit', async () => {
  const badStatus = await cli(['proposals', 'list', '--status', 'approved'], env);
  assert.is.not(badStatus.code, 0);
  assert.match(badStatus.stderr, /Expected --status=approved to be one of: prepared, committed/);
  const badTime = await cli(['proposals', 'list', '--since', 'yesterday', '--json'], env);
  assert.is(badTime.code, 2);
  assert.equal(JSON.parse(badTime.stdout), {
    error: { code: 'invalid_input', message: '--since must be an ISO date or date-time (2026-01-31 or 2026-01-31T12:00:00Z), not "yesterday"' },
  });
  const noAthlete = await cli(['proposals', 'list', '--athlete', 'nobody@example.com'], env);
  assert.is(noAthlete.code, 2);
  assert.match(noAthlete.stderr, 'no athlete with e-mail nobody@example.com');
});

test('proposals show: the changes with their summaries, the outcome and the receipt', async () => {
  const shown = await cliJson<{
    athlete_id: string;
    status: string;
    changes: Array<{ op: string; kind: string; summary: string | null }>;
    details_kept: boolean;
    receipt: { approved_by: string; changes: Array<{ revision_before: number; revision_after: number }> };
    receipt_link: { sequence: number; digest: string };
  }>(['proposals', 'show', s.committed], env);
  assert.is(shown.athlete_id, s.ada);
  assert.is(shown.status, 'committed');
  assert.is(shown.details_kept, true);
  assert.equal(
    shown.changes.map((c) => [c.op, c.kind]),
    [['delete', 'meal']],
  );
  assert.ok(shown.changes[0]!.summary, 'a summary while retention keeps it');
  assert.is(shown.receipt.approved_by, 'athlete');
  assert.equal(
    shown.receipt.changes.map((c) => [c.revision_before, c.revision_after]),
    [[1, 2]],
  );
  // The undo was link 2 of Ada's chain; this commit came after it.
  assert.is(shown.receipt_link.sequence, 3);

  const text = await cli(['proposals', 'show', s.undone, '--athlete', 'ada@example.com'], env);
  assert.is(text.code, 0);
  assert.match(text.stdout, `athlete   ada@example.com (${s.ada})`);
  assert.match(text.stdout, /status\s+undone/);
  assert.match(text.stdout, /Receipt: committed 2026-06-01T12:01:00.000Z, approved by the athlete/);
  assert.match(text.stdout, /#0 create meal [0-9a-f-]{36}: revision \(new\) -> 1/);
  assert.match(text.stdout, /undo chain link #2 [0-9a-f]{64}/);

  const rejected = await cli(['proposals', 'show', s.rejected], env);
  assert.match(rejected.stdout, 'Receipt: none (not committed)');
});

test('proposals show and history refuse an unknown or malformed command id', async () => {
  const unknown = await cli(['proposals', 'show', '00000000-0000-4000-8000-000000000000', '--json'], env);
  assert.is(unknown.code, 2);
  assert.equal(JSON.parse(unknown.stdout).error.code, 'not_found');
  const malformed = await cli(['proposals', 'history', 'not-a-uuid'], env);
  assert.is(malformed.code, 2);
  assert.match(malformed.stderr, 'COMMAND_ID must be a uuid, not "not-a-uuid"');
  const missing = await cli(['proposals', 'history'], env);
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /Missing 1 required arg/);
  const elsewhere = await cli(['proposals', 'show', s.graceCommitted, '--athlete', s.ada], env);
  assert.is(elsewhere.code, 2);
  assert.match(elsewhere.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '), `there is no proposal ${s.graceCommitted} of athlete ${s.ada}`);
});

test("proposals history: every event of the proposal's life, with times and actors, from the log", async () => {
  const h = await cliJson<{ athlete_id: string; events: Array<{ type: string; at: string; actor: { type: string; id: string }; record_events: number }> }>(
    ['proposals', 'history', s.undone],
    env,
  );
  assert.is(h.athlete_id, s.ada);
  assert.equal(
    h.events.map((e) => [e.type, e.at, e.actor.type, e.record_events]),
    [
      ['proposal.prepared', '2026-06-01T12:00:00.000Z', 'agent_proposal', 0],
      ['proposal.committed', '2026-06-01T12:01:00.000Z', 'athlete', 1],
      ['proposal.undone', '2026-06-01T12:02:00.000Z', 'athlete', 1],
    ],
  );
  assert.equal(h.events[0]!.actor.id, s.undone);
  assert.equal(h.events[1]!.actor.id, s.ada);
  const text = await cli(['proposals', 'history', s.rejected], env);
  assert.is(text.code, 0);
  assert.match(text.stdout, `Proposal ${s.rejected} of athlete ada@example.com (${s.ada})`);
  assert.match(text.stdout, /^AT\s+EVENT\s+ACTOR\s+REVISION\s+WHAT$/m);
  assert.match(text.stdout, /prepared\s+agent_proposal:\S+\s+\d+\s+1 change\(s\) by Agent/);
  assert.match(text.stdout, /rejected\s+athlete:\S+\s+\d+\s+rejected; nothing saved/);
});

test("proposals history: a batch conflicted by the athlete's own edit says so, with when", async () => {
  const t = await openTestApp({ dataDir: s.dataDir, now: '2026-06-01T14:00:00.000Z' });
  let commandId: string;
  try {
    const meal = { eaten_at: '2026-06-01T12:00:00.000Z', name: 'Soup', calories_kcal: 300, protein_g: null, carbohydrate_g: null, fat_g: null };
    const id = (await t.app.edits.save(s.ada, 'Europe/London', [{ op: 'create', kind: 'meal', record: meal }])).created[0]!;
    const body = validBody([{ op: 'update', kind: 'meal', id, base_revision: 1, record: { ...meal, calories_kcal: 350 } }]);
    commandId = body.command_id;
    await t.app.proposals.prepare(await agentCaller(t.app, s.ada), body);
    t.clock.advance(60_000);
    await t.app.edits.save(s.ada, 'Europe/London', [{ op: 'update', kind: 'meal', id, base_revision: 1, record: { ...meal, name: 'Soup and bread' } }]);
    t.clock.advance(60_000);
    assert.is((await t.app.proposals.approve(s.ada, commandId)).outcome, 'conflicted');
  } finally {
    await t.close();
  }
  const text = await cli(['proposals', 'history', commandId], env);
  assert.is(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /conflicted\s+athlete:\S+\s+\d+\s+meal \S+ changed since preparation, by the athlete's own edit at 2026-06-01T14:01:00.000Z \(action #0\); nothing saved/,
  );
});

test('--help shows an example', async () => {
  for (const command of ['list', 'show', 'history']) {
    const help = await cli(['proposals', command, '--help'], env);
    assert.is(help.code, 0);
    assert.match(help.stdout, /EXAMPLES/);
    assert.match(help.stdout, `repledger proposals ${command}`);
  }
});

// Last: it adds a proposal to the store the tests above list.
test("a command id two athletes' agents both used: show, history and receipts refuse to pick one, name both athletes by e-mail, and take --athlete", async () => {
  const t = await openTestApp({ dataDir: s.dataDir, now: '2026-06-01T13:00:00.000Z' });
  try {
    // Grace's agent chooses the command id Ada's agent chose for a proposal of its own (ids are unique per athlete only).
    const body = validBody(
      [
        {
          op: 'create',
          kind: 'meal',
          record: { eaten_at: '2026-06-01T12:00:00.000Z', name: 'Toast', calories_kcal: 300, protein_g: 10, carbohydrate_g: null, fat_g: null },
        },
      ],
      s.committed,
    );
    await t.app.proposals.prepare(await agentCaller(t.app, s.grace), body);
  } finally {
    await t.close();
  }
  for (const args of [
    ['proposals', 'show', s.committed],
    ['proposals', 'history', s.committed],
    ['receipts', 'show', s.committed],
  ]) {
    const refused = await cli(args, env);
    assert.is(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
    assert.match(refused.stderr, `2 athletes have a proposal ${s.committed}`);
    assert.match(refused.stderr, 'ada@example.com');
    assert.match(refused.stderr, 'grace@example.com');
    assert.match(refused.stderr, '--athlete');
  }
  // Listed, both of them, each beside its athlete's e-mail.
  const listed = (await cli(['proposals', 'list'], env)).stdout.split('\n').filter((l) => l.startsWith(s.committed));
  assert.equal(
    listed.map((l) => l.split(/\s+/).slice(1, 3)).sort(),
    [
      [s.ada, 'ada@example.com'],
      [s.grace, 'grace@example.com'],
    ].sort(),
  );
  const ada = await cliJson<{ athlete_id: string; status: string }>(['proposals', 'show', s.committed, '--athlete', 'ada@example.com'], env);
  assert.equal([ada.athlete_id, ada.status], [s.ada, 'committed']);
  const grace = await cliJson<{ athlete_id: string; status: string }>(['proposals', 'show', s.committed, '--athlete', 'grace@example.com'], env);
  assert.equal([grace.athlete_id, grace.status], [s.grace, 'expired']);
});

test.run();
