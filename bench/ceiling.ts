// The parent's handles on the reference servers: the ceiling (bench/ceiling-server.ts) and the
// floor (bench/floor-server.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CeilingMessage, CeilingReply } from './ceiling-server.ts';
import type { FloorMessage, FloorReply, Framework, Replayed } from './floor-server.ts';
import type { BenchRequest, CapturedResponse } from './http.ts';

/** Set per connection and per message by node:http itself; copying them would duplicate or lie. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

export interface Ceiling {
  base: string;
  pid: number;
  /** Makes the server answer every request with `response` from now on. */
  serve(response: CapturedResponse): Promise<void>;
  stop(): void;
}

export interface Floor {
  base: string;
  pid: number;
  /**
   * Makes the server answer every request with `response`, after the store reads the service makes
   * for `request` (none when null), and an MCP tool call to POST /mcp with `mcp`, the service's
   * answer to it, after the same reads. `signCursor`: sign the answer's next cursor again for each
   * request, as the service does. Returns those reads, by store and method.
   */
  serve(response: CapturedResponse, request: BenchRequest | null, mcp?: CapturedResponse | null, signCursor?: boolean): Promise<string[]>;
  stop(): void;
}

export async function startCeiling(): Promise<Ceiling> {
  const { child, base } = await forkServer('./ceiling-server.ts', []);
  return {
    base,
    pid: child.pid!,
    async serve(response) {
      const message: CeilingMessage = { kind: 'serve', ...replayed(response) };
      child.send(message);
      await nextReply(child);
    },
    stop() {
      child.disconnect();
    },
  };
}

/** `serviceBase`: the measured server's address, which the tokens the floor is sent were issued for. */
export async function startFloor(framework: Framework, dataDir: string, serviceBase: string): Promise<Floor> {
  const { child, base } = await forkServer('./floor-server.ts', [framework, dataDir, serviceBase]);
  return {
    base,
    pid: child.pid!,
    async serve(response, request, mcp = null, signCursor = false) {
      const message: FloorMessage = { kind: 'serve', ...replayed(response), request, mcp: mcp && replayed(mcp), signCursor };
      child.send(message);
      const serving = await nextReply(child);
      if (serving.kind === 'failed') throw new Error(`floor server (${framework}): ${serving.message}`);
      if (serving.kind !== 'serving' || !('storeCalls' in serving)) throw new Error(`floor server (${framework}): unexpected ${serving.kind}`);
      return serving.storeCalls;
    },
    stop() {
      child.disconnect();
    },
  };
}

async function forkServer(file: string, args: string[]): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listening = await nextReply(child);
  if (listening.kind !== 'listening') throw new Error(`${file}: unexpected ${listening.kind}`);
  return { child, base: `http://127.0.0.1:${listening.port}` };
}

/** A captured response as a reference server replays it. */
function replayed(response: CapturedResponse): Replayed {
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
  return { status: response.status, headers, bodyBase64: response.body.toString('base64') };
}

function nextReply(child: ChildProcess): Promise<CeilingReply | FloorReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`reference server exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message: CeilingReply | FloorReply) => {
      child.off('exit', onExit);
      resolve(message);
    });
  });
}
