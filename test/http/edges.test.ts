// HTTP edges (issue 40): wrong methods and encoded paths on the OAuth and API endpoints, bodies on
// GET, and an oversized chunked body. Each answer is in its audience's documented shape.
import fc from 'fast-check';
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessError } from '../../contracts/agent-access.ts';
import { operationList } from '../../contracts/operations.ts';
import { readApiError, readApiOperationList } from '../../contracts/read-api.ts';
import { type Answer, sendRaw as send } from '../support/raw-http.ts';
import { startServer } from '../support/server.ts';

/** 5 MB sent chunked, 64 KB a write: long enough that an answer can come while it is on its way. */
const FIVE_MB = Array.from({ length: 80 }, () => Buffer.alloc(64 * 1024, 'x'));

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** RFC 6749 5.2: the authorization server's refusals. */
function isOAuthError(body: unknown): boolean {
  const b = body as { error?: unknown; error_description?: unknown } | undefined;
  return typeof b?.error === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(b.error) && ['string', 'undefined'].includes(typeof b.error_description);
}

const OAUTH = [
  '/oauth',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/register',
  '/oauth/jwks',
  '/oauth/revoke',
  '/oauth/logout',
  '/oauth/userinfo',
  '/oauth/nothing',
];
const DISCOVERY = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'];
const API = [
  ...new Set([
    ...operationList.map((op) => op.path.replace(/\{\w+\}/g, 'x1')),
    ...readApiOperationList.map((op) => op.path.replace(/\{\w+\}/g, 'x1')),
    '/mcp',
    '/openapi.json',
    '/health',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/v1/agent-access/nothing',
    '/api/v1/nothing',
  ]),
];
/** What Java's HttpURLConnection sends unless told otherwise: text/html first. */
const JAVA_ACCEPT = 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';

/** The authorization server's pages for people: a refusal there may be a page. */
const BROWSER_ENDPOINTS = /^\/oauth\/(authorize|logout|interaction)(\/|$)/;

/** What a path names: unreserved characters decoded, slashes collapsed, dot segments resolved, case ignored. */
function canonical(path: string): string {
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) =>
    /[A-Za-z0-9\-._~]/.test(String.fromCharCode(Number.parseInt(h, 16))) ? String.fromCharCode(Number.parseInt(h, 16)) : m,
  );
  const kept: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '..') kept.pop();
    else if (segment !== '.' && segment !== '') kept.push(segment);
  }
  return `/${kept.join('/')}`.toLowerCase();
}

/** What is wrong with an answer to a program (Accept: JSON) at `path`, or null. */
function offContract(path: string, method: string, answer: Answer): string | null {
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 500) return 'a 5xx';
  if (/text\/plain/.test(type)) return 'text/plain';
  const where = canonical(path);
  if (answer.status < 400) return null;
  if (!answer.headers['x-request-id']) return 'no X-Request-Id';
  if (method === 'HEAD') return /json|html/.test(type) ? null : `HEAD answered ${type}`;
  const oauth = /^\/(oauth(?![\w-])|\.well-known\/(openid-configuration|oauth-authorization-server))/.test(where);
  if (oauth && BROWSER_ENDPOINTS.test(where) && /text\/html/.test(type)) return null;
  if (!/application\/json/.test(type)) return `${type} is not JSON`;
  const body = json(answer.body);
  if (oauth) return isOAuthError(body) ? null : 'not an RFC 6749 error';
  // MCP's transport answers GET and DELETE (docs/api.md: 405) in JSON-RPC.
  if (where.replace(/\/$/, '') === '/mcp' && answer.status === 405) return (body as { jsonrpc?: unknown })?.jsonrpc === '2.0' ? null : 'not JSON-RPC';
  const shape = where.startsWith('/api/') ? readApiError : agentAccessError;
  if (!shape.safeParse(body).success) return 'not the shared error shape';
  if (answer.status === 405) return where.replace(/\/$/, '') === '/mcp' ? null : '405 outside /mcp';
  return [400, 401, 403, 404, 413, 429, 503].includes(answer.status) ? null : 'a status outside the contract';
}

test('wrong methods and encoded addresses on the OAuth endpoints answer JSON to programs and pages to browsers', async () => {
  const s = await startServer();
  try {
    for (const [method, path] of [
      ['GET', '/oauth/token'],
      ['POST', '/oauth/jwks'],
      ['DELETE', '/oauth/register'],
      ['PUT', '/oauth/authorize'],
      ['OPTIONS', '/oauth/token'],
      ['POST', '/.well-known/openid-configuration'],
      ['GET', '/oauth/authorize/x/y'],
      ['GET', '//oauth/token'],
      ['GET', '/OAuth/Token'],
    ] as const) {
      const answer = await send(s.base, method, path, { accept: 'application/json' });
      assert.is(answer.status, 404, `${method} ${path}`);
      assert.match(String(answer.headers['content-type']), 'application/json', `${method} ${path}`);
      const body = json(answer.body) as { error: string; error_description: string };
      assert.is(body.error, 'invalid_request', `${method} ${path}`);
      assert.match(body.error_description, `no route for ${method}`);
      assert.ok(answer.headers['x-request-id']);
    }
    // An encoded letter means the letter: the endpoint is served (and guarded) as written plainly.
    const jwks = await send(s.base, 'GET', '/oauth/%6Awks');
    assert.is(jwks.status, 200);
    assert.ok((json(jwks.body) as { keys: unknown[] }).keys.length > 0);
    const registered = await send(s.base, 'POST', '/oauth/%72egister', { 'content-type': 'application/json' }, '{}');
    assert.is(registered.status, 400);
    assert.ok(isOAuthError(json(registered.body)));
    // A browser at the authorization server's pages gets a page; at its API endpoints, still JSON.
    const page = await send(s.base, 'PUT', '/oauth/authorize', { accept: 'text/html' });
    assert.is(page.status, 404);
    assert.match(String(page.headers['content-type']), 'text/html');
    assert.match(page.body, '<html');
    const token = await send(s.base, 'GET', '/oauth/token', { accept: 'text/html' });
    assert.match(String(token.headers['content-type']), 'application/json');
    // A program whose Accept lists text/html first (Java's HttpURLConnection by default) still
    // gets RFC 6749's JSON from the endpoints, and from any address under /oauth but the pages.
    for (const [method, path, type, body] of [
      ['POST', '/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=authorization_code&code=x&client_id=y'],
      ['POST', '/oauth/revoke', 'application/x-www-form-urlencoded', 'token=x&client_id=y'],
      ['POST', '/oauth/register', 'application/json', '{"redirect_uris":["not a uri"]}'],
      ['GET', '/oauth/nope', '', ''],
      ['GET', '/oauth', '', ''],
      ['GET', '/oauth/token;x=1', '', ''],
      ['GET', '/oauth/./token', '', ''],
      ['GET', '/oauth/x/../token', '', ''],
      ['GET', '/oauth/token%00', '', ''],
      ['GET', '/oauth/token%zz', '', ''],
      ['GET', '/oauth;jsessionid=1', '', ''],
      ['POST', '/oauth%00', '', ''],
      ['GET', '/oauth%zz', '', ''],
      ['GET', '/.well-known/openid-configuration;x=1', '', ''],
    ] as const) {
      const answer = await send(s.base, method, path, { accept: JAVA_ACCEPT, ...(type ? { 'content-type': type } : {}) }, body || undefined);
      assert.ok(answer.status >= 400, `${method} ${path}: ${answer.status}`);
      assert.match(String(answer.headers['content-type']), 'application/json', `${method} ${path}`);
      assert.ok(isOAuthError(json(answer.body)), `${method} ${path}: ${answer.body}`);
    }
    // An encoded API address is an API address: JSON even to a browser.
    const api = await send(s.base, 'GET', '/%61pi/v1/nothing', { accept: 'text/html' });
    assert.is(api.status, 404);
    assert.is((json(api.body) as { error: { code: string } }).error.code, 'not_found');
  } finally {
    await s.close();
  }
});

test('a body on a GET is a 413 whatever its size, and a 5 MB chunked body (GET, or POST over the limit) is answered, not reset', async () => {
  const s = await startServer();
  try {
    for (const path of ['/v1/agent-access/context', '/api/v1/workouts', '/health', '/oauth/jwks', '/.well-known/openid-configuration']) {
      const small = await send(s.base, 'GET', path, { 'content-type': 'application/json' }, '{"a":1}');
      assert.is(small.status, 413, path);
      assert.is(offContract(path, 'GET', small), null, `${path}: ${small.body}`);
      const chunked = await send(s.base, 'GET', path, {}, FIVE_MB);
      assert.is(chunked.status, 413, path);
      assert.ok(chunked.chunksBeforeAnswer! < FIVE_MB.length, `${path}: answered while the body was still on its way`);
      assert.is(offContract(path, 'GET', chunked), null, `${path}: ${chunked.body}`);
    }
    // Over a route's limit, chunked: answered 413, not a reset connection.
    for (const path of ['/v1/agent-access/writes/proposals', '/mcp', '/sign-in']) {
      const type = path === '/sign-in' ? 'application/x-www-form-urlencoded' : 'application/json';
      const answer = await send(s.base, 'POST', path, { 'content-type': type }, FIVE_MB);
      assert.is(answer.status, 413, path);
      assert.ok(answer.chunksBeforeAnswer! < FIVE_MB.length, `${path}: answered while the body was still on its way`);
      assert.match(String(answer.headers['content-type']), 'application/json', path);
    }
    // The authorization server reads bodies itself: a chunked one over its limit is its 413, in
    // RFC 6749's shape; one within the limit, chunked, still reaches the endpoint.
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const type = path === '/oauth/register' ? 'application/json' : 'application/x-www-form-urlencoded';
      const answer = await send(s.base, 'POST', path, { 'content-type': type }, FIVE_MB);
      assert.is(answer.status, 413, path);
      assert.ok(answer.chunksBeforeAnswer! < FIVE_MB.length, `${path}: answered while the body was still on its way`);
      assert.is(offContract(path, 'POST', answer), null, `${path}: ${answer.body}`);
    }
    const small = await send(s.base, 'POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, [
      Buffer.from('grant_type=authorization_code&code=nope'),
      Buffer.from('&client_id=nobody'),
    ]);
    // The endpoint read it: the client it names is unknown.
    assert.is(small.status, 401);
    assert.is((json(small.body) as { error?: string }).error, 'invalid_client', small.body);
    const page = await send(s.base, 'GET', '/sign-in', { accept: 'text/html' }, 'x');
    assert.is(page.status, 413);
    assert.match(page.body, '<html');
    // A client that asked to close the connection still gets the answer whole, not a reset: the
    // close waits for the body to be read.
    for (const [head, status] of [
      ['GET /api/v1/me HTTP/1.1\r\nhost: x\r\n', '413'],
      ['POST /oauth/token HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\n', '413'],
      ['POST /v1/agent-access/writes/proposals HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n', '413'],
    ] as const) {
      for (let i = 0; i < 5; i++) {
        const { answer, reset } = await sendAndClose(s.base, head);
        assert.is(reset, null, `${head.split('\r')[0]}: the connection was reset`);
        assert.match(answer, new RegExp(`^HTTP/1.1 ${status} `), head);
        assert.match(answer.toLowerCase(), 'connection: close', head);
      }
    }
  } finally {
    await s.close();
  }
});

/**
 * A request with a 5 MB body on a connection the client asked to close, sent over a bare socket
 * as fast as it drains: what came back, and whether the connection was reset under the client.
 */
function sendAndClose(base: string, head: string): Promise<{ answer: string; reset: string | null }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let reset: string | null = null;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', (error: NodeJS.ErrnoException) => (reset = error.code ?? error.message));
    socket.on('close', () => resolve({ answer, reset }));
    socket.write(`${head}connection: close\r\ncontent-length: ${FIVE_MB.length * FIVE_MB[0]!.length}\r\n\r\n`);
    let written = 0;
    const next = (): void => {
      while (written < FIVE_MB.length && !socket.destroyed) if (!socket.write(FIVE_MB[written++]!)) return void socket.once('drain', next);
      if (!socket.destroyed) socket.end();
    };
    next();
  });
}

/** Bytes written on a bare socket, and everything that came back before the server closed it. */
function exchange(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer));
    socket.write(bytes);
  });
}

test("what the HTTP parser refuses is answered in its audience's shape, and a HEAD without a body", async () => {
  const s = await startServer();
  try {
    const long = 'x'.repeat(70_000);
    for (const [method, path, oauth] of [
      ['GET', `/mcp/${long}`, false],
      ['HEAD', `/mcp/${long}`, false],
      ['GET', `/oauth/authorize/${long}`, true],
      ['HEAD', `/oauth/token/${long}`, true],
    ] as const) {
      const answer = await exchange(s.base, `${method} ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1.1 431 /, `${method} ${path.slice(0, 20)}`);
      if (method === 'HEAD') {
        assert.is(body, '', 'a HEAD is answered without a body');
        continue;
      }
      const parsed = json(body!);
      assert.ok(oauth ? isOAuthError(parsed) : agentAccessError.safeParse(parsed).success, `${method} ${path.slice(0, 20)}: ${body}`);
    }
    // Not HTTP at all: the shared error shape.
    const garbage = await exchange(s.base, 'GET /v1 HTTP/1.1\r\nhost x\r\n\r\n');
    assert.match(garbage, /^HTTP\/1.1 400 /);
    assert.ok(agentAccessError.safeParse(json(garbage.split('\r\n\r\n')[1]!)).success, garbage);
  } finally {
    await s.close();
  }
});

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

/**
 * A path as a client might write it: a letter percent-encoded, a slash doubled, a trailing slash,
 * a letter's case changed, a dot segment, a `;` parameter, a NUL or a broken escape at its end.
 */
const encoded = (path: string) =>
  fc
    .array(fc.tuple(fc.constantFrom('percent', 'PERCENT', 'double', 'trailing', 'case', 'dot', 'param', 'nul', 'broken'), fc.nat()), { maxLength: 3 })
    .map((changes) => {
      let p = path;
      for (const [change, n] of changes) {
        if (change === 'dot') {
          p = p.replace(/^(\/[^/]*)/, n % 2 ? '$1/.' : '$1/x/..');
          continue;
        }
        if (change === 'param' || change === 'nul' || change === 'broken') {
          p = `${p}${{ param: ';x=1', nul: '%00', broken: '%zz' }[change]}`;
          continue;
        }
        const letters = [...p.matchAll(/(?<!%[0-9a-f]?)[a-z]/gi)].map((m) => m.index);
        const at = letters.length ? letters[n % letters.length]! : 1;
        if (change === 'percent' || change === 'PERCENT') {
          const hex = p.charCodeAt(at).toString(16);
          p = `${p.slice(0, at)}%${change === 'PERCENT' ? hex.toUpperCase() : hex}${p.slice(at + 1)}`;
        } else if (change === 'double') {
          const slashes = [...p.matchAll(/\//g)].map((m) => m.index);
          const slash = slashes[n % slashes.length]!;
          p = `${p.slice(0, slash)}/${p.slice(slash)}`;
        } else if (change === 'trailing') p = `${p}/`;
        else p = `${p.slice(0, at)}${p[at]!.toUpperCase() === p[at] ? p[at]!.toLowerCase() : p[at]!.toUpperCase()}${p.slice(at + 1)}`;
      }
      return p;
    });

test('a seeded fuzz of every OAuth and API path, method and encoding finds no off-contract answer', async () => {
  const s = await startServer();
  const failures: string[] = [];
  try {
    const cases = fc.sample(
      fc.tuple(
        fc.constantFrom(...OAUTH, ...DISCOVERY, ...API).chain((path) => encoded(path)),
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        fc.constantFrom('application/json', '*/*', '', JAVA_ACCEPT),
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('{}', 'a=1', 'x'.repeat(2048)) }),
      ),
      { numRuns: 1500, seed: SEED },
    );
    for (const [path, method, accept, body] of cases) {
      const headers: Record<string, string> = accept ? { accept } : {};
      if (body !== undefined) headers['content-type'] = body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded';
      const answer = await send(s.base, method, path, headers, body);
      const problem = offContract(path, method, answer);
      if (problem && failures.length < 20)
        failures.push(`${method} ${path} (accept ${accept || 'none'}, body ${body?.length ?? 0}) → ${answer.status} ${problem}: ${answer.body.slice(0, 120)}`);
      // An address that is not one (a broken escape) is refused as such first.
      const malformed = /%(?![0-9a-f]{2})/i.test(path);
      if (method === 'GET' && body !== undefined && !malformed && answer.status !== 413 && failures.length < 20)
        failures.push(`GET ${path} with a body → ${answer.status}`);
    }
    console.log(`    ${cases.length} requests sent (seed ${SEED})`);
    assert.equal(failures, [], failures.join('\n'));
  } finally {
    await s.close();
  }
});

test.run();
