// `repledger receipts …` as an auditor runs them, in their own process: receipts listed, shown and
// exported after a real prepare/approve/undo flow, and the receipt chain verified on an intact
// store, then on copies where a test edited or deleted stored events directly in SQLite.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { auditStore, type AuditStore } from '../support/audit.ts';
import { cli, cliJson } from '../support/cli.ts';

let s: AuditStore;
let env: Record<string, string>;
const copies: string[] = [];

test.before(async () => {
  s = await auditStore();
  env = { DATA_DIR: s.dataDir };
});

test.after(() => {
  for (const dir of [s.dataDir, ...copies]) rmSync(dir, { recursive: true, force: true });
});

function copy(): string {
  const dir = tempDir('repledger-copy-');
  copies.push(dir);
  cpSync(s.dataDir, dir, { recursive: true });
  return dir;
}

/** A copy of the store, changed with SQL on its event table as someone with the file could. */
function tampered(sql: string, ...params: string[]): Record<string, string> {
  const dir = copy();
  const db = new DatabaseSync(join(dir, 'repledger.db'));
  try {
    const { changes } = db.prepare(sql).run(...params);
    assert.is(changes, 1, 'the tampering changed one stored event');
  } finally {
    db.close();
  }
  return { DATA_DIR: dir };
}

interface Row {
  athlete_id: string;
  command_id: string;
  receipt: { committed_at: string; approved_by: string; client: { name: string }; changes: Array<{ op: string; kind: string }> };
  undone_at: string | null;
  receipt_link: { sequence: number; digest: string };
  undo_link: { sequence: number; digest: string } | null;
}

interface Verified {
  ok: boolean;
  chains: Array<{ athlete_id: string; links: number; head: { digest: string } | null }>;
  broken: { athlete_id: string; sequence: number; command_id: string | null; event: string | null; revision: number | null; reason: string } | null;
}

test('receipts list: committed proposals only (undone ones keep theirs), newest commit first; filters', async () => {
  const { receipts } = await cliJson<{ receipts: Row[] }>(['receipts', 'list'], env);
  assert.equal(
    receipts.map((r) => [r.command_id, r.receipt.committed_at, r.undone_at]),
    [
      [s.graceCommitted, '2026-06-01T12:09:00.000Z', null],
      [s.committed, '2026-06-01T12:04:00.000Z', null],
      [s.undone, '2026-06-01T12:01:00.000Z', '2026-06-01T12:02:00.000Z'],
    ],
  );
  assert.equal(
    receipts.map((r) => [r.receipt_link.sequence, r.undo_link?.sequence ?? null]),
    [
      [1, null],
      [3, null],
      [1, 2],
    ],
  );
  // `--since` is on the commit time: the undone one was prepared at 12:00 and committed at 12:01.
  const since = await cliJson<{ receipts: Row[] }>(
    ['receipts', 'list', '--athlete', 'ada@example.com', '--since', '2026-06-01T12:01:00Z', '--until', '2026-06-01T12:03:00Z'],
    env,
  );
  assert.equal(
    since.receipts.map((r) => r.command_id),
    [s.undone],
  );
  const table = await cli(['receipts', 'list', '--client', 'Other agent'], env);
  assert.is(table.code, 0);
  assert.match(table.stdout, /^COMMAND ID\s+ATHLETE\s+CLIENT\s+COMMITTED\s+APPROVED BY\s+CHANGES\s+UNDONE\s+LINK$/m);
  assert.is(table.stdout.trim().split('\n').length, 2);
});

test('receipts show: one receipt; a proposal without one is refused, saying why', async () => {
  const r = await cliJson<Row>(['receipts', 'show', s.committed], env);
  assert.is(r.athlete_id, s.ada);
  assert.is(r.receipt.approved_by, 'athlete');
  assert.equal(
    r.receipt.changes.map((c) => [c.op, c.kind]),
    [['delete', 'meal']],
  );
  const none = await cli(['receipts', 'show', s.rejected], env);
  assert.is(none.code, 2);
  assert.match(none.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '), 'has no receipt: it is rejected, not committed');
});

test('receipts export: JSON Lines of every receipt, progress on stderr; one athlete; to a file', async () => {
  const all = await cli(['receipts', 'export'], env);
  assert.is(all.code, 0);
  const lines = all.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
  assert.equal(lines.map((r) => r.command_id).sort(), [s.undone, s.committed, s.graceCommitted].sort());
  assert.match(all.stderr, /Exporting receipts \[=+\] 100% \| 5\/5/);
  assert.match(all.stderr, 'Exported 3 receipts.');

  const dir = tempDir('repledger-export-');
  copies.push(dir);
  const file = join(dir, 'grace.jsonl');
  const summary = await cliJson<{ receipts: number; output: string }>(['receipts', 'export', '--athlete', 'grace@example.com', '--output', file], env);
  assert.equal(summary, { receipts: 1, output: file });
  assert.equal(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Row).command_id),
    [s.graceCommitted],
  );
  const again = await cli(['receipts', 'export', '--output', file, '--json'], env);
  assert.is(again.code, 2);
  assert.match(JSON.parse(again.stdout).error.message, 'exists; the export does not overwrite a file');
  // A directory is not a file to write; `-` is stdout, as for `export --file -`, not a file named "-".
  const intoDir = await cli(['receipts', 'export', '--output', dir, '--json'], env);
  assert.is(intoDir.code, 2);
  assert.is(JSON.parse(intoDir.stdout).error.message, `${dir} is a directory; give the name of a file to write`);
  const dash = await cli(['receipts', 'export', '--output', '-'], env);
  assert.is(dash.code, 0);
  assert.is(dash.stdout.trim().split('\n').length, 3);
  assert.not.ok(existsSync(join(import.meta.dirname, '..', '..', '-')), 'no file named -');
  const mixed = await cli(['receipts', 'export', '--json'], env);
  assert.is(mixed.code, 2);
  assert.is(JSON.parse(mixed.stdout).error.code, 'invalid_input');
});

test('receipts verify passes on an intact store, and head prints what it verified', async () => {
  const v = await cliJson<Verified>(['receipts', 'verify'], env);
  assert.is(v.ok, true);
  assert.is(v.broken, null);
  assert.equal(
    v.chains.map((c) => [c.athlete_id, c.links]).sort(),
    [
      [s.ada, 3],
      [s.grace, 1],
    ].sort(),
  );
  const { heads } = await cliJson<{ heads: Array<{ athlete_id: string; sequence: number; digest: string }> }>(['receipts', 'head'], env);
  const ada = heads.find((h) => h.athlete_id === s.ada)!;
  assert.is(ada.sequence, 3);
  assert.is(ada.digest, v.chains.find((c) => c.athlete_id === s.ada)!.head!.digest);
  const text = await cli(['receipts', 'verify', '--athlete', 'ada@example.com', '--head', ada.digest], env);
  assert.is(text.code, 0);
  assert.match(text.stdout, `athlete ${s.ada}: 3 link(s) hold, head #3 ${ada.digest}`);
  // A head that is not a link of the chain (here: another athlete's) is what a rebuilt chain shows.
  const grace = heads.find((h) => h.athlete_id === s.grace)!;
  const foreign = await cli(['receipts', 'verify', '--athlete', s.ada, '--head', grace.digest, '--json'], env);
  assert.is(foreign.code, 1);
  assert.match((JSON.parse(foreign.stdout) as Verified).broken!.reason, 'is not a link of this chain');
});

test('the retention purge leaves every chain intact: the links cover only what it keeps', async () => {
  const purged = { DATA_DIR: copy() };
  // The CLI's clock is today's: everything the fixture prepared is past retention.
  assert.is((await cliJson<{ keys_destroyed: number }>(['proposals', 'purge'], purged)).keys_destroyed, 5);
  const v = await cliJson<Verified>(['receipts', 'verify'], purged);
  assert.is(v.ok, true);
  assert.equal(v.chains.map((c) => c.links).sort(), [1, 3]);
});

test('receipts verify fails, naming the link, after a stored receipt is edited in SQLite', async () => {
  // The commit's receipt now claims another revision: its content no longer gives its digest.
  const edited = tampered(
    `UPDATE events SET data = json_set(data, '$.changes[0].revision_after', 7) WHERE type = 'proposal.committed' AND json_extract(data, '$.command_id') = ?`,
    s.committed,
  );
  const r = await cli(['receipts', 'verify', '--json'], edited);
  assert.is(r.code, 1);
  const v = JSON.parse(r.stdout) as Verified;
  assert.is(v.ok, false);
  assert.equal(
    { ...v.broken, reason: undefined },
    { athlete_id: s.ada, sequence: 3, command_id: s.committed, event: 'proposal.committed', revision: v.broken!.revision, reason: undefined },
  );
  assert.match(v.broken!.reason, 'no longer match its digest');
  const text = await cli(['receipts', 'verify'], edited);
  assert.is(text.code, 1);
  assert.match(text.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '), `BROKEN: athlete ${s.ada}, link #3 (proposal.committed of proposal ${s.committed}`);
  // The client the receipt names comes from the prepared event: editing it breaks the link too.
  const renamed = tampered(
    `UPDATE events SET data = json_set(data, '$.client_name', 'Someone else') WHERE type = 'proposal.prepared' AND json_extract(data, '$.command_id') = ?`,
    s.graceCommitted,
  );
  const g = await cli(['receipts', 'verify', '--athlete', 'grace@example.com', '--json'], renamed);
  assert.is(g.code, 1);
  assert.equal([(JSON.parse(g.stdout) as Verified).broken!.sequence, (JSON.parse(g.stdout) as Verified).broken!.command_id], [1, s.graceCommitted]);
});

test('receipts verify fails, naming the link, after a stored event is deleted', async () => {
  // Link 1 (the first commit) gone: link 2 (its undo) follows the genesis instead.
  const gone = tampered(`DELETE FROM events WHERE type = 'proposal.committed' AND json_extract(data, '$.command_id') = ?`, s.undone);
  const r = await cli(['receipts', 'verify', '--athlete', s.ada, '--json'], gone);
  assert.is(r.code, 1);
  const v = JSON.parse(r.stdout) as Verified;
  assert.is(v.broken!.sequence, 1);
  assert.match(v.broken!.reason, 'link #1 is missing: the next link in the stream is #2 (proposal.undone');
  // A record change a link covers gone: the commit that made it names it.
  const change = tampered(
    `DELETE FROM events WHERE stream = ? AND revision = (SELECT revision - 1 FROM events WHERE type = 'proposal.committed' AND json_extract(data, '$.command_id') = ?)`,
    `record-${s.ada}`,
    s.committed,
  );
  const c = JSON.parse((await cli(['receipts', 'verify', '--json'], change)).stdout) as Verified;
  assert.equal([c.broken!.sequence, c.broken!.command_id], [3, s.committed]);
  assert.match(c.broken!.reason, 'the record events appended with it are not all in the stream');
});

test('an event whose stored JSON is damaged fails verify naming the stream and the event, not a bare SyntaxError', async () => {
  const damaged = tampered(`UPDATE events SET data = '{not json' WHERE type = 'proposal.committed' AND json_extract(data, '$.command_id') = ?`, s.committed);
  const r = await cli(['receipts', 'verify', '--athlete', s.ada, '--json'], damaged);
  assert.is(r.code, 1);
  assert.match(
    JSON.parse(r.stdout).error.message,
    new RegExp(`^the store is damaged: the data of event \\d+ of stream record-${s.ada} \\(proposal\\.committed, position \\d+\\) is not JSON`),
  );
});

test('--help shows an example', async () => {
  for (const command of ['list', 'show', 'export', 'verify', 'head']) {
    const help = await cli(['receipts', command, '--help'], env);
    assert.is(help.code, 0);
    assert.match(help.stdout, /EXAMPLES/);
    assert.match(help.stdout, `repledger receipts ${command}`);
  }
});

test.run();
