// The real server, as it is deployed: `repledger serve` in a process of its own on the seeded
// data directory.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * A port that was free a moment ago. `serve` builds its OAuth issuer from BASE_URL before it
 * listens, so the bench must name the port first (PORT=0 would leave BASE_URL unknown); another
 * process could take the port in between, which on a machine running the bench alone does not
 * happen. The tests listen on port 0 instead (test/support/server.ts).
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The caps on one connection's pending proposals (10 awaiting review, 4 MiB a day), raised as far
 * as the configuration goes: the bench prepares thousands of batches with one connection, which
 * is the flood the caps stop, to measure what a prepare costs. The prepare floor opens its app with them too.
 */
export const BENCH_PROPOSAL_LIMITS = { PROPOSALS_PENDING_MAX: '1000000000', PROPOSAL_BYTES_PER_DAY_MAX: '1000000000000' };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export interface ServerOptions {
  dataDir: string;
  /** Where the server's stdout and stderr go: printed in part if it fails. */
  logFile: string;
  /** Extra node flags, e.g. --cpu-prof to profile the server under load. */
  nodeFlags: string[];
}

export interface RunningServer {
  base: string;
  /** Its process, whose CPU time a measurement counts. */
  pid: number;
  /** SIGTERM, then waits for the graceful exit (which is when --cpu-prof writes its profile). */
  stop(): Promise<void>;
  /** Throws, with the end of the log, if the server has exited. */
  checkAlive(): void;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: options.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: base,
    LOG_LEVEL: 'warn',
    // Far above what the bench spends, so that it measures the reads and not the 429s.
    AGENT_ACCESS_QUOTA_UNITS: '1000000000',
    READ_API_QUOTA_UNITS: '1000000000',
    // Likewise the caps on a connection's pending proposals: the bench prepares thousands with one.
    ...BENCH_PROPOSAL_LIMITS,
  };
  // The embedded store, always: the bench seeded it.
  delete env.KURRENTDB_URL;
  delete env.MONGODB_URL;
  delete env.OAUTH_KEYS_FILE;
  const log = openSync(options.logFile, 'w');
  const child = spawn(process.execPath, [...options.nodeFlags, 'cli/bin/run.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', log, log] });
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const logTail = () => readFileSync(options.logFile, 'utf8').split('\n').slice(-30).join('\n');
  const checkAlive = () => {
    if (exited !== undefined) throw new Error(`the server exited (${exited}); the end of ${options.logFile}:\n${logTail()}`);
  };

  const giveUp = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    checkAlive();
    if (await healthy(base)) break;
    if (Date.now() > giveUp) {
      child.kill('SIGTERM');
      throw new Error(`the server did not answer /health within ${START_TIMEOUT_MS / 1000} s; the end of ${options.logFile}:\n${logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid!,
    checkAlive,
    async stop() {
      if (exited === undefined) child.kill('SIGTERM');
      await exit;
    },
  };
}

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/health`)).ok;
  } catch {
    return false;
  }
}
