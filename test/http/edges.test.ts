// HTTP edges (issue 40): wrong methods and encoded paths on the OAuth and API endpoints, bodies on
// GET, and an oversized chunked body. Each answer is in its audience's documented shape.
import fc from 'fast-check';
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

const OAUTH = ['/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/jwks', '/oauth/revoke', '/oauth/logout', '/oauth/userinfo', '/oauth/nothing'];
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
/** The authorization server's pages for people: a refusal there may be a page. */
const BROWSER_ENDPOINTS = /^\/oauth\/(authorize|logout)\/?$/;

/** How the router reads a path: unreserved characters decoded, slashes collapsed, case ignored. */
function canonical(path: string): string {
  return path
    .replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(Number.parseInt(h, 16))) ? String.fromCharCode(Number.parseInt(h, 16)) : m,
    )
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
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
  const oauth = /^\/(oauth|\.well-known\/(openid-configuration|oauth-authorization-server))(\/|$)/.test(where);
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
  } finally {
    await s.close();
  }
});

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

/** A path as a client might write it: a letter percent-encoded, a slash doubled, a trailing slash, a letter's case changed. */
const encoded = (path: string) =>
  fc.array(fc.tuple(fc.constantFrom('percent', 'PERCENT', 'double', 'trailing', 'case'), fc.nat()), { maxLength: 3 }).map((changes) => {
    let p = path;
    for (const [change, n] of changes) {
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
        fc.constantFrom('application/json', '*/*', ''),
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
      if (method === 'GET' && body !== undefined && answer.status !== 413 && failures.length < 20) failures.push(`GET ${path} with a body → ${answer.status}`);
    }
    console.log(`    ${cases.length} requests sent (seed ${SEED})`);
    assert.equal(failures, [], failures.join('\n'));
  } finally {
    await s.close();
  }
});

test.run();
