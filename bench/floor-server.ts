// The floor under a read: the ceiling's bytes, answered after the very store reads the service
// makes for that request, or after no read at all. Over node:http and over Fastify, so that what
// the framework and the reads each take from the ceiling shows apart from what the service itself
// does (authorization, tRPC, validation, the envelope, the cursor, serialisation).
//
// The reads are not rebuilt by hand for each operation: this process runs the real server on the
// same store, sends it the measured request (once to warm what the service remembers, such as the
// token's caller, and once more while recording), and keeps every call the second request made to
// the read store and the event store. Each request to the floor then repeats those calls, with
// the same arguments, before it answers. Started by bench/ceiling.ts in a process of its own.
//
// Over Fastify it also answers the operation's MCP tool call, after the same reads: the SDK's
// Server dispatches the JSON-RPC message, on the service's own transport, to a handler returning
// the result the service gave, and the answer is written as the service writes it, the envelope's
// JSON given (as the REST floor is given its bytes) and escaped into the text block the protocol
// asks for. What that costs beyond the REST floor is what any MCP call costs on this stack, with
// nothing of RepLedger's in it.
//
// Asked to, it also signs the answer's cursor again for each request, with the service's own
// encodeCursor: what the cursors the design asks for (signed, decisions.md "Cursors") cost a list.
import { createSecretKey, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { answerJson, InProcessTransport } from '../services/http/mcp.ts';
import { buildServer } from '../services/http/server.ts';
import { encodeCursor, type CursorBinding } from '../services/reads/cursor.ts';
import type { KeyValue } from '../services/store/read-store.ts';
import type { BenchRequest } from './http.ts';

export type Framework = 'node:http' | 'fastify';
/** An answer to replay: its status, headers and body. */
export interface Replayed {
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}
/**
 * `request` null: answer the bytes without reading anything. `mcp`: the service's answer to the
 * operation's tool call, for POST /mcp (Fastify only); null where it has none. `signCursor`: sign
 * the answer's `next_cursor` again for each request before answering (Fastify only).
 */
export type FloorMessage = { kind: 'serve'; request: BenchRequest | null; mcp: Replayed | null; signCursor: boolean } & Replayed;
export type FloorReply = { kind: 'listening'; port: number } | { kind: 'serving'; storeCalls: string[] } | { kind: 'failed'; message: string };

/** The store methods a request reads through; writes are not part of a read's floor. */
const READ_METHODS = {
  reads: ['get', 'getMany', 'page', 'count'],
  events: ['readStream', 'readRevisions', 'streamRevision', 'readAll', 'headPosition'],
} as const;

type StoreCall = { store: keyof typeof READ_METHODS; method: string; args: unknown[] };

/** `baseUrl`: the measured server's, which its tokens are issued for. */
const [framework, dataDir, baseUrl] = process.argv.slice(2) as [Framework, string, string];
const app = await openApp(
  loadConfig({ DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'silent', AGENT_ACCESS_QUOTA_UNITS: '1000000000', READ_API_QUOTA_UNITS: '1000000000' }),
);

let recording: StoreCall[] | null = null;
// Every service holds these same two store objects, so wrapping their methods on the instances
// sees every read the request makes, whichever service makes it.
const original = new Map<string, (...args: unknown[]) => Promise<unknown>>();
for (const store of Object.keys(READ_METHODS) as Array<keyof typeof READ_METHODS>) {
  const target = app[store] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of READ_METHODS[store]) {
    const call = target[method]!.bind(target);
    original.set(`${store}.${method}`, call);
    target[method] = (...args: unknown[]) => {
      recording?.push({ store, method, args: structuredClone(args) });
      return call(...args);
    };
  }
}

let service: FastifyInstance | null = null;

/** How many recorded requests the floor's reads are chosen from. */
const RECORDINGS = 3;

/**
 * The store calls the real service makes for `request` once it is warm: the fewest of a few
 * requests', since a commit anywhere in between (another process's, or this one's access history
 * being written) makes the next request look its caller up again, which steady requests do not.
 */
async function recordReads(request: BenchRequest, expectedStatus: number): Promise<StoreCall[]> {
  service ??= await buildServer(app, { logger: false });
  const inject = () =>
    service!.inject({
      method: request.method as 'GET',
      url: request.path,
      headers: request.headers,
      ...(request.body !== undefined ? { payload: request.body } : {}),
    });
  await inject();
  let fewest: StoreCall[] | null = null;
  for (let i = 0; i < RECORDINGS; i++) {
    recording = [];
    const response = await inject();
    const calls = recording;
    recording = null;
    if (response.statusCode !== expectedStatus)
      throw new Error(`the service answered ${response.statusCode} while its reads were recorded: ${response.body.slice(0, 300)}`);
    if (!fewest || calls.length < fewest.length) fewest = calls;
  }
  return fewest!;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The tool call's answer: the result the service gave, its envelope's JSON (the text block), and the service's bytes. */
interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  result: CallToolResult;
  envelopeJson: string;
  expected: string;
  /** Whether an answer written here was found to be the service's bytes. */
  compared: boolean;
}

/** A cursor to sign for each request: what the service signed for the answer replayed. */
interface Signing {
  binding: CursorBinding;
  after: KeyValue[];
}

let current: (Answer & { calls: StoreCall[]; mcp: McpAnswer | null; signing: Signing | null }) | null = null;

/** Any key: signing costs the same under each, and the floor's cursors are never read back. */
const CURSOR_KEY = createSecretKey(randomBytes(32));

/**
 * What the service signed for this answer, read back from its `next_cursor`. Its payload is
 * re-encoded here and compared, so that the floor signs the same bytes the service did.
 */
function signingOf(replayed: Replayed): Signing {
  const { data } = JSON.parse(Buffer.from(replayed.bodyBase64, 'base64').toString('utf8')) as { data?: { next_cursor?: string | null } };
  const cursor = data?.next_cursor;
  if (!cursor) throw new Error('the answer has no next_cursor to sign');
  const body = cursor.split('.')[0]!;
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { o: string; a: string; f: Record<string, string | null>; k: KeyValue[] };
  const signing = { binding: { operation: payload.o, athleteId: payload.a, filters: payload.f }, after: payload.k };
  if (encodeCursor(CURSOR_KEY, signing.binding, signing.after).split('.')[0] !== body)
    throw new Error('the cursor signed here is not the one the service signed');
  return signing;
}

function answerOf(replayed: Replayed): Answer {
  const body = Buffer.from(replayed.bodyBase64, 'base64');
  return { status: replayed.status, headers: { ...replayed.headers, 'content-length': String(body.length) }, body };
}

/** Its headers as replayed, without a length: Fastify measures the string it writes, as for the service's answers. */
function mcpAnswerOf(replayed: Replayed): McpAnswer {
  const expected = Buffer.from(replayed.bodyBase64, 'base64').toString('utf8');
  const { result } = JSON.parse(expected) as { result: CallToolResult };
  const text = result.content[0];
  if (text?.type !== 'text') throw new Error('the tool call answered no text block');
  return { status: replayed.status, headers: replayed.headers, result, envelopeJson: text.text, expected, compared: false };
}

/** As the service's: one shared, since each Server would otherwise build its own Ajv. */
const VALIDATOR = new AjvJsonSchemaValidator();
/** Transports whose Server is idle: one Server answers one message at a time, as in the service's pool. */
const idleMcp: InProcessTransport[] = [];

async function mcpTransport(): Promise<InProcessTransport> {
  const transport = new InProcessTransport();
  const server = new Server({ name: 'repledger-floor', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: VALIDATOR });
  server.setRequestHandler(CallToolRequestSchema, () => current!.mcp!.result);
  await server.connect(transport);
  return transport;
}

async function read(): Promise<void> {
  for (const { store, method, args } of current!.calls) await original.get(`${store}.${method}`)!(...args);
}

const reply = (message: FloorReply) => process.send?.(message);

async function listen(): Promise<number> {
  if (framework === 'fastify') {
    const server = Fastify({ logger: false });
    server.all('/*', async (_request, response) => {
      await read();
      const signing = current!.signing;
      if (signing) encodeCursor(CURSOR_KEY, signing.binding, signing.after);
      return response.code(current!.status).headers(current!.headers).send(current!.body);
    });
    server.post('/mcp', async (request, response) => {
      const mcp = current!.mcp;
      if (!mcp) return response.code(404).send();
      await read();
      const transport = idleMcp.pop() ?? (await mcpTransport());
      let answer: JSONRPCMessage;
      try {
        answer = await transport.answer(request.body as JSONRPCRequest);
      } finally {
        idleMcp.push(transport);
      }
      // Anything but the result would have measured the SDK's error path: the bench sees a 500.
      if (!('result' in answer)) return response.code(500).send(answer);
      const json = answerJson(answer, mcp.envelopeJson);
      // Other bytes than the service's would measure another answer: the first is compared, and a
      // difference is a 500, which the bench counts as a failure.
      if (!mcp.compared) {
        if (json !== mcp.expected) return response.code(500).send({ expected: mcp.expected, written: json });
        mcp.compared = true;
      }
      return response.code(mcp.status).headers(mcp.headers).send(json);
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
  void (async () => {
    const calls = message.request ? await recordReads(message.request, message.status) : [];
    if (message.signCursor && framework !== 'fastify') throw new Error('only the Fastify floor signs cursors');
    current = { ...answerOf(message), calls, mcp: message.mcp && mcpAnswerOf(message.mcp), signing: message.signCursor ? signingOf(message) : null };
    reply({ kind: 'serving', storeCalls: calls.map((c) => `${c.store}.${c.method}`) });
  })().catch((error: unknown) => reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }));
});
process.on('disconnect', () => void (service?.close() ?? Promise.resolve()).then(() => app.close()).then(() => process.exit(0)));

reply({ kind: 'listening', port: await listen() });
