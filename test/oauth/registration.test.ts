// Dynamic client registration: what discovery promises, what registration accepts (the
// public-client code + PKCE flow, bounded fields, safe redirect URIs), how often an address may
// register, and that unused registrations and expired artifacts do not stay for ever.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { OAUTH } from '../../services/identity/oauth-store.ts';
import { cleanUpOAuthState, scheduleOAuthCleanup } from '../../services/oauth/cleanup.ts';
import { AttemptLimiter } from '../../services/web/limiter.ts';
import { clientMetadataProblem, redirectUriProblem } from '../../services/oauth/client-policy.ts';
import { SECURITY_POLICY } from '../../contracts/policy.ts';
import { addressKey as registrantKey } from '../../services/web/limiter.ts';
import { connect, registerPro } from '../support/connect.ts';
import { eventually } from '../support/eventually.ts';
import { type TestServer, withServer as withFreshServer } from '../support/server.ts';

const register = (s: TestServer, metadata: Record<string, unknown>, path = '/oauth/register') =>
  fetch(`${s.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });

const client = (extra: Record<string, unknown> = {}) => ({
  client_name: 'Coach Bot',
  redirect_uris: ['https://coach.example/cb'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

const withServer = (run: (s: TestServer) => Promise<void>, clock = fixedClock('2026-06-01T12:00:00.000Z')) => withFreshServer(run, clock);

async function refusal(res: Response): Promise<string> {
  return (await refusalBody(res)).error;
}

async function refusalBody(res: Response): Promise<{ error: string; error_description: string }> {
  assert.is(res.status, 400, `expected a refusal, got ${res.status}`);
  return (await res.json()) as { error: string; error_description: string };
}

test('redirect URIs: https, or http on a loopback host only', () => {
  for (const ok of ['https://coach.example/cb', 'http://localhost:8080/cb', 'http://127.0.0.1/cb', 'http://[::1]:5000/cb'])
    assert.is(redirectUriProblem(ok), null, ok);
  for (const bad of [
    'http://evil.example/cb',
    'http://127.0.0.1.evil.example/cb',
    'http://localhost.evil.example/',
    'javascript:alert(1)',
    'com.example.app:/cb',
    'ftp://coach.example/',
    'not a url',
    42,
  ]) {
    assert.ok(redirectUriProblem(bad), String(bad));
  }
});

test('registration refuses a plain-http redirect URI off loopback, and accepts https and loopback', () =>
  withServer(async (s) => {
    assert.is(await refusal(await register(s, client({ redirect_uris: ['http://evil.example/cb'] }))), 'invalid_redirect_uri');
    assert.is(await refusal(await register(s, client({ redirect_uris: ['https://coach.example/cb', 'http://evil.example/cb'] }))), 'invalid_redirect_uri');
    assert.is(await refusal(await register(s, client({ post_logout_redirect_uris: ['http://evil.example/bye'] }))), 'invalid_redirect_uri');
    // The description says the rule, not oidc-provider's "did not match any registered redirect_uris".
    for (const metadata of [
      client({ redirect_uris: ['javascript:alert(1)'] }),
      { redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' },
    ]) {
      const body = await refusalBody(await register(s, metadata));
      assert.is(body.error, 'invalid_redirect_uri');
      assert.match(body.error_description, /^redirect_uris: redirect URIs must use https, or http on localhost, 127\.0\.0\.1 or \[::1\]/);
    }
    assert.is((await register(s, client())).status, 201);
    assert.is((await register(s, client({ redirect_uris: ['http://localhost:33418/cb'] }))).status, 201);
    assert.is((await register(s, client({ application_type: 'native', redirect_uris: ['http://[::1]/cb'] }))).status, 201);
  }));

test('every registered field is bounded: the name, text without controls, URIs and arrays', () =>
  withServer(async (s) => {
    assert.is(await refusal(await register(s, client({ client_name: 'x'.repeat(101) }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ client_name: 'Coach \u202Etob' }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ client_name: 'Coach\nBot' }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ client_name: 'x'.repeat(50_000) }))), 'invalid_client_metadata');
    const many = Array.from({ length: 11 }, (_, i) => `https://coach.example/cb${i}`);
    // oidc-provider answers any problem naming redirect_uris as invalid_redirect_uri.
    assert.is(await refusal(await register(s, client({ redirect_uris: many }))), 'invalid_redirect_uri');
    assert.is(await refusal(await register(s, client({ redirect_uris: [`https://coach.example/${'a'.repeat(2000)}`] }))), 'invalid_redirect_uri');
    assert.is(await refusal(await register(s, client({ client_uri: `https://coach.example/${'a'.repeat(2000)}` }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ contacts: Array.from({ length: 11 }, (_, i) => `a${i}@coach.example`) }))), 'invalid_client_metadata');
    // Over what the authorization server reads: a 413 that says so, not a body it 'failed to parse'.
    const huge = await register(s, client({ software_statement: 'x'.repeat(10 * 1024 * 1024) }));
    assert.is(huge.status, 413);
    assert.equal(await huge.json(), {
      error: 'invalid_request',
      error_description: 'the request body is larger than the 56 KB the authorization server reads',
    });
    const ok = await register(s, client({ client_name: 'Ü'.repeat(100) }));
    assert.is(ok.status, 201);
    assert.is(((await ok.json()) as { client_name: string }).client_name, 'Ü'.repeat(100));
  }));

test('the metadata policy names the first problem and passes a plain public client', () => {
  assert.is(clientMetadataProblem(client()), null);
  assert.equal(clientMetadataProblem(client({ client_name: 'a\u2066b' }))?.error, 'invalid_client_metadata');
  assert.equal(clientMetadataProblem(client({ redirect_uris: ['http://evil.example/'] }))?.error, 'invalid_redirect_uri');
  assert.equal(clientMetadataProblem(client({ software_id: 'x'.repeat(201) }))?.error, 'invalid_client_metadata');
});

test('discovery advertises exactly the public-client code + PKCE flow', () =>
  withServer(async (s) => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const meta = (await (await fetch(`${s.base}${path}`)).json()) as Record<string, unknown>;
      assert.equal(meta.response_types_supported, ['code'], path);
      assert.equal(meta.grant_types_supported, ['authorization_code', 'refresh_token'], path);
      assert.equal(meta.token_endpoint_auth_methods_supported, ['none'], path);
      assert.is(meta.pushed_authorization_request_endpoint, undefined, path);
      assert.is(meta.dpop_signing_alg_values_supported, undefined, path);
      assert.equal(meta.response_modes_supported, ['query'], path);
      assert.equal(meta.code_challenge_methods_supported, ['S256'], path);
    }
  }));

test('an authorization request for another response mode is refused', () =>
  withServer(async (s) => {
    const id = ((await (await register(s, client())).json()) as { client_id: string }).client_id;
    for (const [mode, path] of [
      ['form_post', '/oauth/authorize'],
      ['fragment', '/oauth/authorize'],
      ['fragment', '/oauth/authorize/'],
    ] as const) {
      const url = new URL(`${s.base}${path}`);
      const params = {
        client_id: id,
        response_type: 'code',
        response_mode: mode,
        redirect_uri: 'https://coach.example/cb',
        scope: 'training',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      assert.is(res.status, 400, `${mode} at ${path}`);
      assert.match(await res.text(), /response_mode .* is not supported/);
    }
  }));

test('registrations outside that flow are refused', () =>
  withServer(async (s) => {
    assert.is(await refusal(await register(s, client({ token_endpoint_auth_method: 'client_secret_basic' }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ token_endpoint_auth_method: 'client_secret_post' }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ token_endpoint_auth_method: 'private_key_jwt' }))), 'invalid_client_metadata');
    assert.is(
      await refusal(await register(s, client({ response_types: ['code id_token'], grant_types: ['authorization_code', 'implicit'] }))),
      'invalid_client_metadata',
    );
    assert.is(await refusal(await register(s, client({ response_types: ['id_token'], grant_types: ['implicit'] }))), 'invalid_client_metadata');
    assert.is(await refusal(await register(s, client({ grant_types: ['client_credentials'], response_types: [] }))), 'invalid_client_metadata');
    const ok = await register(s, client({}));
    assert.is(ok.status, 201);
    const registered = (await ok.json()) as Record<string, unknown>;
    assert.is(registered.token_endpoint_auth_method, 'none');
    assert.not.ok('client_secret' in registered, 'a public client gets no secret');
  }));

test('registration is limited per address: 429 with Retry-After, open again after the window', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  await withServer(async (s) => {
    for (let i = 0; i < SECURITY_POLICY.registrationsPerAddress; i++) assert.is((await register(s, client())).status, 201, `registration ${i + 1}`);
    // oidc-provider would take `/oauth/register/` for the same endpoint: it is no way round the limit (review finding).
    assert.is.not((await register(s, client(), '/oauth/register/')).status, 201, 'the trailing slash registers nothing');
    const refused = await register(s, client());
    assert.is(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${refused.headers.get('retry-after')}`);
    assert.is(((await refused.json()) as { error: string }).error, 'too_many_requests');
    // Refused attempts do not extend the wait.
    assert.is((await register(s, client())).status, 429);
    clock.advance(retryAfter * 1000);
    assert.is((await register(s, client())).status, 201);
  }, clock);
});

test('registrations count per IPv4 address and per IPv6 /64', () => {
  assert.is(registrantKey('203.0.113.7'), '203.0.113.7');
  assert.is(registrantKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.is(registrantKey('2001:db8:1:2:3:4:5:6'), registrantKey('2001:db8:1:2::9'));
  assert.is.not(registrantKey('2001:db8:1:2::9'), registrantKey('2001:db8:1:3::9'));
});

test('the limiter forgets addresses without recent attempts when pruned, and keeps counting the others', () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const limiter = new AttemptLimiter(2, 60_000, clock);
  limiter.record('a');
  clock.advance(30_000);
  limiter.record('b');
  limiter.record('b');
  clock.advance(31_000);
  assert.is(limiter.size, 2);
  limiter.prune();
  assert.is(limiter.size, 1, 'a had nothing recent');
  assert.ok(limiter.retryAfter('b') > 0, 'b is still limited');
});

const authorize = (s: TestServer, clientId: string) => {
  const url = new URL(`${s.base}/oauth/authorize`);
  const params = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: 'https://coach.example/cb',
    scope: 'training',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'xyz',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual' });
};

const stored = async (s: TestServer, model: string) => (await s.app.reads.dump(OAUTH)).filter((d) => d.partition === model).length;

test('a client that never completes an authorization expires; one that did is kept', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  await withServer(async (s) => {
    await registerPro(s.app);
    const unused = ((await (await register(s, client())).json()) as { client_id: string }).client_id;
    const resource = `${s.base}/v1/agent-access`;
    const { client: used, tokens } = await connect(s.base, resource, ['training']);
    assert.is((await authorize(s, unused)).status, 303, 'usable while fresh');

    clock.advance(25 * 3600_000);
    const gone = await authorize(s, unused);
    assert.is(gone.status, 400);
    assert.match(await gone.text(), /client is invalid|invalid_client/);
    const refresh = await fetch(`${s.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: used.info!.client_id, resource }),
    });
    assert.is(refresh.status, 200, 'the connected client still refreshes a day later');
  }, clock);
});

test('the clean-up deletes expired codes, sessions, interactions and unused clients, and nothing live', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  await withServer(async (s) => {
    await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const { client: used, tokens } = await connect(s.base, resource, ['training']);
    // Abandoned sign-ins: each leaves an interaction behind.
    const unused = ((await (await register(s, client())).json()) as { client_id: string }).client_id;
    for (let i = 0; i < 5; i++) assert.is((await authorize(s, unused)).status, 303);
    assert.ok((await stored(s, 'Interaction')) >= 5);
    assert.is(await stored(s, 'Client'), 2);

    assert.is(await cleanUpOAuthState(s.app.reads, clock), 0, 'nothing has expired yet');
    clock.advance(25 * 3600_000);
    const deleted = await cleanUpOAuthState(s.app.reads, clock);
    assert.ok(deleted >= 7, `deleted ${deleted}`);
    assert.is(await stored(s, 'Interaction'), 0);
    assert.is(await stored(s, 'AuthorizationCode'), 0);
    assert.is(await stored(s, 'AccessToken'), 0);
    assert.is(await stored(s, 'Client'), 1, 'the unused client is gone, the connected one kept');
    assert.is(await stored(s, 'Grant'), 1);

    const refresh = await fetch(`${s.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: used.info!.client_id, resource }),
    });
    assert.is(refresh.status, 200, 'the live refresh token and grant survived the clean-up');

    clock.advance(15 * 86400_000);
    await cleanUpOAuthState(s.app.reads, clock);
    assert.is(await stored(s, 'Session'), 0, 'sessions go after their 14 days');
  }, clock);
});

test('the clean-up runs on its schedule', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  await withServer(async (s) => {
    const unused = ((await (await register(s, client())).json()) as { client_id: string }).client_id;
    assert.is((await authorize(s, unused)).status, 303);
    clock.advance(25 * 3600_000);
    const errors: unknown[] = [];
    const stop = scheduleOAuthCleanup(s.app.reads, s.app.clock, (error) => errors.push(error), 20);
    try {
      // The schedule's own timer runs the clean-up: wait for what it leaves, against a deadline.
      await eventually(
        async () => {
          const left = { clients: await stored(s, 'Client'), interactions: await stored(s, 'Interaction'), errors: errors.map(String) };
          return { done: (left.clients === 0 && left.interactions === 0) || errors.length > 0, value: left };
        },
        { what: 'the scheduled clean-up removes the unused client and its interaction', timeoutMs: 10_000 },
      );
    } finally {
      stop();
    }
    assert.is(await stored(s, 'Client'), 0);
    assert.is(await stored(s, 'Interaction'), 0);
    assert.equal(errors, []);
  }, clock);
});

test.run();
