// The parent's handle on the ceiling server (bench/ceiling-server.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CeilingMessage, CeilingReply } from './ceiling-server.ts';
import type { CapturedResponse } from './http.ts';

/** Set per connection and per message by node:http itself; copying them would duplicate or lie. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

export interface Ceiling {
  base: string;
  /** Makes the server answer every request with `response` from now on. */
  serve(response: CapturedResponse): Promise<void>;
  stop(): void;
}

export async function startCeiling(): Promise<Ceiling> {
  const child = fork(fileURLToPath(new URL('./ceiling-server.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listening = await nextReply(child);
  if (listening.kind !== 'listening') throw new Error(`ceiling server: unexpected ${listening.kind}`);
  return {
    base: `http://127.0.0.1:${listening.port}`,
    async serve(response) {
      const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      const message: CeilingMessage = { kind: 'serve', status: response.status, headers, bodyBase64: response.body.toString('base64') };
      child.send(message);
      await nextReply(child);
    },
    stop() {
      child.disconnect();
    },
  };
}

function nextReply(child: ChildProcess): Promise<CeilingReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`ceiling server exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message: CeilingReply) => {
      child.off('exit', onExit);
      resolve(message);
    });
  });
}
