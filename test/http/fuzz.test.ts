// A bounded fuzz of every surface a stranger can reach (issue 10): several thousand malformed
// requests to Agent Access, MCP, the Read API, the OAuth endpoints, and every web form (the import
// form also as multipart) and page. Nothing may answer 5xx, and every API refusal must be in its
// contract's shape with its headers.
// Seeded, so a failure names an input that reproduces it.
import { connect as tcpConnect } from 'node:net';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessError } from '../../contracts/agent-access.ts';
import { operationList } from '../../contracts/operations.ts';
import { writeKinds } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { readApiError, readApiOperationList } from '../../contracts/read-api.ts';
import { connect, registerPro, PASSWORD } from '../support/connect.ts';
import { type Answer, sendRaw as send } from '../support/raw-http.ts';
import { FormClient, startServer } from '../support/server.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const sample = <T>(arb: fc.Arbitrary<T>, n: number, offset: number) => fc.sample(arb, { numRuns: n, seed: SEED + offset });

/**
 * Bytes on a socket, for what an HTTP client library would not send; answers the status line.
 * With `end` false the request is left unfinished, as a large upload still under way would be.
 */
function sendRaw(base: string, raw: string, end = true): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = tcpConnect(Number(url.port), url.hostname, () => (end ? socket.end(raw) : socket.write(raw)));
    let text = '';
    const done = () => resolve(text.split('\r\n')[0] ?? '');
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (!end && text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}

const failures: string[] = [];
function expect(ok: boolean, what: string): void {
  if (!ok && failures.length < 20) failures.push(what);
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An Agent Access or Read API answer: a success, or a refusal of the contract's statuses, shape and headers. */
function checkApi(answer: Answer, label: string, api: 'agent-access' | 'read-api'): void {
  const where = `${label} → ${answer.status} ${answer.body.slice(0, 160)}`;
  expect(answer.status < 500, `5xx: ${where}`);
  expect(answer.headers['cache-control'] === 'private, no-store', `Cache-Control: ${where}`);
  expect(typeof answer.headers['x-request-id'] === 'string', `X-Request-Id: ${where}`);
  if (answer.status === 200) return;
  const parsed = (api === 'agent-access' ? agentAccessError : readApiError).safeParse(json(answer.body));
  expect(parsed.success, `error shape: ${where}`);
  expect([400, 401, 403, 404, 413, 429, 503].includes(answer.status), `status outside the contract: ${where}`);
  if (parsed.success) expect(parsed.data.error.request_id === answer.headers['x-request-id'], `request id: ${where}`);
  if (answer.status === 401 || answer.status === 403) expect(typeof answer.headers['www-authenticate'] === 'string', `challenge: ${where}`);
  if (answer.status === 429 || answer.status === 503) expect(/^[1-9]\d*$/.test(String(answer.headers['retry-after'])), `Retry-After: ${where}`);
}

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '..',
    '../..',
    '%2e%2e%2f',
    'null',
    'undefined',
    '-1',
    '1e309',
    'NaN',
    '[]',
    '{}',
    '\u202e',
    '%E2%80%AE',
    'x'.repeat(150),
    'a'.repeat(3000),
  ),
  fc.uuid(),
);
/** A path segment as a client might send it: mostly encoded, sometimes raw bytes the router must cope with. */
const segment = fc.oneof(nasty.map(encodeURIComponent), fc.constantFrom('%', '%zz', '%e0%a4%a', '%ff', '%25', ';', '%3B'));
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'from', 'to', 'x', 'limit[]', '__proto__', 'constructor'), nasty, { maxKeys: 4 }).map((q) =>
  Object.entries(q)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&'),
);

test('several thousand malformed requests: no 5xx, every API refusal in its contract shape', async () => {
  const s = await startServer({ env: { AGENT_ACCESS_QUOTA_UNITS: '1000000', READ_API_QUOTA_UNITS: '1000000' } });
  try {
    const athleteId = await registerPro(s.app);
    const rest = (await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery'])).tokens.access_token;
    const mcp = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    const { token: bot } = await s.app.botTokens.create(athleteId, 'Fuzz bot', { type: 'athlete', id: athleteId });
    let sent = 0;

    // Agent Access: every operation's path with fuzzed path ids and query, with and without a token.
    const paths = operationList.map((op) => op.path);
    const cases = sample(
      fc.tuple(fc.constantFrom(...paths), segment, query, fc.constantFrom(`Bearer ${rest}`, `Bearer ${mcp}`, 'Bearer nope', '', `Basic ${rest}`)),
      1500,
      1,
    );
    for (const [path, id, q, authorization] of cases) {
      const target = `${path.replace(/\{\w+\}/, id)}${q ? `?${q}` : ''}`;
      checkApi(await send(s.base, 'GET', target, authorization ? { authorization } : {}), `GET ${target}`, 'agent-access');
      sent++;
    }
    // Bodies on reads: a large declared one, and a chunked one (of unknown length, 5 MB on the way).
    for (const framing of ['Content-Length: 5242880', 'Transfer-Encoding: chunked']) {
      const chunk = framing.startsWith('Transfer') ? `10000\r\n${'x'.repeat(0x10000)}\r\n` : 'x'.repeat(0x10000);
      const status = await sendRaw(
        s.base,
        `GET /v1/agent-access/context HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${rest}\r\n${framing}\r\n\r\n${chunk}`,
        false,
      );
      expect(status === 'HTTP/1.1 413 Payload Too Large', `a 5 MB read body (${framing}) → ${status}`);
      sent++;
    }

    // Write proposals: bodies from nothing at all to one field short of valid, with a token that may propose everything.
    const writerToken = (await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery', 'nutrition', 'body_measurements'])).tokens.access_token;
    const grantId = (await s.app.connections.list(athleteId)).at(-1)!.id;
    await s.app.connections.setWritePermissions(athleteId, grantId, WRITE_PERMISSIONS, { onlyRemove: false });
    const validMeal = { eaten_at: '2026-01-05T08:00:00Z', name: 'Oats', calories_kcal: 300, protein_g: null, carbohydrate_g: null, fat_g: null };
    const action = fc.record(
      {
        op: fc.constantFrom('create', 'update', 'delete', 'upsert'),
        kind: fc.constantFrom(...writeKinds, 'feedback', ''),
        id: fc.oneof(fc.uuid(), nasty),
        base_revision: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.anything()),
        record: fc.oneof(
          fc.constant(validMeal),
          fc.record({ ...Object.fromEntries(Object.keys(validMeal).map((k) => [k, fc.anything()])) }, { requiredKeys: [] }),
          fc.anything(),
        ),
        ref: fc.oneof(nasty, fc.anything()),
      },
      { requiredKeys: ['op', 'kind'] },
    );
    const proposal = fc.record(
      {
        version: fc.constantFrom('agent-access-write.v1', 'agent-access-write.v2', 1),
        command_id: fc.oneof(fc.uuid(), nasty),
        actions: fc.oneof(fc.array(action, { maxLength: 4 }), fc.anything()),
      },
      { requiredKeys: [] },
    );
    for (const [body, contentType] of sample(
      fc.tuple(fc.oneof(proposal, fc.anything()), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded')),
      600,
      6,
    )) {
      const json = JSON.stringify(body) ?? 'null';
      const raw =
        contentType === 'application/x-www-form-urlencoded' && body && typeof body === 'object'
          ? new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, JSON.stringify(v) ?? ''])).toString()
          : json;
      const answer = await send(
        s.base,
        'POST',
        '/v1/agent-access/writes/proposals',
        { authorization: `Bearer ${writerToken}`, 'content-type': contentType },
        raw,
      );
      if (answer.status === 201) continue;
      checkApi(answer, `POST /writes/proposals ${raw.slice(0, 200)}`, 'agent-access');
      sent++;
    }

    // MCP: malformed JSON-RPC of every kind.
    const rpc = fc.oneof(
      fc.record(
        { jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string()), method: fc.constant('tools/call'), params: fc.anything() },
        { requiredKeys: ['jsonrpc', 'id', 'method'] },
      ),
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: fc.integer(),
        method: fc.constant('tools/call'),
        params: fc.record(
          { name: fc.oneof(fc.constantFrom(...operationList.map((o) => o.operationId)), fc.anything()), arguments: fc.anything() },
          { requiredKeys: [] },
        ),
      }),
      fc.record(
        {
          jsonrpc: fc.constantFrom('2.0', '1.0', 2),
          id: fc.anything(),
          method: fc.oneof(fc.constantFrom('tools/list', 'initialize', 'ping', 'resources/list'), fc.string()),
          params: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    for (const message of sample(rpc, 800, 2)) {
      const answer = await send(
        s.base,
        'POST',
        '/mcp',
        { authorization: `Bearer ${mcp}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify(message) ?? 'null',
      );
      const where = `POST /mcp ${JSON.stringify(message)?.slice(0, 200)} → ${answer.status} ${answer.body.slice(0, 200)}`;
      expect(answer.status < 500, `5xx: ${where}`);
      expect(typeof answer.headers['x-request-id'] === 'string' && answer.headers['cache-control'] === 'private, no-store', `headers: ${where}`);
      const body = json(answer.body) as { jsonrpc?: string; error?: { code?: unknown; message?: unknown } } | undefined;
      if (answer.status === 202) continue;
      const rpcError = body?.jsonrpc === '2.0' && (body.error === undefined || (Number.isInteger(body.error.code) && typeof body.error.message === 'string'));
      expect(rpcError || agentAccessError.safeParse(body).success, `shape: ${where}`);
      expect(body?.error?.code !== -32603, `internal error for a client's mistake: ${where}`);
      sent++;
    }
    for (const raw of ['{', '', 'null', '[]', '{"jsonrpc":"2.0"', '\u0000']) {
      const answer = await send(
        s.base,
        'POST',
        '/mcp',
        { authorization: `Bearer ${mcp}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        raw,
      );
      expect(answer.status < 500, `5xx: POST /mcp ${JSON.stringify(raw)} → ${answer.status} ${answer.body}`);
      sent++;
    }

    // Read API v1: every route with fuzzed ids and queries (cursors included), and unknown routes.
    const readPaths = fc.oneof(
      fc
        .tuple(fc.constantFrom(...readApiOperationList.map((op) => op.path)), segment, query)
        .map(([path, id, q]) => `${path.replace('{id}', id)}${q ? `?${q}` : ''}`),
      segment.map((x) => `/api/v1/${x}`),
    );
    for (const [path, authorization] of sample(
      fc.tuple(readPaths, fc.constantFrom(`Bearer ${bot}`, `Bearer ${bot}`, `Bearer ${rest}`, 'Bearer rlb_x', '')),
      800,
      3,
    )) {
      checkApi(await send(s.base, 'GET', path, authorization ? { authorization } : {}), `GET ${path}`, 'read-api');
      sent++;
    }

    // The OAuth endpoints: registration, token, revocation, authorization.
    const form = fc.dictionary(
      fc.constantFrom('grant_type', 'code', 'refresh_token', 'client_id', 'redirect_uri', 'code_verifier', 'resource', 'token', 'scope'),
      nasty,
      { maxKeys: 6 },
    );
    for (const [endpoint, fields] of sample(fc.tuple(fc.constantFrom('/oauth/token', '/oauth/revoke'), form), 250, 4)) {
      const answer = await send(s.base, 'POST', endpoint, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(fields).toString());
      expect(answer.status < 500, `5xx: POST ${endpoint} ${JSON.stringify(fields).slice(0, 200)} → ${answer.status} ${answer.body.slice(0, 200)}`);
      sent++;
    }
    const metadata = fc.record(
      {
        redirect_uris: fc.oneof(fc.array(nasty, { maxLength: 3 }), nasty),
        client_name: nasty,
        token_endpoint_auth_method: fc.constantFrom('none', 'client_secret_basic', 'private_key_jwt', 'x'),
        grant_types: fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'implicit', 'x')),
        response_types: fc.array(fc.constantFrom('code', 'token', 'id_token')),
      },
      { requiredKeys: [] },
    );
    for (const body of sample(fc.oneof(metadata, fc.anything()), 150, 5)) {
      const answer = await send(s.base, 'POST', '/oauth/register', { 'content-type': 'application/json' }, JSON.stringify(body) ?? 'null');
      expect(answer.status < 500, `5xx: POST /oauth/register ${String(JSON.stringify(body)).slice(0, 200)} → ${answer.status} ${answer.body.slice(0, 200)}`);
      sent++;
    }
    for (const q of sample(
      fc.dictionary(
        fc.constantFrom('client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'prompt'),
        nasty,
        { maxKeys: 7 },
      ),
      200,
      6,
    )) {
      const answer = await send(s.base, 'GET', `/oauth/authorize?${new URLSearchParams(q)}`);
      expect(answer.status < 500, `5xx: GET /oauth/authorize ${JSON.stringify(q).slice(0, 200)} → ${answer.status} ${answer.body.slice(0, 200)}`);
      sent++;
    }

    // Every web form, as a visitor and signed in, with fields missing, repeated, long or strange.
    const visitor = new FormClient(s.base);
    const visitorCsrf = FormClient.csrf((await visitor.get('/sign-in')).text);
    const athlete = new FormClient(s.base);
    const signedIn = await athlete.post('/sign-in', {
      email: 'ada@example.com',
      password: PASSWORD,
      _csrf: FormClient.csrf((await athlete.get('/sign-in')).text),
    });
    assert.is(signedIn.status, 303);
    const athleteCsrf = FormClient.csrf((await athlete.get('/account')).text);
    const value = fc.oneof(nasty, fc.array(nasty, { minLength: 2, maxLength: 3 }));
    const fieldNames = [
      'email',
      'password',
      'display_name',
      'timezone',
      'unit_preference',
      'height_unit_preference',
      'bodyweight_unit_preference',
      'return_to',
      'name',
      'area',
      'current_password',
      'new_password',
      'confirm_password',
      'keep',
      'allow',
      'app',
      'weight_unit',
      'distance_unit',
      'file',
      '_csrf',
    ] as const;
    const fields = fc.dictionary(
      fc.constantFrom(...fieldNames),
      fc.oneof(value, fc.constantFrom('kg', 'lbs', 'stone', 'cm', 'ft_in', 'hevy', 'strong', 'km', 'mi', 'Europe/London')),
      { maxKeys: 6 },
    );
    const webForms: Array<[FormClient, string, string]> = [
      [visitor, '/sign-up', visitorCsrf],
      [visitor, '/sign-in', visitorCsrf],
      [athlete, '/bot-tokens', athleteCsrf],
      [athlete, '/bot-tokens/not-a-token/revoke', athleteCsrf],
      [athlete, '/connections/not-a-grant/disconnect', athleteCsrf],
      [athlete, '/connections/not-a-grant/name', athleteCsrf],
      [athlete, '/oauth/interaction/not-an-interaction/consent', athleteCsrf],
      [athlete, '/oauth/interaction/not-an-interaction/deny', athleteCsrf],
      [athlete, '/account/password', athleteCsrf],
      [athlete, '/connections/not-a-grant/write-permissions', athleteCsrf],
      [athlete, '/connections/not-a-grant/write-permissions/request', athleteCsrf],
      [athlete, '/settings', athleteCsrf],
      [athlete, '/import', athleteCsrf],
    ];
    for (const [[client, path, csrf], body, keepToken] of sample(fc.tuple(fc.constantFrom(...webForms), fields, fc.boolean()), 700, 7)) {
      const answer = await client.post(path, keepToken ? { ...body, _csrf: csrf } : body);
      expect(answer.status < 500, `5xx: POST ${path} ${JSON.stringify(body).slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 200)}`);
      expect(
        answer.status === 303 || answer.status === 302 || /text\/html/.test(answer.headers.get('content-type') ?? ''),
        `a page for people: POST ${path} → ${answer.status} ${answer.headers.get('content-type')}`,
      );
      sent++;
    }
    // The import form as browsers send it: multipart, with parts missing, repeated or strange, a
    // file of anything, or a body that is not the multipart it claims to be.
    const part = fc.tuple(fc.constantFrom(...fieldNames), fc.oneof(nasty, fc.constantFrom('hevy', 'strong', 'kg', 'lbs', 'km', 'mi')), fc.boolean());
    const csv = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .array(
          fc.array(nasty, { maxLength: 6 }).map((cells) => cells.map((c) => `"${c}"`).join(',')),
          { maxLength: 6 },
        )
        .map((rows) => ['"title","start_time","end_time","exercise_title","set_index","weight_kg","reps"', ...rows].join('\n')),
    );
    for (const [parts, file, keepToken, broken] of sample(
      fc.tuple(fc.array(part, { maxLength: 5 }), fc.option(csv), fc.boolean(), fc.constantFrom(false, false, false, true)),
      250,
      9,
    )) {
      const form = new FormData();
      if (keepToken) form.append('_csrf', athleteCsrf);
      for (const [name, v, asFile] of parts) form.append(name, asFile ? new Blob([v]) : v, ...(asFile ? ['part.csv'] : []));
      if (file !== null) form.append('file', new Blob([file], { type: 'text/csv' }), 'export.csv');
      const encoded = new Response(form);
      const type = broken ? 'multipart/form-data; boundary=not-the-boundary' : encoded.headers.get('content-type')!;
      const res = await fetch(`${s.base}/import`, {
        method: 'POST',
        body: await encoded.arrayBuffer(),
        redirect: 'manual',
        headers: { 'content-type': type, origin: s.base, cookie: [...athlete.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      const where = `POST /import multipart ${JSON.stringify({ parts, file: file?.slice(0, 80), broken })} → ${res.status}`;
      expect(res.status < 500, `5xx: ${where}`);
      expect(res.status === 303 || /text\/html/.test(res.headers.get('content-type') ?? ''), `a page for people: ${where} ${res.headers.get('content-type')}`);
      await res.arrayBuffer();
      sent++;
    }
    for (const segmentValue of sample(segment, 100, 10)) {
      const answer = await send(s.base, 'GET', `/progress/exercises/${segmentValue}`, { cookie: [...athlete.cookies].map(([k, v]) => `${k}=${v}`).join('; ') });
      expect(answer.status < 500, `5xx: GET /progress/exercises/${segmentValue} → ${answer.status}`);
      sent++;
    }
    for (const q of sample(
      fc.dictionary(
        fc.constantFrom('return_to', 'disconnected', 'renamed', 'older', 'newer', 'saved', 'from', 'added', 'skipped', 'in_file', 'exercises', 'x'),
        nasty,
        { maxKeys: 3 },
      ),
      160,
      8,
    )) {
      for (const path of [
        '/sign-in',
        '/sign-up',
        '/connections',
        '/bot-tokens',
        '/account',
        '/account/password',
        '/connections/not-a-grant/write-permissions/request',
        '/connections/not-a-grant/disconnect',
        '/progress',
        '/settings',
        '/import',
        '/workouts',
      ]) {
        const answer = await athlete.get(`${path}?${new URLSearchParams(q)}`);
        expect(answer.status < 500, `5xx: GET ${path}?${new URLSearchParams(q)} → ${answer.status}`);
        sent++;
      }
    }

    // Requests no client library would send.
    for (const line of [
      'GET /v1/agent-access/training/routines/%zz HTTP/1.1',
      'GET /\t/evil HTTP/1.1',
      'GET /v1/agent-access/context?%% HTTP/1.1',
      `GET /v1/agent-access/training/workouts/${'a'.repeat(5000)} HTTP/1.1`,
    ]) {
      const status = await sendRaw(s.base, `${line}\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(!/^HTTP\/1\.1 5/.test(status), `5xx: ${line.slice(0, 80)} → ${status}`);
      sent++;
    }

    console.log(`    ${sent} requests sent (seed ${SEED})`);
    assert.ok(sent > 4000, `only ${sent} requests`);
    assert.equal(failures, [], failures.join('\n'));
  } finally {
    await s.close();
  }
});

test('the cases the security test named, one by one', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const rest = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    const mcp = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    const auth = { authorization: `Bearer ${rest}` };

    for (const path of ['/v1/agent-access/training/exercises/%/history', '/v1/agent-access/training/routines/%zz']) {
      const answer = await send(s.base, 'GET', path, auth);
      assert.is(answer.status, 400, path);
      assert.is((json(answer.body) as { error: { code: string } }).error.code, 'invalid_input');
      assert.is(answer.headers['cache-control'], 'private, no-store');
      assert.ok(answer.headers['x-request-id']);
    }
    // An over-long id is checked by the operation, after the token, like any other bad id.
    const long = `/v1/agent-access/training/routines/${'a'.repeat(150)}`;
    assert.is((await send(s.base, 'GET', long)).status, 401, 'no token: 401 first');
    const longAnswer = await send(s.base, 'GET', long, auth);
    assert.is(longAnswer.status, 400);
    assert.match(longAnswer.body, 'routine_id');

    const call = async (params: unknown) => {
      const answer = await send(
        s.base,
        'POST',
        '/mcp',
        { authorization: `Bearer ${mcp}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', ...(params === undefined ? {} : { params }) }),
      );
      assert.is(answer.status, 200);
      return json(answer.body) as { id: number; error: { code: number; message: string } };
    };
    for (const params of [
      { name: 123 },
      undefined,
      { name: 'get_access_context', arguments: [] },
      { name: 'get_access_context', arguments: null },
      { name: 'get_access_context', arguments: 'str' },
    ]) {
      const answer = await call(params);
      assert.is(answer.id, 7);
      assert.is(answer.error.code, -32602, JSON.stringify(params));
      assert.match(answer.error.message, /^invalid params for tools\/call: /);
      assert.not.match(answer.error.message, '"code"', 'a sentence, not a zod dump');
    }
  } finally {
    await s.close();
  }
});

test.run();
