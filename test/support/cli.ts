// Runs the `repledger` CLI as a user would, in its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './app.ts';

const root = join(import.meta.dirname, '..', '..');
export const CLI = join(root, 'cli', 'bin', 'run.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startCli(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/**
 * The modules a CLI run loaded (test/support/module-trace.ts): project files by path, packages by
 * name. Fails loudly on a non-zero exit.
 */
export async function modulesLoaded(args: string[]): Promise<Set<string>> {
  const trace = join(tempDir(), 'modules');
  const child = spawn(process.execPath, ['--import', join(root, 'test/support/module-trace.ts'), CLI, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: tempDir(), MODULE_TRACE_FILE: trace },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`repledger ${args.join(' ')} exited ${code}: ${stderr}`);
  const names = new Set<string>();
  for (const url of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    names.add(pkg ?? url.replace(`file://${root}/`, ''));
  }
  return names;
}

export async function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return startCli(args, env).done;
}

/** Runs a `--json` command and parses what it printed; fails loudly on a non-zero exit. */
export async function cliJson<T>(args: string[], env: Record<string, string>): Promise<T> {
  const r = await cli([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`repledger ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}

/** `athletes create`'s arguments: an athlete in Europe/London with the tests' CLI password. */
export const createAthleteArgs = (email = 'ada@example.com', name = 'Ada', extra: string[] = []) => [
  'athletes',
  'create',
  '--email',
  email,
  '--password',
  'correct horse battery',
  '--display-name',
  name,
  '--timezone',
  'Europe/London',
  ...extra,
];

/** Creates an athlete in the store under `dir` with `athletes create`; their id. */
export async function createAthleteIn(dir: string, email?: string, name?: string): Promise<string> {
  const r = await cli(createAthleteArgs(email, name), { DATA_DIR: dir });
  if (r.code !== 0) throw new Error(`athletes create exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}
