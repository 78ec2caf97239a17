// Peak memory of the auditors' long commands (issue 14): `repledger receipts export` and
// `repledger receipts verify` for an athlete with 1,000 and one with 10,000 imported workouts,
// each with the same number of committed proposals, every command in a process of its own under
// /usr/bin/time, then both for every athlete in one process. Both read a page at a time (the read
// model's proposals; the record stream 100 events at a time), so peak RSS should not grow with the
// history. Also checks that each answered what it should, and counts its progress lines on stderr.
//
//   node bench/receipts-memory.ts        (BENCH_RECEIPTS_DIR=dir keeps the seeded store for a rerun;
//                                         BENCH_RECEIPTS_PROPOSALS=n committed proposals each, default 20)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/identity/caller.ts';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { seedAthlete, todayLocal, trainingHistory, type SeededAthlete } from '../test/support/sample-record.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'cli', 'bin', 'run.js');
const ATHLETES = [
  { label: '1000', email: 'athlete-1000@receipts.example', workouts: 1_000 },
  { label: '10000', email: 'athlete-10000@receipts.example', workouts: 10_000 },
];
const PROPOSALS = Number(process.env.BENCH_RECEIPTS_PROPOSALS ?? 20);
const CHANGES = 5;
const MANIFEST = 'receipts-seed.json';

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Manifest {
  athletes: SeededAthlete[];
  proposals: number;
  events: Record<string, number>;
}

async function seed(dataDir: string): Promise<Manifest> {
  const file = join(dataDir, MANIFEST);
  if (existsSync(file)) {
    progress(`reusing the store seeded in ${dataDir}`);
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  }
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const history = trainingHistory(Math.max(...ATHLETES.map((a) => a.workouts)), todayLocal());
    const manifest: Manifest = { athletes: [], proposals: PROPOSALS, events: {} };
    for (const spec of ATHLETES) {
      const started = performance.now();
      const athlete = await seedAthlete(app, spec, history, dataDir);
      const { password_hash: _hash, ...account } = (await app.athletes.get(athlete.athleteId))!;
      const caller: Caller = {
        athlete: account,
        grantId: randomUUID(),
        clientId: 'bench',
        clientName: 'Bench',
        scopes: ['nutrition'],
        writePermissions: WRITE_PERMISSIONS,
      };
      for (let p = 0; p < PROPOSALS; p++) {
        const body = writeProposalBody.parse({
          version: 'agent-access-write.v1',
          command_id: randomUUID(),
          actions: Array.from({ length: CHANGES }, (_, i) => ({
            op: 'create',
            kind: 'meal',
            record: {
              eaten_at: new Date(Date.now() - (p * CHANGES + i + 1) * 60_000).toISOString(),
              name: `Receipt meal ${p}.${i}`,
              calories_kcal: 500,
              protein_g: 30,
              carbohydrate_g: 60,
              fat_g: 15,
            },
          })),
        });
        await app.proposals.prepare(caller, body);
        const outcome = await app.proposals.approve(athlete.athleteId, body.command_id);
        if (outcome.outcome !== 'committed') throw new Error(`proposal ${p} of ${spec.label} was ${outcome.outcome}`);
      }
      const last = await app.events.streamRevision(`record-${athlete.athleteId}`);
      manifest.athletes.push(athlete);
      manifest.events[spec.label] = last === 'no_stream' ? 0 : last + 1;
      progress(
        `seeded ${spec.workouts} workouts and ${PROPOSALS} committed proposals (${manifest.events[spec.label]} events) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    writeFileSync(file, JSON.stringify(manifest, null, 2));
    return manifest;
  } finally {
    await app.close();
  }
}

interface Run {
  peakRssMb: number;
  seconds: number;
  progressLines: number;
  stdout: string;
  stderr: string;
}

/** One CLI command in its own process under /usr/bin/time: its peak RSS, and what it printed. */
function measure(args: string[], dataDir: string): Promise<Run> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS_KB=%M', process.execPath, CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const kb = /MAXRSS_KB=(\d+)/.exec(stderr)?.[1];
      if (code !== 0 || !kb) return fail(new Error(`repledger ${args.join(' ')} exited ${code}: ${stderr}${stdout}`));
      done({
        peakRssMb: Number(kb) / 1024,
        seconds: (performance.now() - started) / 1000,
        progressLines: stderr.split('\n').filter((l) => /\[.*\] \d+%/.test(l)).length,
        stdout,
        stderr,
      });
    });
  });
}

const dataDir = process.env.BENCH_RECEIPTS_DIR ? resolve(process.env.BENCH_RECEIPTS_DIR) : mkdtempSync(join(tmpdir(), 'repledger-receipts-'));
try {
  const manifest = await seed(dataDir);
  const rows: string[][] = [];
  const floor = await measure(['status', '--json'], dataDir);
  rows.push(['(floor: `status`)', '-', '-', floor.peakRssMb.toFixed(0), floor.seconds.toFixed(1), '-']);
  for (const a of manifest.athletes) {
    const output = join(dataDir, `receipts-${a.label}-${randomUUID()}.jsonl`);
    const exported = await measure(['receipts', 'export', '--athlete', a.email, '--output', output], dataDir);
    const lines = readFileSync(output, 'utf8').trim().split('\n').length;
    rmSync(output);
    if (lines !== manifest.proposals) throw new Error(`export of ${a.label} wrote ${lines} receipts, not ${manifest.proposals}`);
    rows.push([
      'receipts export',
      a.label,
      String(manifest.events[a.label]),
      exported.peakRssMb.toFixed(0),
      exported.seconds.toFixed(1),
      String(exported.progressLines),
    ]);
    const verified = await measure(['receipts', 'verify', '--athlete', a.email], dataDir);
    if (!new RegExp(`${manifest.proposals} link\\(s\\) hold`).test(verified.stdout)) throw new Error(`verify of ${a.label}: ${verified.stdout}`);
    rows.push([
      'receipts verify',
      a.label,
      String(manifest.events[a.label]),
      verified.peakRssMb.toFixed(0),
      verified.seconds.toFixed(1),
      String(verified.progressLines),
    ]);
  }
  // Every athlete in one process: more events than the longest stream, the same bound.
  const events = Object.values(manifest.events).reduce((a, b) => a + b, 0);
  const output = join(dataDir, `receipts-all-${randomUUID()}.jsonl`);
  const all = await measure(['receipts', 'export', '--output', output], dataDir);
  rmSync(output);
  rows.push(['receipts export (all)', 'both', String(events), all.peakRssMb.toFixed(0), all.seconds.toFixed(1), String(all.progressLines)]);
  const allVerified = await measure(['receipts', 'verify'], dataDir);
  if (!/2 receipt chain\(s\) verified/.test(allVerified.stdout)) throw new Error(`verify of all: ${allVerified.stdout}`);
  rows.push([
    'receipts verify (all)',
    'both',
    String(events),
    allVerified.peakRssMb.toFixed(0),
    allVerified.seconds.toFixed(1),
    String(allVerified.progressLines),
  ]);
  console.log(
    `\n${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${manifest.proposals} committed proposals of ${CHANGES} changes per athlete\n`,
  );
  const header = ['command', 'workouts', 'stream events', 'peak RSS MB', 's', 'progress lines'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
} finally {
  if (!process.env.BENCH_RECEIPTS_DIR) rmSync(dataDir, { recursive: true, force: true });
}
