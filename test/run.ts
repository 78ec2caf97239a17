// Runs every test file in its own Node process (three at a time on two cores: many files wait on
// the processes, browsers and servers they start; TEST_JOBS changes it),
// prints each file's output, and ends with one summary line: `N passed, N failed, N skipped`.
// Each file gets a temporary directory of its own (TMPDIR) inside one made for this run, which is
// removed at the end: nothing of the run is left in the system's temporary directory.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
/**
 * A file that runs longer than this is stopped and counted as failed, by name: a hung loop must
 * not run a CI job to its limit. The slowest file takes under a minute on a loaded 2-core machine.
 */
const FILE_LIMIT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);

function findTests(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : findTests(path);
      return name.endsWith('.test.ts') ? [path] : [];
    });
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * This run's own temporary directory: each file's TMPDIR is a folder in it, so that what a file,
 * or a process it starts (the CLI, a server, Chromium's profile), leaves behind is known to be
 * this run's and is removed with it, whatever the file did.
 */
const runTmp = mkdtempSync(join(tmpdir(), 'repledger-test-run-'));
// On every way out: the end of the run, a signal (which exits below), a crash of the runner.
process.once('exit', () => rmSync(runTmp, { recursive: true, force: true }));
/** The CLI's compile cache (cli/bin/run.js), shared by the run's files rather than made again in each. */
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(runTmp, 'node-compile-cache');

/** Process groups of the files running now, stopped with the runner if it is stopped. */
const running = new Set<number>();
const stopGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const pid of running) stopGroup(pid);
    process.exit(1);
  });
}

/** What a file left in its temporary directory (each test should remove what it made); then removes it. */
function sweep(dir: string): string[] {
  let left: string[] = [];
  try {
    left = readdirSync(dir).sort();
  } catch {
    // Never made, or already gone.
  }
  rmSync(dir, { recursive: true, force: true });
  return left;
}

function runFile(file: string, index: number): Promise<FileResult> {
  return new Promise((resolve) => {
    const fileTmp = join(runTmp, String(index));
    mkdirSync(fileTmp);
    // Its own process group, so that stopping it also stops what it started (servers, browsers).
    // A cheaper password hash (services/identity/password.ts): the production cost is checked on its own.
    const env = { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test', REPLEDGER_TEST_SCRYPT_N: '16384', TMPDIR: fileTmp, NODE_COMPILE_CACHE: compileCache };
    const child = spawn(process.execPath, [file], { cwd: root, env, detached: true });
    running.add(child.pid!);
    let output = '';
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid!);
    }, FILE_LIMIT_MS);
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => {
      clearTimeout(limit);
      running.delete(child.pid!);
      const rel = relative(root, file);
      const left = sweep(fileTmp);
      if (left.length)
        output += `\nleft in its temporary directory (removed by the runner): ${left.slice(0, 10).join(', ')}${left.length > 10 ? `, and ${left.length - 10} more` : ''}\n`;
      if (timedOut) {
        resolve({
          file: rel,
          passed: 0,
          failed: 1,
          skipped: 0,
          output: `${output}\nstopped: ${rel} ran longer than ${FILE_LIMIT_MS / 1000} s (TEST_FILE_TIMEOUT_MS)\n`,
        });
        return;
      }
      const plain = output.replace(ANSI, '');
      const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN);
      const total = num('Total');
      const passed = num('Passed');
      const skipped = num('Skipped');
      if (Number.isNaN(total)) {
        // The file crashed before uvu could report: count it as one failure, never as silence.
        resolve({ file: rel, passed: 0, failed: 1, skipped: 0, output });
      } else if (total + skipped === 0) {
        // A file that registers no test (a forgotten `test(...)`, tests behind a condition that is
        // never true) checks nothing: it fails, by name, rather than read as "ok".
        resolve({ file: rel, passed: 0, failed: 1, skipped: 0, output: `${output}\nno tests: ${rel} registered no test (uvu reported Total: 0)\n` });
      } else {
        const failed = total - passed + (code !== 0 && total === passed ? 1 : 0);
        resolve({ file: rel, passed, failed, skipped, output });
      }
    });
  });
}

/**
 * The files that take longest (browsers, large records, many CLI processes) start first: run last,
 * alphabetically, one of them would leave the other workers idle at the end of the run.
 */
const SLOW_FIRST = [/web\/browser-record/, /web\/hardening/, /cli\/import\./, /round-trip/, /web\/browser-/, /web\//, /cli\//, /projections\//];
const slowness = (file: string) => {
  const i = SLOW_FIRST.findIndex((pattern) => pattern.test(file));
  return i === -1 ? SLOW_FIRST.length : i;
};
const files = findTests(join(root, 'test'))
  .filter((f) => !filter || filter.test(f))
  .sort((a, b) => slowness(a) - slowness(b));
const results: FileResult[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < files.length) {
    const index = next++;
    const result = await runFile(files[index]!, index);
    results.push(result);
    const status = result.failed ? 'FAIL' : 'ok  ';
    process.stdout.write(`\n${status} ${result.file}  (${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped)\n`);
    process.stdout.write(`${result.output.replace(/^/gm, '    ')}\n`);
  }
}
const JOBS = Math.max(1, Number(process.env.TEST_JOBS ?? 3));
await Promise.all(Array.from({ length: JOBS }, worker));

const sum = (k: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[k], 0);
const failedFiles = results.filter((r) => r.failed).map((r) => r.file);
if (failedFiles.length) console.log(`\nFailing files:\n${failedFiles.map((f) => `  ${f}`).join('\n')}`);
console.log(`\n${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
process.exitCode = sum('failed') > 0 || files.length === 0 ? 1 : 0;
