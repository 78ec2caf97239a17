// The CLI's start (issue 18): `repledger --help` and `repledger athletes list` from process start
// to exit, run with the project's Node directly, and a three-year Hevy import (≈450 workouts,
// ≈10,000 rows) as time beyond the start of a command that opens the store (`athletes list`).
// Each figure is the median of REPEATS runs, in a store of its own so the other cases are untouched.
// Beside them, the floors the start cannot go below, run the same way: Node doing nothing, Node
// loading @oclif/core as cli/bin/run.js does, and Node opening the store's SQLite file.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateHevyExport } from '../test/fixtures/hevy-export.ts';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { registerAthlete, tempDir } from '../test/support/app.ts';
import { median } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'cli', 'bin', 'run.js');
const REPEATS = 5;
/** Three years at the fixture's two to three days between sessions. */
const IMPORT_WORKOUTS = 450;

export const CLI_TARGETS = { startSeconds: 0.25, importBeyondStartSeconds: 0.5 } as const;

export interface CliMeasured {
  nodeSeconds: number;
  oclifSeconds: number;
  sqliteSeconds: number;
  helpSeconds: number;
  athletesListSeconds: number;
  importSeconds: number;
  importRows: number;
  importWorkouts: number;
}

/** Floors: what Node takes to start, to load oclif as the CLI does, and to open the store file. */
const NODE_ONLY = ['-e', '0'];
const OCLIF_ONLY = ['-e', "require('node:module').enableCompileCache(); process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'; require('@oclif/core')"];
const sqliteOnly = (dataDir: string) => ['-e', `new (require('node:sqlite').DatabaseSync)(${JSON.stringify(join(dataDir, 'repledger.db'))}).prepare('SELECT count(*) FROM sqlite_schema').get()`];

/** Wall time of one CLI run, process start to exit; a failed run fails the bench. */
function timedRun(args: string[], dataDir: string): Promise<number> {
  return timedNode([CLI, ...args], dataDir);
}

function timedNode(argv: string[], dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`node ${argv.join(' ')} exited ${code}: ${stderr}`))));
  });
}

export async function measureCli(): Promise<CliMeasured> {
  const dataDir = tempDir('repledger-bench-cli-');
  const file = join(dataDir, 'hevy.csv');
  const csv = generateHevyExport({ workouts: IMPORT_WORKOUTS, seed: 18 });
  writeFileSync(file, csv);
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  const emails = Array.from({ length: REPEATS }, (_, i) => `import-${i}@bench.example`);
  try {
    for (const email of emails) await registerAthlete(app, { email });
  } finally {
    await app.close();
  }
  const floors = { node: [] as number[], oclif: [] as number[], sqlite: [] as number[] };
  const help: number[] = [];
  const list: number[] = [];
  const imports: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    floors.node.push(await timedNode(NODE_ONLY, dataDir));
    floors.oclif.push(await timedNode(OCLIF_ONLY, dataDir));
    floors.sqlite.push(await timedNode(sqliteOnly(dataDir), dataDir));
    help.push(await timedRun(['--help'], dataDir));
    list.push(await timedRun(['athletes', 'list'], dataDir));
    // A fresh athlete each time: a file already imported is skipped, which would measure nothing.
    imports.push(await timedRun(['import', 'hevy', '--athlete', emails[i]!, '--file', file], dataDir));
  }
  return {
    nodeSeconds: median(floors.node),
    oclifSeconds: median(floors.oclif),
    sqliteSeconds: median(floors.sqlite),
    helpSeconds: median(help),
    athletesListSeconds: median(list),
    importSeconds: median(imports),
    importRows: csv.trimEnd().split('\n').length - 1,
    importWorkouts: IMPORT_WORKOUTS,
  };
}

export function formatCli(m: CliMeasured): string {
  const beyond = m.importSeconds - m.athletesListSeconds;
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    `CLI, wall time from process start to exit (median of ${REPEATS}, the project's Node run directly)`,
    `  repledger --help          ${m.helpSeconds.toFixed(3)} s   target <= ${CLI_TARGETS.startSeconds} s: ${verdict(m.helpSeconds <= CLI_TARGETS.startSeconds)}`,
    `  repledger athletes list   ${m.athletesListSeconds.toFixed(3)} s   target <= ${CLI_TARGETS.startSeconds} s: ${verdict(m.athletesListSeconds <= CLI_TARGETS.startSeconds)}`,
    `  import hevy (${m.importWorkouts} workouts, ${m.importRows} rows)  ${m.importSeconds.toFixed(3)} s, ${beyond.toFixed(3)} s beyond the start of athletes list   target < ${CLI_TARGETS.importBeyondStartSeconds} s: ${verdict(beyond < CLI_TARGETS.importBeyondStartSeconds)}`,
    `  floors: node -e 0 ${m.nodeSeconds.toFixed(3)} s; loading @oclif/core ${m.oclifSeconds.toFixed(3)} s; opening the SQLite file ${m.sqliteSeconds.toFixed(3)} s`,
  ].join('\n');
}
