// /mcp refuses as REST does, in the form MCP clients act on: 401 and 403 challenges, 429 and 503
// with Retry-After as HTTP; bad input and unknown ids as tool errors carrying REST's code and message.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { mcpClient, restUrl, toolErrorOf } from './support.ts';

/** One JSON-RPC request over raw HTTP, to see statuses and headers as a client's transport does. */
function rpc(s: TestServer, token: string | null, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return fetch(`${s.base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

async function setup(areas: string[], options: Parameters<typeof startServer>[0] = {}) {
  const s = await startServer(options);
  const athleteId = await registerPro(s.app);
  const token = (await connect(s.base, `${s.base}/mcp`, areas)).tokens.access_token;
  return { s, athleteId, token };
}

test('without a usable token /mcp is a 401 whose challenge leads to the /mcp resource metadata', async () => {
  const { s, athleteId, token } = await setup(['training']);
  try {
    const metadata = `resource_metadata="${s.base}/.well-known/oauth-protected-resource/mcp"`;
    const none = await rpc(s, null, 'tools/list');
    assert.is(none.status, 401);
    assert.is(none.headers.get('www-authenticate'), `Bearer ${metadata}`);
    assert.is(((await none.json()) as { error: { code: string } }).error.code, 'unauthorized');
    const prm = (await (await fetch(`${s.base}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
    assert.is(prm.resource, `${s.base}/mcp`);

    const bad = await rpc(s, 'not-a-token', 'tools/list');
    assert.is(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', 'error="invalid_token"');

    // A token for the REST resource is not a token for /mcp.
    const restToken = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    assert.is((await rpc(s, restToken, 'tools/list')).status, 401);

    // A bot token never opens Agent Access.
    const { token: bot } = await s.app.botTokens.create(athleteId, 'Stats bot', { type: 'athlete', id: athleteId });
    assert.is((await rpc(s, bot, 'tools/list')).status, 401);

    const context = (await (await rpc(s, token, 'tools/call', { name: 'get_access_context', arguments: {} })).json()) as {
      result: { structuredContent: { data: { grant_id: string } } };
    };
    await s.app.connections.disconnect(athleteId, context.result.structuredContent.data.grant_id);
    assert.is((await rpc(s, token, 'tools/list')).status, 401, 'a disconnect stops the next call');
  } finally {
    await s.close();
  }
});

test('tools of areas not granted are not listed, and calling one is a 403 a client can step up from', async () => {
  const { s, token } = await setup(['training']);
  try {
    const client = await mcpClient(s.base, token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('list_completed_workouts'));
    assert.not.ok(names.includes('list_meals'));
    assert.not.ok(names.includes('list_recovery_checkins'));
    await client.close();

    const res = await rpc(s, token, 'tools/call', { name: 'list_meals', arguments: {} });
    assert.is(res.status, 403);
    assert.is(
      res.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="nutrition training", resource_metadata="${s.base}/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.is(res.headers.get('cache-control'), 'private, no-store');
    assert.is(((await res.json()) as { error: { code: string } }).error.code, 'insufficient_scope');
  } finally {
    await s.close();
  }
});

test('bad input and unknown ids are tool errors with the code and message REST gives', async () => {
  const { s, token } = await setup(['training']);
  try {
    const restToken = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    const client = await mcpClient(s.base, token);
    const cases: Array<[Parameters<typeof restUrl>[1], Record<string, unknown>, number]> = [
      ['list_completed_workouts', { limit: 11 }, 400],
      ['list_completed_workouts', { from: '2026-01-01' }, 400],
      ['list_completed_workouts', { from: '2026-01-01', to: '2026-06-01' }, 400],
      ['list_completed_workouts', { cursor: 'forged' }, 400],
      ['list_completed_workouts', { verbose: true }, 400],
      ['get_completed_workout', { workout_id: 'not-a-uuid' }, 400],
      ['get_completed_workout', { workout_id: '6f1c2a4e-8d3b-4c1a-9e2f-0a1b2c3d4e5f' }, 404],
      ['get_saved_routine', { routine_id: '6f1c2a4e-8d3b-4c1a-9e2f-0a1b2c3d4e5f' }, 404],
    ];
    for (const [name, args, status] of cases) {
      const viaMcp = toolErrorOf((await client.callTool({ name, arguments: args })) as CallToolResult);
      const res = await fetch(restUrl(s.base, name, args), { headers: { authorization: `Bearer ${restToken}` } });
      assert.is(res.status, status, `${name} ${JSON.stringify(args)}`);
      const viaRest = ((await res.json()) as { error: { code: string; message: string } }).error;
      assert.is(viaMcp.code, viaRest.code, `${name} ${JSON.stringify(args)}`);
      assert.is(viaMcp.message, viaRest.message);
      assert.match(viaMcp.request_id, /^[0-9a-f-]{36}$/);
    }
    const unknown = await client.callTool({ name: 'delete_everything', arguments: {} }).then(
      () => null,
      (e: Error) => e.message,
    );
    assert.match(unknown ?? '', 'no tool named delete_everything');
    await client.close();
  } finally {
    await s.close();
  }
});

test('quota and maintenance answer tool calls as HTTP 429 and 503 with Retry-After', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const { s, token } = await setup(['training'], { clock, env: { AGENT_ACCESS_QUOTA_UNITS: '12' } });
  try {
    const call = () => rpc(s, token, 'tools/call', { name: 'get_training_snapshot', arguments: {} });
    for (let i = 0; i < 3; i++) assert.is((await call()).status, 200);
    const limited = await call();
    assert.is(limited.status, 429);
    assert.is(limited.headers.get('retry-after'), '20');
    assert.is(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limited');
    // Listing tools costs a unit too: 5 s until one has refilled.
    const list = await rpc(s, token, 'tools/list');
    assert.is(list.status, 429);
    assert.is(list.headers.get('retry-after'), '5');

    clock.advance(60_000);
    await s.app.maintenance.set('read', 45, 'operator:test');
    const paused = await call();
    assert.is(paused.status, 503);
    assert.is(paused.headers.get('retry-after'), '45');
    assert.is(((await paused.json()) as { error: { code: string } }).error.code, 'unavailable');
    // As on REST, before the caller is identified; listing tools still works.
    assert.is((await rpc(s, 'not-a-token', 'tools/call', { name: 'get_training_snapshot', arguments: {} })).status, 503);
    assert.is((await rpc(s, token, 'tools/list')).status, 200);
  } finally {
    await s.close();
  }
});

test('browsers on other origins are refused; GET and DELETE say the server is stateless; one message per request', async () => {
  const { s, token } = await setup(['training']);
  try {
    const foreign = await rpc(s, token, 'tools/list', {}, { origin: 'https://evil.example' });
    assert.is(foreign.status, 403);
    assert.is(foreign.headers.get('www-authenticate'), null);
    assert.is((await rpc(s, token, 'tools/list', {}, { origin: s.base })).status, 200);

    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.base}/mcp`, { method, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
      assert.is(res.status, 405, method);
      assert.is(res.headers.get('allow'), 'POST');
    }
    // One message per request (MCP 2025-06-18): a batch would dodge the per-call quota.
    const batch = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }))),
    });
    assert.is(batch.status, 400);
    assert.is(((await batch.json()) as { error: { code: number } }).error.code, -32600);
    // A notification alone is accepted with no body.
    const note = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.is(note.status, 202);
    assert.is(await note.text(), '');

    const res = await rpc(s, token, 'tools/list');
    assert.ok(res.headers.get('x-request-id'));
    assert.is(res.headers.get('cache-control'), 'private, no-store');
    assert.is(res.headers.get('mcp-session-id'), null, 'stateless: no session');
  } finally {
    await s.close();
  }
});

test.run();
