// Quotas, the maintenance switch and request size: each refusal in the shared error shape, before
// any work is done, and with the headers that tell a client when to come back.
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationList } from '../../contracts/operations.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { tempDir } from '../support/app.ts';
import { cli } from '../support/cli.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

async function refusal(res: Response, status: number, code: string): Promise<ErrorBody> {
  const body = (await res.json()) as ErrorBody;
  assert.is(res.status, status, JSON.stringify(body));
  assert.is(res.headers.get('cache-control'), 'private, no-store');
  assert.is(body.error.code, code);
  assert.is(body.error.request_id, res.headers.get('x-request-id'));
  return body;
}

test('each connection has its own weighted quota; a refusal costs nothing and says when to retry', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  // 12 units a minute: one unit refills every 5 s. The snapshot costs 4, the context 1.
  const s = await startServer({ clock, env: { AGENT_ACCESS_QUOTA_UNITS: '12' } });
  try {
    await registerPro(s.app);
    const rest = `${s.base}/v1/agent-access`;
    const first = (await connect(s.base, rest, ['training'])).tokens.access_token;
    const second = (await connect(s.base, rest, ['training'])).tokens.access_token;
    const get = (token: string, path: string) => fetch(`${rest}${path}`, { headers: { authorization: `Bearer ${token}` } });

    for (let i = 0; i < 3; i++) assert.is((await get(first, '/training/snapshot')).status, 200);
    const limited = await get(first, '/training/snapshot');
    const body = await refusal(limited, 429, 'rate_limited');
    // The budget is whole again 60 s after the first call; 4 units have refilled 20 s later.
    assert.is(limited.headers.get('retry-after'), '20');
    assert.match(body.error.message, 'try again in 20 seconds');
    // Charged before the input is looked at: bad input over quota is still a 429.
    await refusal(await get(first, '/training/workouts?limit=99'), 429, 'rate_limited');
    // The other connection of the same athlete is untouched.
    assert.is((await get(second, '/training/snapshot')).status, 200);

    clock.advance(19_000);
    await refusal(await get(first, '/training/snapshot'), 429, 'rate_limited');
    assert.is((await get(first, '/context')).status, 200, 'a cheaper call fits sooner');
    clock.advance(6_000);
    assert.is((await get(first, '/training/snapshot')).status, 200, 'refusals did not use the budget up');
  } finally {
    await s.close();
  }
});

test("the quota and each operation's weight are published in /openapi.json", async () => {
  const s = await startServer({ env: { AGENT_ACCESS_QUOTA_UNITS: '300' } });
  try {
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as {
      info: { description: string };
      paths: Record<string, { get: { 'x-quota-weight': number } }>;
    };
    assert.match(doc.info.description, '300 quota units per 60 seconds');
    assert.is(doc.paths['/v1/agent-access/training/snapshot']!.get['x-quota-weight'], 4);
    assert.is(doc.paths['/v1/agent-access/context']!.get['x-quota-weight'], 1);
  } finally {
    await s.close();
  }
});

test("docs/api.md's table of quota weights is the operations table's", async () => {
  const readme = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  for (const op of operationList) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${op.operationId}\``));
    assert.ok(row?.trimEnd().endsWith(`| ${op.weight} |`), `docs/api.md row for ${op.operationId}: ${row}`);
  }
});

test("paused reads are a 503 with the operator's Retry-After, for every caller, until resumed", async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const auth = { headers: { authorization: `Bearer ${tokens.access_token}` } };
    await s.app.maintenance.set('read', 300, 'operator:test');
    const paused = await fetch(`${s.base}/v1/agent-access/training/workouts`, auth);
    const body = await refusal(paused, 503, 'unavailable');
    assert.is(paused.headers.get('retry-after'), '300');
    assert.match(body.error.message, 'paused for maintenance');
    // Before authentication: a caller without a token hears the same.
    await refusal(await fetch(`${s.base}/v1/agent-access/context`), 503, 'unavailable');
    // A switch document edited by hand into another shape pauses nothing, rather than sending a bad Retry-After.
    await s.app.reads.upsert('service_settings', 'service', {
      id: 'maintenance',
      read: { since: 'now', retry_after_seconds: 'soon', by: 'someone' },
      write: null,
    });
    assert.equal(await s.app.maintenance.state(), { read: null, write: null });
    // Pausing writes leaves reads alone.
    await s.app.maintenance.set('read', null, 'operator:test');
    await s.app.maintenance.set('write', 300, 'operator:test');
    assert.is((await fetch(`${s.base}/v1/agent-access/training/workouts`, auth)).status, 200);
  } finally {
    await s.close();
  }
});

test('an operator pauses reads from the CLI and every running server follows within seconds', async () => {
  const dataDir = tempDir();
  const s = await startServer({ dataDir });
  try {
    const url = `${s.base}/v1/agent-access/context`;
    assert.is((await fetch(url)).status, 401);
    const paused = await cli(['maintenance', 'pause', 'reads', '--retry-after', '90'], { DATA_DIR: dataDir });
    assert.is(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, /reads {2}paused since .* retry after 90 s/);
    const res = await until(async () => {
      const r = await fetch(url);
      return r.status === 503 ? r : null;
    });
    assert.is(res.headers.get('retry-after'), '90');
    const status = await cli(['maintenance', 'status', '--json'], { DATA_DIR: dataDir });
    assert.is(JSON.parse(status.stdout).read.retry_after_seconds, 90);
    assert.is((await cli(['maintenance', 'resume', 'reads'], { DATA_DIR: dataDir })).code, 0);
    await until(async () => ((await fetch(url)).status === 401 ? true : null));
  } finally {
    await s.close();
  }
});

test('a request body over the limit is a 413 in the shared shape, before authentication', async () => {
  const s = await startServer();
  try {
    const { status, headers, body } = await getWithBody(`${s.base}/v1/agent-access/context`, 'x'.repeat(64 * 1024));
    assert.is(status, 413);
    assert.is(headers['cache-control'], 'private, no-store');
    const parsed = JSON.parse(body) as ErrorBody;
    assert.is(parsed.error.code, 'payload_too_large');
    assert.is(parsed.error.request_id, headers['x-request-id']);
  } finally {
    await s.close();
  }
});

test('a web form over its size limit is refused with a page for a browser and the shared shape for a program', async () => {
  const s = await startServer();
  try {
    const form = `email=${'a'.repeat(20 * 1024)}`;
    const post = (accept: string) =>
      fetch(`${s.base}/sign-in`, { method: 'POST', headers: { accept, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const page = await post('text/html');
    assert.is(page.status, 413);
    assert.match(page.headers.get('content-type') ?? '', 'text/html');
    assert.match(await page.text(), '<html');
    const parsed = await refusal(await post('application/json'), 413, 'payload_too_large');
    assert.match(parsed.error.message, 'larger than the 16384 bytes');
  } finally {
    await s.close();
  }
});

test('what Node cannot read as a request is answered in the shared shape, with a request id', async () => {
  const s = await startServer();
  try {
    const { port } = new URL(s.base);
    // An address and headers over Node's 16 KB.
    const long = await rawExchange(Number(port), Buffer.from(`GET /api/v1/workouts?cursor=${'a'.repeat(60_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    assert.is(long.status, 431);
    assert.match(long.body.error.message, 'longer than the 16 KB this server reads');
    // A byte that is not allowed in a request target.
    const unreadable = await rawExchange(
      Number(port),
      Buffer.concat([Buffer.from('GET /api/v1/workouts?limit='), Buffer.from([0xd9, 0xa5]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]),
    );
    assert.is(unreadable.status, 400);
    assert.match(unreadable.body.error.message, 'not valid HTTP');
    for (const answer of [long, unreadable]) {
      assert.is(answer.body.error.code, 'invalid_input');
      assert.is(answer.headers['x-request-id'], answer.body.error.request_id);
      assert.is(answer.headers['cache-control'], 'private, no-store');
    }
  } finally {
    await s.close();
  }
});

test("a body of a type no route reads, JSON that does not parse, and a path id over the router's limit, are 400s that say what was wrong", async () => {
  const s = await startServer();
  try {
    const typed = await fetch(`${s.base}/v1/agent-access/writes/proposals`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: '{}',
    });
    const body = await refusal(typed, 400, 'invalid_input');
    assert.match(body.error.message, 'Content-Type (application/vnd.api+json) is not one this address reads');
    for (const json of ['{"command_id":', '{"__proto__": {"admin": true}}']) {
      const unparsed = await fetch(`${s.base}/v1/agent-access/writes/proposals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json,
      });
      assert.is(
        (await refusal(unparsed, 400, 'invalid_input')).error.message,
        'the request body is not valid JSON (a key named __proto__, or constructor holding prototype, is refused as well)',
      );
    }
    const longId = await refusal(await fetch(`${s.base}/v1/agent-access/training/workouts/${'a'.repeat(5000)}`), 400, 'invalid_input');
    assert.is(longId.error.message, 'the address is not valid: a part of its path is longer than 1024 characters');
  } finally {
    await s.close();
  }
});

/** Sends bytes as they are (no client would send them) and reads the one answer before the server closes. */
function rawExchange(port: number, bytes: Buffer): Promise<{ status: number; headers: Record<string, string>; body: ErrorBody }> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, text] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n') as [string, string];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(text) as ErrorBody });
    });
  });
}

/** fetch() refuses a body on GET; a client may still send one. */
function getWithBody(url: string, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until<T>(probe: () => Promise<T | null>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

test.run();
