// `npm run bench -- backup`: a backup of the seeded store (the 10,000-workout athlete's among them)
// while `repledger serve` answers reads, on the embedded store. Another process
// (bench/import-stall-reader.ts) reads a page of the 10,000-workout athlete's workouts through
// the Read API back to back for the whole run. The read's p99 over the seconds before the backup
// (idle) is set against its p99 over the reads sent while the backup ran (`takeBackup`, in this
// process, as `repledger backup` runs it); the backup's time is set against copying the store's
// files (repledger.db and its WAL) with nothing else to do. Then the backup is restored (the
// proofs included) into a fresh directory, for its time. All figures come from the same run.
import { figures, type ReadFigures } from './import-stall.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { takeBackup, STORE_FILE } from '../services/backup/backup.ts';
import { restoreBackup } from '../services/backup/restore.ts';
import { loadConfig } from '../services/config.ts';
import { tempDir } from '../test/support/app.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** How long the reads are measured with nothing else going on, before the backup. */
const IDLE_MS = 3000;
const READ_PATH = '/api/v1/workouts?limit=10';

export interface BackupFigures {
  storeBytes: number;
  events: number;
  backupSeconds: number;
  /** The backup's own phases: pages copied, chain heads recomputed from the copy, files hashed. */
  phases: { copy: number; chains: number; checksums: number };
  copySeconds: number;
  restoreSeconds: number;
  idle: ReadFigures;
  backingUp: ReadFigures;
}

const epochMs = () => performance.timeOrigin + performance.now();

export async function measureBackup(base: string, dataDir: string, botToken: string, progress: (line: string) => void): Promise<BackupFigures> {
  const out = tempDir('repledger-bench-backup-');
  let reader: ChildProcess | null = null;
  try {
    const readerProcess = spawn(process.execPath, [join(ROOT, 'bench', 'import-stall-reader.ts'), `${base}${READ_PATH}`, botToken], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    reader = readerProcess;
    const lines = createInterface({ input: readerProcess.stdout })[Symbol.asyncIterator]();
    if ((await lines.next()).value !== 'warm') throw new Error('the reader did not warm up');
    const idleFrom = epochMs();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleTo = epochMs();
    progress('backing up while the reader reads');
    const backupFrom = epochMs();
    const backup = await takeBackup(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), join(out, 'backup'));
    const backupTo = epochMs();
    readerProcess.stdin.end();
    const samples = JSON.parse((await lines.next()).value as string) as Array<[number, number]>;

    // The floor: the same bytes copied by the file system, nothing read through SQLite.
    const copyFrom = performance.now();
    for (const suffix of ['', '-wal']) {
      const file = join(dataDir, `${STORE_FILE}${suffix}`);
      if (existsSync(file)) copyFileSync(file, join(out, `copy${suffix}`));
    }
    const copySeconds = (performance.now() - copyFrom) / 1000;

    progress('restoring the backup (with its proofs)');
    const restoreFrom = performance.now();
    await restoreBackup(loadConfig({ DATA_DIR: join(out, 'restored'), LOG_LEVEL: 'silent' }), backup.file);
    const restoreSeconds = (performance.now() - restoreFrom) / 1000;
    return {
      storeBytes: backup.manifest.files['repledger.db'].bytes,
      events: backup.manifest.events,
      backupSeconds: (backupTo - backupFrom) / 1000,
      phases: backup.seconds,
      copySeconds,
      restoreSeconds,
      idle: figures(samples, [idleFrom, idleTo]),
      backingUp: figures(samples, [backupFrom, backupTo]),
    };
  } finally {
    if (reader && reader.exitCode === null) reader.kill();
    rmSync(out, { recursive: true, force: true });
  }
}

export function formatBackup(f: BackupFigures): string {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const row = (r: ReadFigures) => `p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)} (${r.requests} reads)`;
  return [
    `repledger backup of the seeded store (${(f.storeBytes / 1024 / 1024).toFixed(0)} MB, ${f.events} events; the 10,000-workout athlete's record among them) while the service answers GET ${READ_PATH} of that athlete back to back, from another process:`,
    `  backup: ${f.backupSeconds.toFixed(2)} s; copying the store's files: ${f.copySeconds.toFixed(2)} s; backup / copy: ${(f.backupSeconds / f.copySeconds).toFixed(2)}x`,
    `    of which: copying pages ${f.phases.copy.toFixed(2)} s, receipt chain heads from the copy ${f.phases.chains.toFixed(2)} s, SHA-256 of the files ${f.phases.checksums.toFixed(2)} s`,
    `  reads idle:             ${row(f.idle)}`,
    `  reads while backing up: ${row(f.backingUp)}`,
    `  a read's p99 while backing up, against idle: ${(f.backingUp.p99Ms / f.idle.p99Ms).toFixed(2)}x`,
    `  restore of that backup, proofs included (receipt chains, a replay of every projection): ${f.restoreSeconds.toFixed(1)} s`,
  ].join('\n');
}
