// `repledger backup` and `repledger restore` as an operator runs them. A backup taken while another
// process commits proposals and imports restores into an empty directory as the source stood at
// the backup's position: the same log, every read model, every receipt chain head, the proposal
// and OAuth keys, and `receipts verify` passes on it. A backup with a flipped byte, cut short, or
// whose manifest was edited is refused naming what is wrong, and the target stays empty; so is one
// whose files and manifest agree but whose read models or chain heads do not (sealed again after
// tampering), which only the proofs can catch. A backup or restore killed with SIGKILL midway leaves
// nothing in place, and the next one removes what it left; a missing or unreadable OAuth keys file
// refuses the backup.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyChains } from '../../services/audit/audit.ts';
import type { App } from '../../services/app.ts';
import { fileEntryOf } from '../../services/backup/files.ts';
import { type ChainHead, headProblems, type Manifest, sealManifest } from '../../services/backup/manifest.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { importExport } from '../../services/import/run.ts';
import { loadOrCreateKeys } from '../../services/oauth/keys.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { dumpReadModels, openTestApp, tempDir } from '../support/app.ts';
import { cli, startCli } from '../support/cli.ts';
import { registerPro } from '../support/connect.ts';
import { seedRecord } from '../support/writes.ts';

const root = tempDir('repledger-backup-');
const source = join(root, 'source');
const backup = join(root, 'backup');
const restored = join(root, 'restored');
let manifest: Manifest;
let position = 0;

interface Failed {
  error: { code: string; message: string };
}

async function heads(app: App) {
  const { chains } = await verifyChains(app, undefined, () => undefined);
  return chains
    .map((c) => ({ athlete_id: c.athlete_id, links: c.links, digest: c.head?.digest ?? null }))
    .sort((a, b) => a.athlete_id.localeCompare(b.athlete_id));
}

/** An empty directory to restore into; anything left in it or beside it afterwards is a half-restore. */
function emptyTarget(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

function assertLeftEmpty(dir: string): void {
  assert.equal(readdirSync(dir), [], `${dir} stays empty`);
  assert.equal(
    readdirSync(root).filter((n) => n.includes('.restore-')),
    [],
    'no staging folder is left beside it',
  );
}

async function refusedRestore(backupDir: string, name: string): Promise<string> {
  const target = emptyTarget(name);
  const r = await cli(['restore', '--file', backupDir, '--json'], { DATA_DIR: target });
  assert.is(r.code, 2, `refused with exit 2: ${r.stderr}${r.stdout}`);
  const failed = JSON.parse(r.stdout) as Failed;
  assert.is(failed.error.code, 'invalid_input');
  assertLeftEmpty(target);
  return failed.error.message;
}

/** A copy of the good backup, changed by `damage`. */
function damagedCopy(name: string, damage: (dir: string) => void): string {
  const dir = join(root, name);
  cpSync(backup, dir, { recursive: true });
  damage(dir);
  return dir;
}

test.before(async () => {
  const t = await openTestApp({ dataDir: source });
  let athleteId: string;
  try {
    athleteId = await registerPro(t.app);
    await seedRecord(t.app, athleteId);
    // Enough history that the copy takes more than an instant.
    await importExport(t.app, (await t.app.athletes.get(athleteId))!, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes: Buffer.from(generateHevyExport({ workouts: 200, seed: 11 })),
      parse: (text, who) => parseHevy(text, { timezone: who.profile.timezone }),
    });
  } finally {
    await t.close();
  }
  loadOrCreateKeys(join(source, 'secrets', 'oauth-keys.json'));

  const writer = spawn(process.execPath, [join(import.meta.dirname, '..', 'support', 'backup-writer.ts'), source, athleteId], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: writer.stdout! })[Symbol.asyncIterator]();
  const next = async () =>
    JSON.parse(((await lines.next()).value as string | undefined) ?? 'null') as { kind?: string; position?: number; done?: unknown } | string;
  assert.is(await next(), 'ready');
  // Proposals and an import committed before the backup starts.
  const kinds = new Set<string>();
  while (kinds.size < 2) {
    const line = await next();
    if (typeof line === 'object' && line?.kind) kinds.add(line.kind);
  }
  let running = true;
  let duringBackup = 0;
  let lastCommitted = 0;
  const counting = (async () => {
    for (;;) {
      const line = await next();
      if (line === null || typeof line !== 'object' || line.done) return;
      lastCommitted = line.position ?? lastCommitted;
      if (running) duringBackup++;
    }
  })();
  const b = startCli(['backup', '--file', backup, '--step-pages', '8', '--json'], { DATA_DIR: source });
  const r = await b.done;
  running = false;
  assert.is(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout) as { file: string; manifest: Manifest };
  manifest = answer.manifest;
  position = manifest.last_position;
  // A writer committed while the backup ran: the backup never stopped it.
  assert.ok(duringBackup > 0, 'the writer committed while the backup ran');
  writer.stdin!.end();
  await counting;
  await new Promise((resolve) => writer.once('close', resolve));
  assert.ok(lastCommitted > position, 'the log went on past the backup');
});

test('the backup is a folder: the store, the OAuth keys and a manifest saying where the log stood', async () => {
  assert.equal(readdirSync(backup).sort(), ['manifest.json', 'oauth-keys.json', 'repledger.db']);
  assert.equal(JSON.parse(readFileSync(join(backup, 'manifest.json'), 'utf8')), manifest);
  const keys = readFileSync(join(source, 'secrets', 'oauth-keys.json'));
  assert.equal(readFileSync(join(backup, 'oauth-keys.json')), keys, 'the OAuth keys file as it is');
  assert.equal(manifest.files['oauth-keys.json'], await fileEntryOf(join(source, 'secrets', 'oauth-keys.json')), 'and as the manifest says');
  assert.is(manifest.format, 'repledger.backup.v1');
  assert.ok(manifest.events > 0 && manifest.proposal_keys > 0);
  assert.ok(
    manifest.chains.some((c) => c.links > 0 && c.digest),
    'a chain with links',
  );
});

test('restore into an empty directory: the source as it stood at the backup, and receipts verify passes', async () => {
  const r = await cli(['restore', '--file', backup, '--json'], { DATA_DIR: restored });
  assert.is(r.code, 0, r.stderr + r.stdout);
  const result = JSON.parse(r.stdout) as { events: number; last_position: number; chains: number; collections: number; oauth_keys_file: string };
  assert.is(result.last_position, position);
  assert.ok(result.collections > 10);
  assert.equal(readFileSync(result.oauth_keys_file), readFileSync(join(source, 'secrets', 'oauth-keys.json')), 'the OAuth keys');

  // The source at the backup's position: its log cut back to it, every read model rebuilt from that.
  const reference = join(root, 'reference');
  mkdirSync(reference);
  copyFileSync(join(source, 'repledger.db'), join(reference, 'repledger.db'));
  const cut = new DatabaseSync(join(reference, 'repledger.db'));
  cut.prepare('DELETE FROM events WHERE position > ?').run(position);
  const sourceKeys = cut.prepare('SELECT id, key FROM proposal_keys ORDER BY id').all() as Array<{ id: string; key: Uint8Array }>;
  cut.close();
  const ref = await openTestApp({ dataDir: reference });
  const back = await openTestApp({ dataDir: restored });
  try {
    await ref.app.runner.replay();
    assert.equal(await back.app.events.readAll(0, 1_000_000), await ref.app.events.readAll(0, 1_000_000), 'the same log');
    assert.is((await back.app.events.readAll(0, 1_000_000)).length, manifest.events);
    assert.equal(await dumpReadModels(back.app), await dumpReadModels(ref.app), 'every read model');
    const restoredHeads = await heads(back.app);
    assert.equal(restoredHeads, await heads(ref.app), 'every receipt chain head');
    // The manifest reads chains off the log, the app off the athletes read model: an athlete the
    // writer registered just before the snapshot, whose first record was not yet committed, is an
    // empty chain to one and absent from the other. Restore treats both alike (`headProblems`).
    const linked = (hs: readonly ChainHead[]) => hs.filter((h) => h.links > 0).sort((a, b) => a.athlete_id.localeCompare(b.athlete_id));
    assert.equal(linked(restoredHeads), linked(manifest.chains), "the manifest's heads");
    assert.equal(headProblems(manifest.chains, restoredHeads), [], 'restore finds no difference');
  } finally {
    await back.close();
    await ref.close();
  }
  const keys = new DatabaseSync(join(restored, 'repledger.db'), { readOnly: true });
  const restoredKeys = keys.prepare('SELECT id, key FROM proposal_keys ORDER BY id').all() as Array<{ id: string; key: Uint8Array }>;
  keys.close();
  assert.is(restoredKeys.length, manifest.proposal_keys);
  const byId = new Map(sourceKeys.map((k) => [k.id, Buffer.from(k.key).toString('hex')]));
  for (const k of restoredKeys) assert.is(Buffer.from(k.key).toString('hex'), byId.get(k.id), `proposal key ${k.id}`);

  const verify = await cli(['receipts', 'verify', '--json'], { DATA_DIR: restored });
  assert.is(verify.code, 0, verify.stderr);
  assert.is((JSON.parse(verify.stdout) as { ok: boolean }).ok, true);
});

test('a non-empty data directory is refused, and left as it was', async () => {
  const r = await cli(['restore', '--file', backup, '--json'], { DATA_DIR: restored });
  assert.is(r.code, 2);
  const failed = JSON.parse(r.stdout) as Failed;
  assert.is(failed.error.code, 'invalid_input');
  assert.match(failed.error.message, 'is not empty');
  assert.match(failed.error.message, 'repledger.db');
});

test('one flipped byte in the store is refused, naming the file; the target stays empty', async () => {
  const dir = damagedCopy('flipped', (d) => {
    const path = join(d, 'repledger.db');
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(path, bytes);
  });
  assert.match(await refusedRestore(dir, 'after-flip'), /repledger\.db does not match its SHA-256/);
});

test('a backup cut short is refused as cut short; the target stays empty', async () => {
  const dir = damagedCopy('cut', (d) => truncateSync(join(d, 'repledger.db'), manifest.files['repledger.db'].bytes - 4096));
  assert.match(await refusedRestore(dir, 'after-cut'), /repledger\.db is \d+ bytes, the manifest says \d+: cut short/);
  const noManifest = damagedCopy('cut-manifest', (d) => truncateSync(join(d, 'manifest.json'), 100));
  assert.match(await refusedRestore(noManifest, 'after-cut-manifest'), /manifest\.json is not JSON/);
});

test('an edited manifest is refused by its checksum', async () => {
  const dir = damagedCopy('edited', (d) => {
    const m = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as Manifest;
    writeFileSync(join(d, 'manifest.json'), JSON.stringify({ ...m, last_position: m.last_position + 1 }));
  });
  assert.match(await refusedRestore(dir, 'after-edit'), /manifest\.json does not match its checksum/);
});

/** A copy whose store `change` altered, with the manifest sealed again to match: the files' checks pass, the proofs must not. */
async function resealed(name: string, change: (db: DatabaseSync) => void, over: Partial<Manifest> = {}): Promise<string> {
  const dir = damagedCopy(name, () => undefined);
  const db = new DatabaseSync(join(dir, 'repledger.db'));
  change(db);
  db.close();
  const { checksum: _c, ...body } = manifest;
  const entry = (await fileEntryOf(join(dir, 'repledger.db')))!;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(sealManifest({ ...body, ...over, files: { ...body.files, 'repledger.db': entry } })));
  return dir;
}

test('read models that a replay does not give are refused, naming the collection', async () => {
  const dir = await resealed('tampered-read-model', (db) => {
    const row = db.prepare('SELECT rowid, doc FROM rm_workouts LIMIT 1').get() as { rowid: number; doc: string };
    db.prepare('UPDATE rm_workouts SET doc = ? WHERE rowid = ?').run(JSON.stringify({ ...JSON.parse(row.doc), title: 'Not in the log' }), row.rowid);
  });
  assert.match(await refusedRestore(dir, 'after-read-model'), /a replay of the log does not give the read models the backup brought: .*workouts/);
});

test("receipt chain heads other than the manifest's are refused", async () => {
  const chains = manifest.chains.map((c) => (c.links > 0 ? { ...c, digest: '0'.repeat(64) } : c));
  const dir = await resealed('other-heads', () => undefined, { chains });
  assert.match(await refusedRestore(dir, 'after-heads'), /receipt chain head is [0-9a-f]{64} after \d+ link\(s\), the manifest says 0{64}/);
});

/** Resolves once the command has written `pattern` to stderr (a progress line); fails if it ends first. */
function stderrShows(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const read = (d: Buffer) => {
      seen += d.toString();
      if (!pattern.test(seen)) return;
      child.stderr!.off('data', read);
      resolve();
    };
    child.stderr!.on('data', read);
    child.once('close', () => reject(new Error(`the command ended before writing ${pattern} to stderr: ${seen}`)));
  });
}

test('a backup killed with SIGKILL while it copies leaves nothing at its path, and nothing restore takes for a backup', async () => {
  const target = join(root, 'killed-backup');
  // One page a step: the first progress line comes with most of the store still to copy.
  const run = startCli(['backup', '--file', target, '--step-pages', '1'], { DATA_DIR: source });
  await stderrShows(run.child, /Backing up/);
  run.child.kill('SIGKILL');
  const r = await run.done;
  assert.is(r.signal, 'SIGKILL', `killed, not ended: ${r.stderr}`);
  assert.not.ok(existsSync(target), 'no folder at the path');
  // No handler runs on SIGKILL, so the staging folder stays: it shows the kill came after the copy
  // began and before the backup was whole, rather than after a backup that was quicker than the kill.
  const staging = join(root, `.killed-backup.partial-${run.child.pid}`);
  assert.ok(existsSync(join(staging, 'repledger.db')), 'the copy had begun');
  assert.not.ok(existsSync(join(staging, 'manifest.json')), 'the backup was not whole');
  assert.match(await refusedRestore(staging, 'after-killed-backup'), /it has no manifest\.json/);
});

/** The staging folders beside `name` in the test's folder. */
function stagingBeside(name: string, label: 'partial' | 'restore'): string[] {
  return readdirSync(root).filter((n) => n.startsWith(`.${name}.${label}-`));
}

/** A staging folder named by this test's process, which is alive: one another backup or restore is building. */
function runningStaging(name: string, label: 'partial' | 'restore'): string {
  const dir = join(root, `.${name}.${label}-${process.pid}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'repledger.db'), 'still being written');
  return dir;
}

test("the next backup to that path removes the killed one's staging folder, and leaves a running one's alone", async () => {
  assert.is(stagingBeside('killed-backup', 'partial').length, 1, 'the killed backup left its staging folder');
  const running = runningStaging('killed-backup', 'partial');
  const r = await cli(['backup', '--file', join(root, 'killed-backup'), '--json'], { DATA_DIR: source });
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.ok(existsSync(join(root, 'killed-backup', 'manifest.json')), 'backed up');
  assert.equal(stagingBeside('killed-backup', 'partial'), [basename(running)], "only the running one's is left");
  assert.is(readFileSync(join(running, 'repledger.db'), 'utf8'), 'still being written');
  rmSync(running, { recursive: true });
});

test('a restore killed with SIGKILL while it verifies leaves the data directory empty', async () => {
  const target = emptyTarget('killed-restore');
  const run = startCli(['restore', '--file', backup], { DATA_DIR: target });
  await stderrShows(run.child, /Verifying receipt chains/);
  run.child.kill('SIGKILL');
  const r = await run.done;
  assert.is(r.signal, 'SIGKILL', `killed, not ended: ${r.stderr}`);
  assert.equal(readdirSync(target), [], `${target} stays empty`);
  assert.ok(existsSync(join(root, `.killed-restore.restore-${run.child.pid}`, 'repledger.db')), 'killed before its staging folder was renamed into place');
});

test("the next restore into that directory removes the killed one's staging folder, leaves a running one's alone, and restores", async () => {
  assert.is(stagingBeside('killed-restore', 'restore').length, 1, 'the killed restore left its staging folder');
  const running = runningStaging('killed-restore', 'restore');
  const r = await cli(['restore', '--file', backup, '--json'], { DATA_DIR: join(root, 'killed-restore') });
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.is((JSON.parse(r.stdout) as { last_position: number }).last_position, position, 'restored');
  assert.equal(stagingBeside('killed-restore', 'restore'), [basename(running)], "only the running one's is left");
  assert.is(readFileSync(join(running, 'repledger.db'), 'utf8'), 'still being written');
  rmSync(running, { recursive: true });
});

test('an OAuth keys file missing or unreadable refuses the backup, naming it, and leaves nothing', async () => {
  const cases: Array<[string, string, RegExp]> = [
    [join(root, 'no-such-keys.json'), 'not_found', /there is no OAuth keys file at \S*no-such-keys\.json/],
    // A directory where the file should be, not a file of mode 000: the root user reads that anyway.
    [root, 'invalid_input', /cannot read the OAuth keys file \S+ to back up \(EISDIR/],
  ];
  for (const [keys, code, message] of cases) {
    const r = await cli(['backup', '--file', join(root, 'without-keys'), '--json'], { DATA_DIR: source, OAUTH_KEYS_FILE: keys });
    assert.is(r.code, 2, `refused with exit 2: ${r.stderr}${r.stdout}`);
    const failed = JSON.parse(r.stdout) as Failed;
    assert.is(failed.error.code, code);
    assert.match(failed.error.message, message);
    assert.not.ok(existsSync(join(root, 'without-keys')), 'no backup');
    assert.equal(stagingBeside('without-keys', 'partial'), [], 'no staging folder');
  }
});

test("distributed mode: backup and restore refuse, pointing at KurrentDB's own backup", async () => {
  for (const args of [
    ['backup', '--file', join(root, 'never')],
    ['restore', '--file', backup],
  ]) {
    const r = await cli([...args, '--json'], {
      DATA_DIR: emptyTarget(`distributed-${args[0]}`),
      KURRENTDB_URL: 'kurrentdb://localhost:2113?tls=false',
      MONGODB_URL: 'mongodb://localhost:27017',
    });
    assert.is(r.code, 2);
    const failed = JSON.parse(r.stdout) as Failed;
    assert.is(failed.error.code, 'not_supported');
    assert.match(failed.error.message, 'KurrentDB with its own backup procedure');
  }
  assert.not.ok(existsSync(join(root, 'never')));
});

test.run();
