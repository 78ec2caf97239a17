// Starts the commands bench/cli.ts times, and times them, from a process that holds next to
// nothing (see `Launcher` there). One request a line on stdin, its answer a line on stdout, in order.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LaunchRequest {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface LaunchAnswer {
  /** Wall time from the spawn to the process's exit. */
  seconds: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch({ argv, env, cwd }: LaunchRequest): Promise<LaunchAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ seconds: 0, code: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => resolve({ seconds: (performance.now() - started) / 1000, code, stdout, stderr }));
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify(await launch(JSON.parse(line) as LaunchRequest))}\n`);
}
