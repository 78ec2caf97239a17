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
import { oneByte, tamperProposalDoc } from '../support/tamper.ts';

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

/** A copy of the store with a proposal's document in the read model (rm_proposals) rewritten by `edit`. */
function tamperedDoc(commandId: string, edit: (doc: string) => string): Record<string, string> {
  const dir = copy();
  tamperProposalDoc(dir, commandId, edit);
  return { DATA_DIR: dir };
}

/** Output as read, whatever width oclif wrapped it to. */
const flat = (text: string) => text.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');

interface Row {
  athlete_id: string;
  command_id: string;
  receipt: { committed_at: string; approved_by: string; client: { name: string }; changes: Array<{ op: string; kind: string }> };
  undone_at: string | null;
  receipt_link: { sequence: number; digest: string };
  undo_link: { sequence: number; digest: string } | null;
}

interface Drifted {
  athlete_id: string;
  athlete_email: string | null;
  command_id: string;
  fields: string[];
}

interface Verified {
  ok: boolean;
  drift: Drifted[];
  chains: Array<{ athlete_id: string; links: number; head: { digest: string } | null }>;
  broken: {
    athlete_id: string;
    athlete_email: string | null;
    sequence: number;
    command_id: string | null;
    event: string | null;
    revision: number | null;
    reason: string;
  } | null;
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
  assert.match(table.stdout, /^COMMAND ID\s+ATHLETE\s+E-MAIL\s+CLIENT\s+COMMITTED\s+APPROVED BY\s+CHANGES\s+UNDONE\s+LINK$/m);
  assert.is(table.stdout.trim().split('\n').length, 2);
  assert.match(table.stdout, new RegExp(`${s.grace}\\s+grace@example\\.com\\s+Other agent`));
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
  // The bar counts the receipts written, not the proposals read (5).
  assert.match(all.stderr, /Exporting receipts \[=+\] 100% \| 3\/3/);
  assert.match(all.stderr, 'Exported 3 receipts.');

  const dir = tempDir('repledger-export-');
  copies.push(dir);
  const file = join(dir, 'grace.jsonl');
  const summary = await cliJson<{ receipts: number; output: string }>(['receipts', 'export', '--athlete', 'grace@example.com', '--output', file], env);
  assert.equal(summary, { receipts: 1, output: file, drift: [] });
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
  assert.match((await cli(['receipts', 'head'], env)).stdout, new RegExp(`^ATHLETE\\s+E-MAIL\\s+LINKS[^]*${s.grace}\\s+grace@example\\.com\\s+1\\s`, 'm'));
  const ada = heads.find((h) => h.athlete_id === s.ada)!;
  assert.is(ada.sequence, 3);
  assert.is(ada.digest, v.chains.find((c) => c.athlete_id === s.ada)!.head!.digest);
  const text = await cli(['receipts', 'verify', '--athlete', 'ada@example.com', '--head', ada.digest], env);
  assert.is(text.code, 0);
  assert.match(text.stdout, `athlete ada@example.com (${s.ada}): 3 link(s) hold, head #3 ${ada.digest}`);
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
    {
      athlete_id: s.ada,
      athlete_email: 'ada@example.com',
      sequence: 3,
      command_id: s.committed,
      event: 'proposal.committed',
      revision: v.broken!.revision,
      reason: undefined,
    },
  );
  assert.match(v.broken!.reason, 'no longer match its digest');
  const text = await cli(['receipts', 'verify'], edited);
  assert.is(text.code, 1);
  assert.match(
    text.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '),
    `BROKEN: athlete ada@example.com (${s.ada}), link #3 (proposal.committed of proposal ${s.committed}`,
  );
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

test("a receipt edited by one byte in the read model: verify reports it as drift, not a broken chain, and show, list and export print the log's version, exiting 1", async () => {
  // Ada's delete of a meal: revision 1 -> 2 in the log; the read model's copy now says 1 -> 7.
  const edited = tamperedDoc(s.committed, (doc) => oneByte(doc, '"receipt":', '"revision_after":', '7'));
  const drift: Drifted = { athlete_id: s.ada, athlete_email: 'ada@example.com', command_id: s.committed, fields: ['receipt.changes[0].revision_after'] };
  const named = `DRIFT: receipt ${s.committed} of ada@example.com (${s.ada}): the read model's copy differs from the event log in receipt.changes[0].revision_after`;

  const v = await cli(['receipts', 'verify', '--json'], edited);
  assert.is(v.code, 1);
  const verified = JSON.parse(v.stdout) as Verified;
  assert.equal([verified.ok, verified.broken, verified.drift], [false, null, [drift]]);
  assert.equal(verified.chains.map((c) => c.links).sort(), [1, 3], 'the chains in the log hold');
  const text = await cli(['receipts', 'verify'], edited);
  assert.is(text.code, 1);
  assert.match(text.stdout, `athlete ada@example.com (${s.ada}): 3 link(s) hold`);
  assert.match(flat(text.stderr), named);
  assert.match(flat(text.stderr), "1 receipt(s) in the read model differ from the event log; what is shown is the log's");
  assert.not.match(text.stderr, 'BROKEN');
  assert.not.match(text.stdout, 'agree with the event log');
  // An intact store says it agrees.
  assert.match((await cli(['receipts', 'verify'], env)).stdout, "The read model's copies of the receipts agree with the event log.");

  const shown = await cli(['receipts', 'show', s.committed, '--json'], edited);
  assert.is(shown.code, 1);
  const r = JSON.parse(shown.stdout) as Row & { drift: string[] };
  assert.equal([r.receipt.changes[0], r.drift], [(await cliJson<Row>(['receipts', 'show', s.committed], env)).receipt.changes[0], drift.fields]);
  const shownText = await cli(['receipts', 'show', s.committed], edited);
  assert.is(shownText.code, 1);
  assert.match(shownText.stdout, /#0 delete meal \S+: revision 1 -> 2$/m);
  assert.not.match(shownText.stdout, '-> 7');
  assert.match(flat(shownText.stderr), named);
  const proposal = await cli(['proposals', 'show', s.committed], edited);
  assert.is(proposal.code, 1);
  assert.match(proposal.stdout, /revision 1 -> 2$/m);
  assert.not.match(proposal.stdout, '-> 7');
  assert.match(flat(proposal.stderr), named);

  const listed = await cli(['receipts', 'list', '--json'], edited);
  assert.is(listed.code, 1);
  const rows = (JSON.parse(listed.stdout) as { receipts: Array<Row & { drift: string[] }> }).receipts;
  assert.equal(
    rows.map((row) => [row.command_id, row.receipt.changes.map((c) => (c as unknown as { revision_after: number }).revision_after), row.drift]),
    [
      [s.graceCommitted, [1], []],
      [s.committed, [2], drift.fields],
      [s.undone, [1], []],
    ],
  );
  const listedText = await cli(['receipts', 'list'], edited);
  assert.is(listedText.code, 1);
  assert.match(flat(listedText.stderr), named);

  const exported = await cli(['receipts', 'export'], edited);
  assert.is(exported.code, 1);
  assert.equal(exported.stdout, (await cli(['receipts', 'export'], env)).stdout, "the lines are the log's, as from the intact store");
  // …and each is the receipt `receipts show` reads from the log of the intact store.
  const line = exported.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row)
    .find((row) => row.command_id === s.committed);
  const {
    drift: _drift,
    athlete_email: _email,
    ...intact
  } = await cliJson<Row & { drift: string[]; athlete_email: string }>(['receipts', 'show', s.committed], env);
  assert.equal(line, intact);
  assert.match(flat(exported.stderr), named);
  const dir = tempDir('repledger-export-');
  copies.push(dir);
  const file = await cli(['receipts', 'export', '--output', join(dir, 'r.jsonl'), '--json'], edited);
  assert.is(file.code, 1);
  assert.equal(JSON.parse(file.stdout), { receipts: 3, output: join(dir, 'r.jsonl'), drift: [drift] });
});

test('a receipt only the read model holds, and one only the log holds, are drift too', async () => {
  // The rejected proposal's document given the committed one's receipt; Grace's document removed.
  const dir = copy();
  const db = new DatabaseSync(join(dir, 'repledger.db'));
  try {
    db.prepare(
      `UPDATE rm_proposals SET doc = json_set(doc, '$.receipt', (SELECT json_extract(doc, '$.receipt') FROM rm_proposals WHERE id = ?)) WHERE id = ?`,
    ).run(s.committed, s.rejected);
    db.prepare('DELETE FROM rm_proposals WHERE id = ?').run(s.graceCommitted);
  } finally {
    db.close();
  }
  const v = await cli(['receipts', 'verify', '--json'], { DATA_DIR: dir });
  assert.is(v.code, 1);
  assert.equal(
    (JSON.parse(v.stdout) as Verified).drift.map((d) => [d.athlete_email, d.command_id, d.fields]),
    [
      ['ada@example.com', s.rejected, ['receipt (the event log holds none)']],
      ['grace@example.com', s.graceCommitted, ['receipt (the read model holds none)']],
    ],
  );
  const shown = await cli(['receipts', 'show', s.rejected], { DATA_DIR: dir });
  assert.is(shown.code, 1);
  assert.match(shown.stdout, 'none: the event log holds no commit of this proposal');
  assert.match(
    flat(shown.stderr),
    `DRIFT: receipt ${s.rejected} of ada@example.com (${s.ada}): the read model's copy differs from the event log in receipt (the event log holds none)`,
  );
  // Grace's receipt is exported from the log all the same.
  const exported = await cli(['receipts', 'export', '--athlete', 'grace@example.com'], { DATA_DIR: dir });
  assert.is(exported.code, 1);
  assert.is((JSON.parse(exported.stdout) as Row).command_id, s.graceCommitted);
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
