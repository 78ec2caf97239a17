// The quota a connection has left, on every Agent Access answer (REST and MCP): the RateLimit and
// RateLimit-Policy fields count down by each call's weight, and on the 429 they agree with
// Retry-After.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operations } from '../../contracts/operations.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { inlined } from '../support/openapi.ts';
import { startServer } from '../support/server.ts';

const UNITS = 20;
/** Seconds one unit takes to refill: 60 s / 20 units. */
const PER_UNIT = 3;

function rateLimit(res: Response): { r: number; t: number } {
  assert.is(res.headers.get('ratelimit-policy'), `"connection";q=${UNITS};w=60`);
  const m = /^"connection";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
  assert.ok(m, `RateLimit: ${res.headers.get('ratelimit')}`);
  return { r: Number(m[1]), t: Number(m[2]) };
}

test('REST and MCP answers say what is left of the quota, counting down by weight, and agree with Retry-After', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const s = await startServer({ clock, env: { AGENT_ACCESS_QUOTA_UNITS: String(UNITS) } });
  try {
    await registerPro(s.app);
    const rest = `${s.base}/v1/agent-access`;
    const token = (await connect(s.base, rest, ['training'])).tokens.access_token;
    const get = (path: string) => fetch(`${rest}${path}`, { headers: { authorization: `Bearer ${token}` } });

    let spent = 0;
    const calls: Array<[string, number, number]> = [
      ['/context', operations.get_access_context.weight, 200],
      ['/training/snapshot', operations.get_training_snapshot.weight, 200],
      ['/training/personal-records?limit=10', operations.get_personal_records.weight, 200],
      ['/training/exercises', operations.list_exercises.weight, 200],
      // Charged before the input is looked at, so a refusal for bad input still counts.
      ['/training/exercises?limit=99', operations.list_exercises.weight, 400],
    ];
    for (const [path, weight, status] of calls) {
      const res = await get(path);
      assert.is(res.status, status, path);
      spent += weight;
      // A still clock: nothing refills, and the budget is whole again once every spent unit has.
      assert.equal(rateLimit(res), { r: UNITS - spent, t: spent * PER_UNIT }, path);
    }
    assert.ok(UNITS - spent < operations.get_training_snapshot.weight * 4, 'the snapshots below spend it');
    while (UNITS - spent >= operations.get_training_snapshot.weight) {
      const res = await get('/training/snapshot');
      assert.is(res.status, 200);
      spent += operations.get_training_snapshot.weight;
      assert.equal(rateLimit(res), { r: UNITS - spent, t: spent * PER_UNIT });
    }
    const limited = await get('/training/snapshot');
    assert.is(limited.status, 429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1);
    assert.equal(rateLimit(limited), { r: UNITS - spent, t: retryAfter }, 'on the 429, t is the Retry-After');
    assert.is(retryAfter, (operations.get_training_snapshot.weight - (UNITS - spent)) * PER_UNIT, 'the wait is for the missing units');
    clock.advance(retryAfter * 1000 - 1);
    assert.is((await get('/training/snapshot')).status, 429, 'not a moment before');
    clock.advance(1);
    const admitted = await get('/training/snapshot');
    assert.is(admitted.status, 200, 'and admitted once Retry-After has passed');
    assert.is(rateLimit(admitted).r, 0);

    // MCP: a new connection, its own budget; every POST /mcp answer carries the fields.
    const mcpToken = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    let id = 0;
    const mcp = (method: string, params: Record<string, unknown> = {}) =>
      fetch(`${s.base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
    const initialized = await mcp('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    assert.is(initialized.status, 200);
    assert.equal(rateLimit(initialized), { r: UNITS, t: 0 }, 'initialize costs nothing');
    let mcpSpent = 1;
    assert.equal(rateLimit(await mcp('tools/list')), { r: UNITS - mcpSpent, t: mcpSpent * PER_UNIT });
    mcpSpent += operations.list_exercises.weight;
    assert.equal(rateLimit(await mcp('tools/call', { name: 'list_exercises', arguments: {} })), { r: UNITS - mcpSpent, t: mcpSpent * PER_UNIT });
    mcpSpent += operations.get_personal_records.weight;
    const toolError = await mcp('tools/call', { name: 'get_personal_records', arguments: { limit: 50 } });
    assert.match(await toolError.text(), 'isError');
    assert.equal(rateLimit(toolError), { r: UNITS - mcpSpent, t: mcpSpent * PER_UNIT }, 'a tool error was charged too');

    // And /openapi.json says so, on the answers that carry them.
    const doc = inlined(
      (await (await fetch(`${s.base}/openapi.json`)).json()) as {
        paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, { description: string }> }> } }>;
      },
    );
    const responses = doc.paths['/v1/agent-access/training/personal-records']!.get.responses;
    for (const status of ['200', '400', '404', '429']) {
      assert.match(responses[status]!.headers?.['RateLimit-Policy']?.description ?? '', `"connection";q=${UNITS};w=60`, status);
      assert.ok(responses[status]!.headers?.RateLimit, status);
    }
    // The Read API's answers state a bot token's budget the same way.
    const readApi = (doc.paths['/api/v1/me'] as unknown as (typeof doc.paths)[string]).get.responses;
    for (const status of ['200', '400', '429']) {
      assert.match(readApi[status]!.headers?.['RateLimit-Policy']?.description ?? '', '"bot_token";q=', status);
      assert.ok(readApi[status]!.headers?.RateLimit, status);
    }
  } finally {
    await s.close();
  }
});

test.run();
