// The floor: the ceiling's bytes, answered after the store read a list operation makes (one keyset
// page from the seeded store, through the project's own read store), or after no read at all. Over
// node:http and over Fastify, so that what the framework and the read each take from the ceiling
// shows apart from what the service itself does (authorization, tRPC, validation, the envelope, the
// cursor, serialisation). Started by bench/ceiling.ts in a process of its own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import type { PageQuery } from '../services/store/read-store.ts';

export type Framework = 'node:http' | 'fastify';
export type FloorMessage = { kind: 'serve'; status: number; headers: Record<string, string>; bodyBase64: string; read: { collection: string; query: PageQuery } | null };
export type FloorReply = { kind: 'listening'; port: number } | { kind: 'serving'; documents: number };

const [framework, dataDir] = process.argv.slice(2) as [Framework, string];
const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));

let current: { status: number; headers: Record<string, string>; body: Buffer; read: FloorMessage['read'] } | null = null;
const read = async () => (current?.read ? app.reads.page(current.read.collection, current.read.query) : []);

const reply = (message: FloorReply) => process.send?.(message);

async function listen(): Promise<number> {
  if (framework === 'fastify') {
    const server = Fastify({ logger: false });
    server.get('/*', async (_request, response) => {
      await read();
      return response.code(current!.status).headers(current!.headers).send(current!.body);
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    return (server.server.address() as { port: number }).port;
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => void read().then(() => res.writeHead(current!.status, current!.headers).end(current!.body)));
  });
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

process.on('message', (message: FloorMessage) => {
  const body = Buffer.from(message.bodyBase64, 'base64');
  current = { status: message.status, headers: { ...message.headers, 'content-length': String(body.length) }, body, read: message.read };
  // The parent checks that a read finds what the operation found: an empty page would measure nothing.
  void read().then((docs) => reply({ kind: 'serving', documents: docs.length }));
});
process.on('disconnect', () => void app.close().then(() => process.exit(0)));

reply({ kind: 'listening', port: await listen() });
