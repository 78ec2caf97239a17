// Every MCP revision a current client speaks, on the one /mcp: the SDK's v1 client (2025-11-25,
// initialize), the v2 client pinned to 2025-06-18 (initialize) and to 2026-07-28 (stateless:
// server/discover, the version and capabilities in each request's _meta). They list the same
// tools, resources and prompts and get the same answers. The 2026-07-28 envelope is checked as
// that revision asks, and a client that declares URL elicitation is handed the athlete's links
// (the approval page, the permission form) through the protocol; one that does not gets today's results.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { seedAthlete, todayLocal, trainingHistory } from '../support/sample-record.ts';
import { tempDir } from '../support/app.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { proposalBody, seedRecord } from '../support/writes.ts';
import { comparable, envelopeOf, mcpClient, toolErrorOf } from './support.ts';

const MODERN = '2026-07-28';

interface ClientOptions {
  versions: string[];
  modern: boolean;
  capabilities?: Record<string, unknown>;
  onElicit?: (params: { mode?: string; url?: string; message: string }) => void;
}

/** The SDK's v2 client on /mcp with a token, pinned to one revision. */
async function clientV2(base: string, token: string, options: ClientOptions): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'test-client-v2', version: '2.0.0' },
    {
      capabilities: options.capabilities ?? {},
      supportedProtocolVersions: options.versions,
      ...(options.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  if (options.onElicit) {
    const onElicit = options.onElicit;
    client.setRequestHandler('elicitation/create', async (request) => {
      onElicit(request.params as { mode?: string; url?: string; message: string });
      return { action: 'accept' };
    });
  }
  await client.connect(new TransportV2(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A tool result as either SDK returns it. */
type ToolCaller = { callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> };
const call = async (client: ToolCaller, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

test('2025-06-18, 2025-11-25 and 2026-07-28 list the same tools, resources and prompts, and each call answers the same', async () => {
  // A still clock: an answer carries the time it was computed, and the revisions' answers must agree.
  const s = await startServer({ clock: fixedClock(new Date().toISOString()) });
  try {
    await seedAthlete(s.app, { label: 'small', email: 'ada@example.com', workouts: 12 }, trainingHistory(12, todayLocal()), tempDir('repledger-mcp-rev-'));
    const token = (await connect(s.base, `${s.base}/mcp`, ['training', 'recovery', 'nutrition', 'body_measurements'])).tokens.access_token;
    const v1 = await mcpClient(s.base, token);
    const june = await clientV2(s.base, token, { versions: ['2025-06-18'], modern: false });
    const modern = await clientV2(s.base, token, { versions: [MODERN, '2025-11-25'], modern: true });
    assert.is(june.getProtocolEra(), 'legacy');
    assert.is(june.getNegotiatedProtocolVersion(), '2025-06-18');
    assert.is(v1.getServerVersion()?.name, 'repledger');
    assert.is(modern.getProtocolEra(), 'modern');
    assert.is(modern.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(modern.getDiscoverResult()?.supportedVersions, [MODERN]);
    assert.is(modern.getInstructions(), v1.getInstructions());
    assert.is(modern.getServerVersion()?.name, 'repledger');

    const names = async (c: ToolCaller & { listTools: () => Promise<{ tools: Array<{ name: string }> }> }) => (await c.listTools()).tools.map((t) => t.name);
    const tools = await names(v1);
    assert.ok(tools.length > 10);
    assert.equal(await names(june), tools);
    assert.equal(await names(modern), tools);
    assert.equal(
      (await modern.listResources()).resources.map((r) => r.uri),
      (await v1.listResources()).resources.map((r) => r.uri),
    );
    // Templates belong to the resources capability; every resource here has a fixed address.
    assert.equal((await v1.listResourceTemplates()).resourceTemplates, []);
    assert.equal((await modern.listResourceTemplates()).resourceTemplates, []);
    assert.equal(
      (await modern.listPrompts()).prompts.map((p) => p.name),
      (await v1.listPrompts()).prompts.map((p) => p.name),
    );
    const prompt = await modern.getPrompt({ name: 'review-my-last-week', arguments: { focus: 'squat' } });
    assert.equal(prompt.messages, (await v1.getPrompt({ name: 'review-my-last-week', arguments: { focus: 'squat' } })).messages);
    const week = await modern.readResource({ uri: 'repledger://training/this-week' });
    assert.equal(
      comparable(JSON.parse((week.contents[0] as { text: string }).text)),
      comparable(JSON.parse(((await v1.readResource({ uri: 'repledger://training/this-week' })).contents[0] as { text: string }).text)),
    );

    const same = async (name: Parameters<typeof envelopeOf>[0], args: Record<string, unknown> = {}) => {
      const answers = [];
      for (const c of [v1, june, modern] as ToolCaller[]) answers.push(comparable(envelopeOf(name, await call(c, name, args))));
      assert.equal(answers[1], answers[0], `${name}: 2025-06-18`);
      assert.equal(answers[2], answers[0], `${name}: 2026-07-28`);
      return answers[0] as { data: { items?: Array<{ id: string }>; next_cursor?: string | null } };
    };
    await same('get_access_context');
    await same('get_training_snapshot');
    const page = await same('list_completed_workouts', { limit: 3 });
    await same('list_completed_workouts', { limit: 3, cursor: page.data.next_cursor });
    await same('get_completed_workout', { workout_id: page.data.items![0]!.id });
    await same('list_exercises', { limit: 5 });
    await same('get_write_context');
    // A refusal is the same tool error in every revision.
    const refusals = [];
    for (const c of [v1, june, modern] as ToolCaller[]) {
      const { request_id: _id, ...error } = toolErrorOf(await call(c, 'get_completed_workout', { workout_id: '00000000-0000-4000-8000-000000000000' }));
      refusals.push(error);
    }
    assert.equal(refusals[2], refusals[0]);
    assert.is(refusals[0]!.code, 'not_found');
    for (const c of [v1, june, modern]) await c.close();
  } finally {
    await s.close();
  }
});

const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function envelope(extra: Record<string, unknown> = {}) {
  return { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, ...extra };
}

async function post(s: TestServer, token: string, message: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${s.base}/mcp`, {
    method: 'POST',
    headers: { ...JSON_RPC, authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: res.status,
    body: (await res.json()) as { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } },
  };
}

test('a 2026-07-28 request is checked as that revision asks: envelope, headers against the body, methods it has', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const token = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    const modern = { 'mcp-protocol-version': MODERN };
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope() } };

    const listed = await post(s, token, list, { ...modern, 'mcp-method': 'tools/list' });
    assert.is(listed.status, 200);
    assert.is(listed.body.id, 7);
    const result = listed.body.result!;
    assert.is(result.resultType, 'complete');
    assert.is(result.cacheScope, 'private');
    assert.is(result.ttlMs, 300_000);
    assert.equal((result._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo'], { name: 'repledger', title: 'RepLedger', version: '1.0.0' });

    const discovered = await post(
      s,
      token,
      { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope() } },
      { ...modern, 'mcp-method': 'server/discover' },
    );
    assert.is(discovered.status, 200);
    assert.equal(discovered.body.result!.supportedVersions, [MODERN]);
    assert.ok((discovered.body.result!.capabilities as Record<string, unknown>).tools);
    assert.is(discovered.body.result!.resultType, 'complete');
    assert.is(discovered.body.result!.cacheScope, 'public');

    const refusals: Array<[string, Record<string, unknown>, Record<string, string>, number, number, RegExp]> = [
      [
        'no capabilities',
        { ...list, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
        { ...modern, 'mcp-method': 'tools/list' },
        400,
        -32602,
        /clientCapabilities is required/,
      ],
      [
        'a version it does not serve',
        { ...list, params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }) } },
        { 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'tools/list' },
        400,
        -32022,
        /Unsupported protocol version/,
      ],
      ['the version header missing', list, { 'mcp-method': 'tools/list' }, 400, -32020, /MCP-Protocol-Version header is missing/],
      [
        'the version header of another revision',
        list,
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
        400,
        -32020,
        /names 2025-11-25, the body 2026-07-28/,
      ],
      ['the method header missing', list, modern, 400, -32020, /Mcp-Method header is missing/],
      ['the method header of another method', list, { ...modern, 'mcp-method': 'prompts/list' }, 400, -32020, /names prompts\/list, the body tools\/list/],
      [
        'a modern header without the envelope',
        { ...list, params: {} },
        { ...modern, 'mcp-method': 'tools/list' },
        400,
        -32602,
        /does not carry io.modelcontextprotocol\/protocolVersion/,
      ],
      [
        'initialize, gone in 2026-07-28',
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope() } },
        { ...modern, 'mcp-method': 'initialize' },
        404,
        -32601,
        /Method not found/,
      ],
      [
        'ping, gone in 2026-07-28',
        { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: envelope() } },
        { ...modern, 'mcp-method': 'ping' },
        404,
        -32601,
        /Method not found/,
      ],
    ];
    refusals.push(
      [
        // The example of basic/versioning: any version the envelope names that is not served is -32022, however old.
        'an envelope naming a version before this revision',
        { ...list, params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) } },
        { 'mcp-protocol-version': '1900-01-01', 'mcp-method': 'tools/list' },
        400,
        -32022,
        /Unsupported protocol version/,
      ],
      [
        'an envelope naming a handshake revision',
        { ...list, params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) } },
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
        400,
        -32022,
        /Unsupported protocol version/,
      ],
      [
        'the version header against an envelope of another version',
        { ...list, params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) } },
        { ...modern, 'mcp-method': 'tools/list' },
        400,
        -32020,
        /names 2026-07-28, the body 2025-11-25/,
      ],
      [
        'a log level MCP does not have',
        { ...list, params: { _meta: envelope({ 'io.modelcontextprotocol/logLevel': 'loud' }) } },
        { ...modern, 'mcp-method': 'tools/list' },
        400,
        -32602,
        /logLevel must be one of debug/,
      ],
      ['a response posted', { jsonrpc: '2.0', id: 4, result: {} }, modern, 400, -32600, /takes no JSON-RPC responses/],
    );
    const callTool = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_access_context', arguments: {}, _meta: envelope() } };
    refusals.push([
      'a tool call whose name header is not valid base64',
      callTool,
      { ...modern, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?***?=' },
      400,
      -32020,
      /invalid base64/,
    ]);
    // A name that is no string is the params' fault, answered in the body as invalid params.
    refusals.push([
      'a tool named by a number',
      { ...callTool, params: { ...callTool.params, name: 5 } },
      { ...modern, 'mcp-method': 'tools/call', 'mcp-name': '5' },
      200,
      -32602,
      /params.name/,
    ]);
    refusals.push(['a tool call without Mcp-Name', callTool, { ...modern, 'mcp-method': 'tools/call' }, 400, -32020, /Mcp-Name header is missing/]);
    refusals.push([
      'a tool call naming another tool',
      callTool,
      { ...modern, 'mcp-method': 'tools/call', 'mcp-name': 'list_exercises' },
      400,
      -32020,
      /does not match params.name/,
    ]);
    for (const [what, message, headers, status, code, said] of refusals) {
      const answer = await post(s, token, message, headers);
      assert.is(answer.status, status, what);
      assert.is(answer.body.error?.code, code, what);
      assert.match(answer.body.error?.message ?? '', said, what);
      assert.is(answer.body.id, message.id, `${what}: the error answers the request`);
    }
    const unsupported = await post(s, token, refusals[1]![1], refusals[1]![2]);
    assert.equal(unsupported.body.error?.data, {
      supported: [MODERN],
      requested: '2027-01-01',
    });

    // A notification needs no header in this revision: accepted and dropped.
    const notified = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC, authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } }),
    });
    assert.is(notified.status, 202);

    // The name header may travel in base64 (streamable-http, value encoding).
    const encoded = `=?base64?${Buffer.from('get_access_context').toString('base64')}?=`;
    const called = await post(s, token, callTool, { ...modern, 'mcp-method': 'tools/call', 'mcp-name': encoded });
    assert.is(called.status, 200);
    assert.is(called.body.result!.resultType, 'complete');
    assert.not.ok('ttlMs' in called.body.result!, 'a tool result carries no caching hints');
    assert.is((called.body.result!.structuredContent as { operation: string }).operation, 'get_access_context');

    // An unknown resource is invalid params in 2026-07-28 (-32002 before it).
    const read = { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'repledger://nothing', _meta: envelope() } };
    const missing = await post(s, token, read, { ...modern, 'mcp-method': 'resources/read', 'mcp-name': 'repledger://nothing' });
    assert.is(missing.body.error?.code, -32602);

    // The handshake revisions still answer on the same address.
    const init = await post(
      s,
      token,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      {},
    );
    assert.is((init.body.result as { protocolVersion: string }).protocolVersion, '2025-11-25');
    const legacyList = await post(s, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
    assert.ok(Array.isArray(legacyList.body.result!.tools));
    assert.not.ok('resultType' in legacyList.body.result!, 'a 2025-11-25 result is as that revision has it');
  } finally {
    await s.close();
  }
});

test('URL elicitation: a client that declares it gets the approval page and the permission form through the protocol; others get the results as before', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const seeded = await seedRecord(s.app, athleteId);
    const meal = (name: string) => ({
      op: 'create',
      kind: 'meal',
      ref: 'meal',
      record: { eaten_at: new Date().toISOString(), name, calories_kcal: 600, protein_g: 40, carbohydrate_g: 60, fat_g: 20 },
    });
    // A connection on /mcp holding nutrition:write.
    const mcpToken = (await connect(s.base, `${s.base}/mcp`, ['training', 'nutrition'])).tokens.access_token;
    const [grant] = await s.app.connections.list(athleteId);
    await s.app.connections.setWritePermissions(athleteId, grant!.id, ['nutrition:write'], { onlyRemove: false });

    const asked: Array<{ mode?: string; url?: string; message: string }> = [];
    const declaring = await clientV2(s.base, mcpToken, {
      versions: [MODERN],
      modern: true,
      capabilities: { elicitation: { url: {} } },
      onElicit: (params) => asked.push(params),
    });
    const prepared = envelopeOf('prepare_write_proposal', await call(declaring, 'prepare_write_proposal', proposalBody([meal('Oats')]))).data as {
      proposal: { status: string; approval_url: string };
    };
    assert.is(prepared.proposal.status, 'prepared');
    assert.is(asked.length, 1, 'the client was asked to open the approval page once');
    assert.is(asked[0]!.mode, 'url');
    assert.is(asked[0]!.url, prepared.proposal.approval_url);
    assert.match(asked[0]!.message, 'nothing changes until you approve');

    // A permission the connection lacks: the permission form, then (asked once) the tool error as before.
    const missing = toolErrorOf(
      await call(declaring, 'prepare_write_proposal', proposalBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }])),
    ) as {
      code: string;
      permissions_url?: string;
    };
    assert.is(missing.code, 'write_permission_required');
    assert.is(asked.length, 2);
    assert.is(asked[1]!.url, missing.permissions_url);
    assert.match(asked[1]!.message, 'not allowed it yet');

    // Without the capability (2026-07-28 with none declared, or 2025-11-25): the result at once, with the link in it.
    // (Such a client cannot even register an elicitation handler: input_required would fail its call.)
    const plain = await clientV2(s.base, mcpToken, { versions: [MODERN], modern: true });
    const legacy = await mcpClient(s.base, mcpToken);
    for (const c of [plain, legacy] as ToolCaller[]) {
      const body = proposalBody([meal(`Rice ${Math.random()}`)]);
      const answer = envelopeOf('prepare_write_proposal', await call(c, 'prepare_write_proposal', body)).data as { proposal: { approval_url: string } };
      assert.match(answer.proposal.approval_url, /^http/);
    }

    // 2025-11-25: a client that declared URL elicitation at initialize gets the link on the call's
    // stream ahead of the result, which is as before; its answer comes back as a POST of its own.
    const declaredAtInitialize = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    declaredAtInitialize.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as { mode?: string; url?: string; message: string });
      return { action: 'accept' };
    });
    await declaredAtInitialize.connect(
      new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${mcpToken}` } } }),
    );
    // Another client on the same connection, opened later, that did not declare it: each client
    // keeps what it declared (its session id), neither takes the other's.
    const later = await mcpClient(s.base, mcpToken);
    const viaStream = envelopeOf('prepare_write_proposal', await call(declaredAtInitialize, 'prepare_write_proposal', proposalBody([meal('Soup')]))).data as {
      proposal: { approval_url: string };
    };
    for (let i = 0; i < 100 && asked.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    assert.is(asked.length, 3, 'the 2025-11-25 client was asked to open the approval page');
    assert.is(asked[2]!.mode, 'url');
    assert.is(asked[2]!.url, viaStream.proposal.approval_url);
    assert.ok((asked[2] as { elicitationId?: string }).elicitationId, '2025-11-25 names each URL elicitation');
    const laterAnswer = envelopeOf('prepare_write_proposal', await call(later, 'prepare_write_proposal', proposalBody([meal('Stew')]))).data as {
      proposal: { approval_url: string };
    };
    assert.match(laterAnswer.proposal.approval_url, /^http/);
    await new Promise((r) => setTimeout(r, 100));
    assert.is(asked.length, 3, 'a client that did not declare URL elicitation is never sent one');
    await declaredAtInitialize.close();
    await later.close();

    // The raw exchange: the first answer is input_required (not cacheable, nothing else in it); the retry with the answer gets the result.
    const body = proposalBody([meal('Eggs')]);
    const message = (inputResponses?: unknown) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'prepare_write_proposal',
        arguments: body,
        ...(inputResponses ? { inputResponses } : {}),
        _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } }),
      },
    });
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'prepare_write_proposal' };
    const first = await post(s, mcpToken, message(), headers);
    assert.is(first.body.result!.resultType, 'input_required');
    assert.not.ok('ttlMs' in first.body.result!);
    const request = (first.body.result!.inputRequests as Record<string, { method: string; params: { mode: string; url: string } }>).approval!;
    assert.is(request.method, 'elicitation/create');
    const retried = await post(s, mcpToken, message({ approval: { action: 'decline' } }), headers);
    assert.is(retried.body.result!.resultType, 'complete');
    const proposal = (retried.body.result!.structuredContent as { data: { proposal: { approval_url: string; status: string } } }).data.proposal;
    assert.is(proposal.approval_url, request.params.url);
    assert.is(proposal.status, 'prepared', 'declining to open the page decides nothing');
    // Something that is no elicitation's answer under the key leaves the page unopened: asked again.
    for (const notAnswer of [{ approval: 'yes' }, { approval: { method: 'elicitation/create', result: {} } }]) {
      const again = await post(s, mcpToken, message(notAnswer), headers);
      assert.is(again.body.result!.resultType, 'input_required', JSON.stringify(notAnswer));
    }
    for (const c of [declaring, plain, legacy]) await c.close();
  } finally {
    await s.close();
  }
});

test('2025-11-25: what a client declared at initialize travels in its session id, for that client and connection only', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const token = (await connect(s.base, `${s.base}/mcp`, ['nutrition'])).tokens.access_token;
    const other = (await connect(s.base, `${s.base}/mcp`, ['nutrition'])).tokens.access_token;
    for (const grant of await s.app.connections.list(athleteId)) {
      await s.app.connections.setWritePermissions(athleteId, grant.id, ['nutrition:write'], { onlyRemove: false });
    }
    const initialize = (capabilities: Record<string, unknown>, protocolVersion = '2025-11-25') => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities, clientInfo: { name: 't', version: '1' } },
    });
    const sessionOf = async (bearer: string, message: Record<string, unknown>) =>
      (
        await fetch(`${s.base}/mcp`, {
          method: 'POST',
          headers: { ...JSON_RPC, authorization: `Bearer ${bearer}` },
          body: JSON.stringify(message),
        })
      ).headers.get('mcp-session-id');
    const declared = await sessionOf(token, initialize({ elicitation: { url: {} } }));
    assert.ok(declared && /^[\x21-\x7e]+$/.test(declared), 'a session id of visible ASCII for a client that declared URL elicitation');
    assert.is(await sessionOf(token, initialize({ elicitation: { form: {} } })), null, 'none for a client that did not');
    assert.is(await sessionOf(token, initialize({ elicitation: { url: {} } }, '2025-06-18')), null, 'none before the revision that has URL mode');
    const foreign = await sessionOf(other, initialize({ elicitation: { url: {} } }));

    const prepare = async (sessionId: string | null, version = '2025-11-25') => {
      const res = await fetch(`${s.base}/mcp`, {
        method: 'POST',
        headers: {
          ...JSON_RPC,
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': version,
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'prepare_write_proposal',
            arguments: proposalBody([
              {
                op: 'create',
                kind: 'meal',
                ref: 'meal',
                record: { eaten_at: new Date().toISOString(), name: `Meal ${Math.random()}`, calories_kcal: 500, protein_g: 30, carbohydrate_g: 50, fat_g: 15 },
              },
            ]),
          },
        }),
      });
      return { type: res.headers.get('content-type') ?? '', text: await res.text() };
    };
    const streamed = await prepare(declared);
    assert.match(streamed.type, 'text/event-stream');
    assert.match(streamed.text.split('\n\n')[0]!, '"method":"elicitation/create"');
    // One character of what is signed changed.
    const tampered = `${declared!.startsWith('e') ? 'f' : 'e'}${declared!.slice(1)}`;
    for (const [what, sessionId, version] of [
      ['no session id', null, '2025-11-25'],
      ['a session id this server did not sign', tampered, '2025-11-25'],
      ['a session id of another connection', foreign, '2025-11-25'],
      ['a request of a revision without URL mode', declared, '2025-06-18'],
    ] as const) {
      const answer = await prepare(sessionId, version);
      assert.match(answer.type, 'application/json', what);
      assert.not.match(answer.text, 'elicitation/create', what);
      assert.match(answer.text, 'approval_url', what);
    }
  } finally {
    await s.close();
  }
});

test.run();
