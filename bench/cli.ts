// The CLI's start (issue 18): `repledger --help` and `repledger athletes list` from process start
// to exit, run with the project's Node directly, and a three-year Hevy import (≈450 workouts,
// ≈10,000 rows) as time beyond the start of a command that opens the store (`athletes list`).
// Each figure is the median of REPEATS runs, in a store of its own so the other cases are untouched.
// Beside them, the floors the start cannot go below, run the same way: Node doing nothing, Node
// loading @oclif/core as cli/bin/run.js does, Node opening the store's SQLite file, and Node loading
// @oclif/core and zod and reading that file (what any command that opens the app loads first). And
// the import's own floor: its events appended and the read-model documents it ends with written, in
// one transaction on a fresh store, with no file to read, nothing to parse, decide or project, both
// cold in a process of its own and compiled in this one. And the same import run in-process once
// the process has run it WARM_UPS times already: what the work costs once V8 has compiled it, which
// a CLI process (a fresh V8) never gets to see.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { generateHevyExport } from '../test/fixtures/hevy-export.ts';
import { openApp } from '../services/app.ts';
import { parseHevy } from '../services/import/hevy.ts';
import { importExport } from '../services/import/run.ts';
import { loadConfig } from '../services/config.ts';
import { CHECKPOINTS } from '../projections/runner.ts';
import { registerAthlete, tempDir } from '../test/support/app.ts';
import { timeImportWrites, type ImportWrites } from './import-floor.ts';
import type { LaunchAnswer, LaunchRequest } from './launcher.ts';
import { median } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'cli', 'bin', 'run.js');
const REPEATS = 5;
/** Three years at the fixture's two to three days between sessions. */
const IMPORT_WORKOUTS = 450;
/** In-process imports before the one measured warm; each into an athlete of its own. */
const WARM_UPS = 4;

export const CLI_TARGETS = { startSeconds: 0.25, importBeyondStartSeconds: 0.5 } as const;

export interface CliMeasured {
  nodeSeconds: number;
  oclifSeconds: number;
  sqliteSeconds: number;
  /** Node loading @oclif/core and zod and reading the SQLite file: the floor of `athletes list`. */
  appLibrariesSeconds: number;
  helpSeconds: number;
  athletesListSeconds: number;
  importSeconds: number;
  /**
   * The import's events appended with the documents it ends with written, nothing decided: in this
   * process once compiled (`seconds`) and in a fresh process, cold (`coldSeconds`).
   */
  importFloor: { seconds: number; coldSeconds: number; events: number; documents: number };
  /** In-process, the whole import (read, parse, decide, append, project, commit) after WARM_UPS others. */
  importWarmSeconds: number;
  importRows: number;
  importWorkouts: number;
}

/** Floors: what Node takes to start, to load oclif as the CLI does, and to open the store file. */
const NODE_ONLY = ['-e', '0'];
const OCLIF_ONLY = ['-e', "require('node:module').enableCompileCache(); process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'; require('@oclif/core')"];
const sqliteRead = (dataDir: string) =>
  `new DatabaseSync(${JSON.stringify(join(dataDir, 'repledger.db'))}).prepare('SELECT count(*) FROM sqlite_schema').get()`;
const sqliteOnly = (dataDir: string) => ['-e', `const { DatabaseSync } = require('node:sqlite'); ${sqliteRead(dataDir)}`];
/**
 * The start of any command that opens the app: Node loading what it cannot run without, @oclif/core
 * (as cli/bin/run.js loads it) and zod (the contracts' schemas, which the projections and services
 * are built from), then reading the SQLite file. Nothing of RepLedger's own is loaded.
 */
const appLibraries = (dataDir: string) => [
  '--input-type=module',
  '-e',
  `import { enableCompileCache } from 'node:module'; import { DatabaseSync } from 'node:sqlite'; enableCompileCache(); process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'; await import('@oclif/core'); await import('zod'); ${sqliteRead(dataDir)};`,
];

/**
 * Starts and times the measured processes from a small process of its own (bench/launcher.ts).
 * Starting a process from Node forks its parent first, copying the parent's page tables, which takes
 * longer the more memory the parent holds: when the bench reaches the CLI its own process holds
 * ~1.4 GB (seen in a run of one operation), and `node -e 0` started from a process holding 1.5 GB
 * took 81 ms against 33 ms from one holding 50 MB (medians of 9). That was in every start figure of
 * a run, floors included; a user starts the CLI from a shell.
 */
export class Launcher {
  readonly #child = spawn(process.execPath, [join(ROOT, 'bench', 'launcher.ts')], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  readonly #answers = createInterface({ input: this.#child.stdout! })[Symbol.asyncIterator]();

  /** Node run with `argv` from the project's directory: its wall time and output; a failure throws. */
  async run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ seconds: number; stdout: string }> {
    this.#child.stdin!.write(`${JSON.stringify({ argv, env, cwd: ROOT } satisfies LaunchRequest)}\n`);
    const next = await this.#answers.next();
    if (next.done) throw new Error("the bench's launcher exited");
    const answer = JSON.parse(next.value) as LaunchAnswer;
    if (answer.code !== 0) throw new Error(`node ${argv.join(' ')} exited ${answer.code}: ${answer.stderr}`);
    return answer;
  }

  /** Wall time of one CLI run, process start to exit; a failed run fails the bench. */
  timedRun(args: string[], dataDir: string): Promise<number> {
    return this.timedNode([CLI, ...args], dataDir);
  }

  async timedNode(argv: string[], dataDir: string): Promise<number> {
    return (await this.run(argv, { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' })).seconds;
  }

  close(): void {
    this.#child.stdin!.end();
  }
}

export async function measureCli(): Promise<CliMeasured> {
  const dataDir = tempDir('repledger-bench-cli-');
  const file = join(dataDir, 'hevy.csv');
  const csv = generateHevyExport({ workouts: IMPORT_WORKOUTS, seed: 18 });
  writeFileSync(file, csv);
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  const emails = Array.from({ length: REPEATS }, (_, i) => `import-${i}@bench.example`);
  const warmEmails = Array.from({ length: WARM_UPS + 1 }, (_, i) => `import-warm-${i}@bench.example`);
  try {
    for (const email of [...emails, ...warmEmails]) await registerAthlete(app, { email });
  } finally {
    await app.close();
  }
  const launcher = new Launcher();
  const floors = { node: [] as number[], oclif: [] as number[], sqlite: [] as number[], appLibraries: [] as number[] };
  const help: number[] = [];
  const list: number[] = [];
  const imports: number[] = [];
  let importFloor: CliMeasured['importFloor'];
  try {
    for (let i = 0; i < REPEATS; i++) {
      floors.node.push(await launcher.timedNode(NODE_ONLY, dataDir));
      floors.oclif.push(await launcher.timedNode(OCLIF_ONLY, dataDir));
      floors.sqlite.push(await launcher.timedNode(sqliteOnly(dataDir), dataDir));
      floors.appLibraries.push(await launcher.timedNode(appLibraries(dataDir), dataDir));
      help.push(await launcher.timedRun(['--help'], dataDir));
      list.push(await launcher.timedRun(['athletes', 'list'], dataDir));
      // A fresh athlete each time: a file already imported is skipped, which would measure nothing.
      imports.push(await launcher.timedRun(['import', 'hevy', '--athlete', emails[i]!, '--file', file], dataDir));
    }
    importFloor = await measureImportFloor(launcher, dataDir, await importWrites(dataDir, emails[0]!));
  } finally {
    launcher.close();
  }
  const importWarmSeconds = await measureWarmImport(dataDir, file, warmEmails);
  return {
    importFloor,
    importWarmSeconds,
    nodeSeconds: median(floors.node),
    oclifSeconds: median(floors.oclif),
    sqliteSeconds: median(floors.sqlite),
    appLibrariesSeconds: median(floors.appLibraries),
    helpSeconds: median(help),
    athletesListSeconds: median(list),
    importSeconds: median(imports),
    importRows: csv.trimEnd().split('\n').length - 1,
    importWorkouts: IMPORT_WORKOUTS,
  };
}

/** The events one of the CLI's imports appended and the documents its athlete ends with. */
async function importWrites(dataDir: string, email: string): Promise<ImportWrites> {
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const athleteId = (await app.athletes.byEmail(email))!.athlete_id;
    const events = (await app.events.readStream(`record-${athleteId}`)).map((e) => ({ type: e.type, data: e.data, metadata: e.metadata }));
    const specs = app.runner.collectionSpecs().filter((c) => c.name !== CHECKPOINTS);
    const docs: ImportWrites['docs'] = [];
    for (const { name } of specs)
      for (const { partition, doc } of await app.reads.dump(name)) if (partition === athleteId) docs.push({ collection: name, partition, doc });
    return { specs, events, docs };
  } finally {
    await app.close();
  }
}

/**
 * What any import of that file must at least do once it is read (bench/import-floor.ts), the
 * median of REPEATS, each on a new store: in this process, where the write path is compiled after
 * the first, and each in a process of its own (bench/import-floor-process.ts), cold, as a CLI
 * process runs it.
 */
async function measureImportFloor(launcher: Launcher, dataDir: string, writes: ImportWrites): Promise<CliMeasured['importFloor']> {
  const warm: number[] = [];
  for (let i = 0; i < REPEATS; i++) warm.push(await timeImportWrites(writes, tempDir('repledger-bench-import-floor-')));
  const writesFile = join(dataDir, 'import-writes.json');
  writeFileSync(writesFile, JSON.stringify(writes));
  const cold: number[] = [];
  for (let i = 0; i < REPEATS; i++) cold.push(await coldImportFloor(launcher, writesFile));
  return { seconds: median(warm), coldSeconds: median(cold), events: writes.events.length, documents: writes.docs.length };
}

async function coldImportFloor(launcher: Launcher, writesFile: string): Promise<number> {
  const { stdout } = await launcher.run([join(ROOT, 'bench', 'import-floor-process.ts'), writesFile, tempDir('repledger-bench-import-floor-')]);
  return (JSON.parse(stdout) as { seconds: number }).seconds;
}

/** The import as the CLI runs it, in this process: each athlete in turn, the last one timed. */
async function measureWarmImport(dataDir: string, file: string, emails: string[]): Promise<number> {
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    let seconds = 0;
    for (const email of emails) {
      const started = performance.now();
      const athlete = (await app.athletes.byEmail(email))!;
      await importExport(app, athlete, {
        app: 'hevy',
        fileName: 'hevy.csv',
        bytes: readFileSync(file),
        parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }),
      });
      seconds = (performance.now() - started) / 1000;
    }
    return seconds;
  } finally {
    await app.close();
  }
}

export function formatCli(m: CliMeasured): string {
  const beyond = m.importSeconds - m.athletesListSeconds;
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    `CLI, wall time from process start to exit (median of ${REPEATS}, the project's Node run directly)`,
    `  repledger --help          ${m.helpSeconds.toFixed(3)} s   target <= ${CLI_TARGETS.startSeconds} s: ${verdict(m.helpSeconds <= CLI_TARGETS.startSeconds)}`,
    `  repledger athletes list   ${m.athletesListSeconds.toFixed(3)} s   target <= ${CLI_TARGETS.startSeconds} s: ${verdict(m.athletesListSeconds <= CLI_TARGETS.startSeconds)}`,
    `  import hevy (${m.importWorkouts} workouts, ${m.importRows} rows)  ${m.importSeconds.toFixed(3)} s, ${beyond.toFixed(3)} s beyond the start of athletes list   target < ${CLI_TARGETS.importBeyondStartSeconds} s: ${verdict(beyond < CLI_TARGETS.importBeyondStartSeconds)}`,
    `  floors: node -e 0 ${m.nodeSeconds.toFixed(3)} s; loading @oclif/core ${m.oclifSeconds.toFixed(3)} s; opening the SQLite file ${m.sqliteSeconds.toFixed(3)} s;`,
    `    loading @oclif/core and zod and reading the SQLite file, the libraries of any command that opens the app: ${m.appLibrariesSeconds.toFixed(3)} s`,
    `    the import's ${m.importFloor.events} events appended and the ${m.importFloor.documents} read-model documents it ends with written, in one transaction:`,
    `      cold, each in a process of its own: ${m.importFloor.coldSeconds.toFixed(3)} s; in this process, once compiled: ${m.importFloor.seconds.toFixed(3)} s`,
    `  the whole import in-process, after ${WARM_UPS} imports compiled it: ${m.importWarmSeconds.toFixed(3)} s (a CLI process runs it cold)`,
    // Beside the writes, an import reads its file, parses and checks the rows, decides the events
    // and projects them: what the target leaves for that, cold, against what it costs compiled.
    `  the target less the cold writes leaves ${(CLI_TARGETS.importBeyondStartSeconds - m.importFloor.coldSeconds).toFixed(3)} s to read, parse, decide and project, cold; compiled, that takes ${(m.importWarmSeconds - m.importFloor.seconds).toFixed(3)} s`,
  ].join('\n');
}
