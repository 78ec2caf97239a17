// The parent's side of the prepare floor (bench/prepare-floor-process.ts): a child process of its
// own, like the server it is compared with, opened on the bench's data directory after the HTTP
// measurements (SQLite's WAL lets it write while the idle server holds the database open).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PrepareFloorMessage, PrepareFloorReply } from './prepare-floor-process.ts';

export type PrepareFloorMeasured = Extract<PrepareFloorReply, { kind: 'measured' }>;

export function measurePrepareFloor(message: PrepareFloorMessage): Promise<PrepareFloorMeasured> {
  const child = fork(fileURLToPath(new URL('./prepare-floor-process.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the prepare floor process exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (reply: PrepareFloorReply) => {
      child.off('exit', onExit);
      if (reply.kind === 'failed') reject(new Error(`the prepare floor failed: ${reply.error}`));
      else resolve(reply);
    });
    child.send(message);
  });
}
