// Quotas, the maintenance switch and request size: each refusal in the shared error shape, before
// any work is done, and with the headers that tell a client when to come back.
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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

test('the quota and each operation\'s weight are published in /openapi.json', async () => {
  const s = await startServer({ env: { AGENT_ACCESS_QUOTA_UNITS: '300' } });
  try {
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, { get: { 'x-quota-weight': number } }> };
    assert.match(doc.info.description, '300 quota units per 60 seconds');
    assert.is(doc.paths['/v1/agent-access/training/snapshot']!.get['x-quota-weight'], 4);
    assert.is(doc.paths['/v1/agent-access/context']!.get['x-quota-weight'], 1);
  } finally {
    await s.close();
  }
});

test('the README\'s table of quota weights is the operations table\'s', async () => {
  const readme = await readFile(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  for (const op of operationList) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${op.operationId}\``));
    assert.ok(row?.trimEnd().endsWith(`| ${op.weight} |`), `README row for ${op.operationId}: ${row}`);
  }
});

test('paused reads are a 503 with the operator\'s Retry-After, for every caller, until resumed', async () => {
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
    await s.app.reads.upsert('service_settings', 'service', { id: 'maintenance', read: { since: 'now', retry_after_seconds: 'soon', by: 'someone' }, write: null });
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
    assert.match(paused.stdout, /reads  paused since .* retry after 90 s/);
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
