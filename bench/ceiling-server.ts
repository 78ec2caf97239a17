// The ceiling: a bare node:http server answering every request with one fixed response. Started
// by bench/ceiling.ts in a process of its own, so that like the real server it has a CPU to
// itself rather than sharing the load generator's. The parent picks the response over IPC.
import { createServer } from 'node:http';

export type CeilingMessage = { kind: 'serve'; status: number; headers: Record<string, string>; bodyBase64: string };
export type CeilingReply = { kind: 'listening'; port: number } | { kind: 'serving' };

let current: { status: number; headers: Record<string, string>; body: Buffer } = { status: 200, headers: {}, body: Buffer.alloc(0) };

const server = createServer((req, res) => {
  // Read the request like a framework would, then answer with the chosen bytes.
  req.resume();
  req.on('end', () => res.writeHead(current.status, current.headers).end(current.body));
});

// Fastify's default, so that even the Keep-Alive header is the real server's.
server.keepAliveTimeout = 72_000;

const reply = (message: CeilingReply) => process.send?.(message);

process.on('message', (message: CeilingMessage) => {
  const body = Buffer.from(message.bodyBase64, 'base64');
  // Framed by Content-Length like the real server's answers, not chunked as node:http would otherwise.
  current = { status: message.status, headers: { ...message.headers, 'content-length': String(body.length) }, body };
  reply({ kind: 'serving' });
});
// The parent is gone (done or crashed): nothing left to serve.
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => reply({ kind: 'listening', port: (server.address() as { port: number }).port }));
