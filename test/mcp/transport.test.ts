// /mcp answers POSTs itself, without the SDK's Streamable HTTP transport: what that transport
// refused at the HTTP level is refused the same way, and servers kept between requests answer
// each request for its own caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';

const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A request whose answer went to another request never comes: given up on, so the test fails rather than hangs. */
function post(s: TestServer, token: string, message: unknown, headers: Record<string, string> = {}) {
  const signal = AbortSignal.timeout(10_000);
  return fetch(`${s.base}/mcp`, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(message),
    signal,
  });
}

async function transportError(res: Response): Promise<{ code: number; message: string }> {
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  assert.is(body.jsonrpc, '2.0');
  assert.is(body.id, null);
  return body.error;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };

test('POSTs the Streamable HTTP transport refused are refused with its statuses and JSON-RPC errors', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const token = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;

    const notAcceptable = await post(s, token, ping, { accept: 'application/json' });
    assert.is(notAcceptable.status, 406);
    assert.equal(await transportError(notAcceptable), {
      code: -32000,
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    });

    const unsupported = await post(s, token, ping, { 'content-type': 'text/plain' });
    assert.is(unsupported.status, 415);
    assert.equal(await transportError(unsupported), { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' });

    // JSON-RPC messages are strict: a member JSON-RPC does not define makes it no message. JSON
    // that parsed is an invalid request, not a parse error (JSON-RPC 2.0, 5.1; the v1 SDK's
    // transport said -32700, v2's says -32600).
    for (const notMessage of [{ ...ping, extra: 1 }, { hello: 1 }, { ...ping, jsonrpc: '1.0' }, { ...ping, id: {} }]) {
      const stray = await post(s, token, notMessage);
      assert.is(stray.status, 400);
      assert.equal(await transportError(stray), { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' });
    }

    // JSON that does not parse: JSON-RPC's parse error, not the REST error shape.
    const broken = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, authorization: `Bearer ${token}` },
      body: '{"jsonrpc": "2.0", "id": 3,',
    });
    assert.is(broken.status, 400);
    const parseError = {
      code: -32700,
      message: 'Parse error: the request body is not valid JSON (a key named __proto__, or constructor holding prototype, is refused as well)',
    };
    assert.equal(await transportError(broken), parseError);
    assert.ok(broken.headers.get('x-request-id'));
    // Valid JSON that could poison a prototype is refused too, and the message says that it may be why.
    const poisoned = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, authorization: `Bearer ${token}` },
      body: '{"jsonrpc": "2.0", "id": 3, "method": "ping", "__proto__": {}}',
    });
    assert.is(poisoned.status, 400);
    assert.equal(await transportError(poisoned), parseError);
    const huge = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({ ...ping, params: { pad: 'x'.repeat(3 * 1024 * 1024) } }),
    });
    assert.is(huge.status, 413);
    assert.match((await transportError(huge)).message, /^Payload too large: a message is at most \d+ bytes$/);

    const unknownVersion = await post(s, token, ping, { 'mcp-protocol-version': '1999-01-01' });
    assert.is(unknownVersion.status, 400);
    assert.match((await transportError(unknownVersion)).message, /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: 2025-11-25, /);
    // Initialize negotiates the version in its body; the header is not checked on it.
    const initialized = await post(s, token, initialize, { 'mcp-protocol-version': '1999-01-01' });
    assert.is(initialized.status, 200);
    assert.is(((await initialized.json()) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-06-18');

    const pong = await post(s, token, ping, { 'mcp-protocol-version': '2025-06-18' });
    assert.is(pong.status, 200);
    assert.is(pong.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.is(await pong.text(), '{"result":{},"jsonrpc":"2.0","id":2}');

    // Notifications and responses are accepted with no body; their rate limit headers still say what is left.
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 5, result: {} },
    ]) {
      const accepted = await post(s, token, message);
      assert.is(accepted.status, 202, JSON.stringify(message));
      assert.is(await accepted.text(), '');
      assert.ok(accepted.headers.get('ratelimit'));
    }
  } finally {
    await s.close();
  }
});

test('concurrent tool calls with the same JSON-RPC id each answer for their own caller', async () => {
  const s = await startServer();
  try {
    const emails = ['ada@example.com', 'grace@example.com'];
    const tokens: string[] = [];
    for (const email of emails) {
      await registerPro(s.app, email);
      tokens.push((await connect(s.base, `${s.base}/mcp`, ['training'], undefined, email)).tokens.access_token);
    }
    const grantOf = async (token: string) => {
      const res = await post(s, token, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_access_context', arguments: {} } });
      assert.is(res.status, 200);
      return ((await res.json()) as { result: { structuredContent: { data: { grant_id: string } } } }).result.structuredContent.data.grant_id;
    };
    // The embedded store answers synchronously, so a call would finish before the next request is
    // read; a store across the network (MongoDB, KurrentDB) leaves calls in flight together.
    const retryAfter = s.app.maintenance.retryAfter.bind(s.app.maintenance);
    s.app.maintenance.retryAfter = async (access) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return retryAfter(access);
    };
    const grants = await Promise.all(tokens.map(grantOf));
    assert.is.not(grants[0], grants[1]);
    // More calls at once than one server could answer: each is answered for its own token.
    const order = Array.from({ length: 24 }, (_, i) => i % 2);
    const answered = await Promise.all(order.map((i) => grantOf(tokens[i]!)));
    assert.equal(
      answered,
      order.map((i) => grants[i]),
    );
  } finally {
    await s.close();
  }
});

test.run();
