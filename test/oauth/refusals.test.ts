// Each refusal of the authorization server and of Agent Access, with its status and header.
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beginAuthorization, connect, consent, registerPro, REDIRECT } from '../support/connect.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { startServer, type TestServer, withServer } from '../support/server.ts';
import { tempDir } from '../support/app.ts';
import { cli } from '../support/cli.ts';

const context = (s: TestServer, token?: string) => fetch(`${s.base}/v1/agent-access/context`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

test('no token: 401 with the resource metadata challenge and the error shape', () =>
  withServer(async (s) => {
    const res = await context(s);
    assert.is(res.status, 401);
    assert.is(res.headers.get('www-authenticate'), `Bearer resource_metadata="${s.base}/.well-known/oauth-protected-resource/v1/agent-access"`);
    assert.is(res.headers.get('cache-control'), 'private, no-store');
    const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
    assert.is(body.error.code, 'unauthorized');
    assert.is(body.error.request_id, res.headers.get('x-request-id'));
    const garbage = await context(s, 'not-a-token');
    assert.is(garbage.status, 401);
    assert.match(garbage.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  }));

test('protected resource metadata names the authorization server and the read scopes only', () =>
  withServer(async (s) => {
    for (const [path, resource] of [
      ['/mcp', `${s.base}/mcp`],
      ['/v1/agent-access', `${s.base}/v1/agent-access`],
      ['', s.base],
    ]) {
      const meta = (await (await fetch(`${s.base}/.well-known/oauth-protected-resource${path}`)).json()) as Record<string, unknown>;
      assert.is(meta.resource, resource);
      assert.equal(meta.authorization_servers, [s.base]);
      assert.equal(meta.scopes_supported, ['training', 'recovery', 'nutrition', 'body_measurements']);
    }
  }));

test('a token minted for another resource is refused; an unknown resource gets no token', () =>
  withServer(async (s) => {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/mcp`, ['training']);
    const res = await context(s, tokens.access_token);
    assert.is(res.status, 401, 'an /mcp token does not open the REST base');
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training');
    const url = new URL(client.authorizationUrl!);
    url.searchParams.set('resource', 'https://api.example.com/');
    const other = await fetch(url, { redirect: 'manual' });
    const location = new URL(other.headers.get('location') ?? 'http://x/', s.base);
    assert.is(location.searchParams.get('error'), 'invalid_target');
  }));

test('a replayed authorization code and a missing PKCE verifier are refused', () =>
  withServer(async (s) => {
    await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const client = await beginAuthorization(resource, 'training');
    const code = await consent(s.base, client, ['training']);
    const exchange = (extra: Record<string, string>) =>
      fetch(`${s.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.info!.client_id, resource, ...extra }),
      });
    const noVerifier = await exchange({});
    assert.is(noVerifier.status, 400);
    assert.match(JSON.stringify(await noVerifier.json()), /invalid_(grant|request)/);
    // The refused attempt consumed nothing that lets a second one through with the wrong verifier.
    const wrongVerifier = await exchange({ code_verifier: randomBytes(32).toString('base64url') });
    assert.is(wrongVerifier.status, 400);

    const client2 = await beginAuthorization(resource, 'training');
    const code2 = await consent(s.base, client2, ['training']);
    const body = {
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: REDIRECT,
      client_id: client2.info!.client_id,
      code_verifier: client2.verifier,
      resource,
    };
    const first = await fetch(`${s.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    assert.is(first.status, 200);
    const issued = (await first.json()) as { access_token: string };
    assert.is((await context(s, issued.access_token)).status, 200);
    const replay = await fetch(`${s.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    assert.is(replay.status, 400);
    assert.is(((await replay.json()) as { error: string }).error, 'invalid_grant');
    assert.is((await context(s, issued.access_token)).status, 401, 'a replayed code revokes what the code issued');
  }));

test('authorization without a PKCE challenge is refused', () =>
  withServer(async (s) => {
    await registerPro(s.app);
    const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training');
    const url = new URL(client.authorizationUrl!);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') ?? 'http://x/', s.base);
    assert.is(location.searchParams.get('error'), 'invalid_request');
    const plain = new URL(client.authorizationUrl!);
    plain.searchParams.set('code_challenge_method', 'plain');
    plain.searchParams.set('code_challenge', createHash('sha256').update('x').digest('base64url'));
    const refused = await fetch(plain, { redirect: 'manual' });
    assert.is(new URL(refused.headers.get('location') ?? 'http://x/', s.base).searchParams.get('error'), 'invalid_request');
  }));

test('disconnecting stops the very next request and the refresh token', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, resource, ['training', 'recovery']);
    const refresh = (refreshToken: string) =>
      fetch(`${s.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.info!.client_id, resource }),
      });
    const rotated = await refresh(tokens.refresh_token!);
    assert.is(rotated.status, 200, 'refresh works while connected');
    const fresh = (await rotated.json()) as { access_token: string; refresh_token: string };
    assert.is.not(fresh.refresh_token, tokens.refresh_token, 'refresh tokens rotate');

    // Twice, so that the disconnect below meets a caller already remembered.
    assert.is((await context(s, fresh.access_token)).status, 200);
    const before = await context(s, fresh.access_token);
    assert.is(before.status, 200);
    const grantId = ((await before.json()) as { data: { grant_id: string } }).data.grant_id;
    await s.app.connections.disconnect(athleteId, grantId);
    const after = await context(s, fresh.access_token);
    assert.is(after.status, 401);
    assert.match(after.headers.get('www-authenticate') ?? '', /resource_metadata=/);
    const refused = await refresh(fresh.refresh_token);
    assert.is(refused.status, 400);
    assert.is(((await refused.json()) as { error: string }).error, 'invalid_grant');
    const events = await s.app.events.readStream(`connections-${athleteId}`);
    assert.equal(
      events.map((e) => e.type),
      ['grant.connected', 'grant.disconnected'],
    );
  }));

test('a lapsed subscription is refused at once; a Free athlete cannot connect', () =>
  withServer(async (s) => {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    for (let i = 0; i < 2; i++) assert.is((await context(s, tokens.access_token)).status, 200);
    await s.app.athletes.setTier('ada@example.com', 'free', { type: 'operator', id: 'test' });
    const lapsed = await context(s, tokens.access_token);
    assert.is(lapsed.status, 401);
    assert.match(((await lapsed.json()) as { error: { message: string } }).error.message, /Pro subscription/);

    await registerPro(s.app, 'bob@example.com', 'free');
    const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training');
    try {
      await consent(s.base, client, ['training'], 'bob@example.com');
      assert.unreachable('a Free athlete was offered consent');
    } catch (error) {
      assert.match(String(error), /no consent form/);
      assert.match(String(error), /needs Pro|Pro plan/);
    }
  }));

test('a plan lapsed from the CLI, in another process, refuses the next request of a token just answered', async () => {
  const dataDir = tempDir();
  const s = await startServer({ dataDir });
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    // Answered twice, so that the second answer and the refusal below come after the caller was remembered.
    for (let i = 0; i < 2; i++) assert.is((await context(s, tokens.access_token)).status, 200);
    const lapsed = await cli(['subscriptions', 'set', '--athlete', 'ada@example.com', '--tier', 'free'], { DATA_DIR: dataDir });
    assert.is(lapsed.code, 0, lapsed.stderr);
    const refused = await context(s, tokens.access_token);
    assert.is(refused.status, 401);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /Pro subscription/);
  } finally {
    await s.close();
  }
});

test('a scope the grant lacks: 403 insufficient_scope naming the scopes needed and granted', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery']);
    const res = await fetch(`${s.base}/v1/agent-access/nutrition/meals`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(res.status, 403);
    assert.is(
      res.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="nutrition training recovery", resource_metadata="${s.base}/.well-known/oauth-protected-resource/v1/agent-access"`,
    );
    assert.is(((await res.json()) as { error: { code: string } }).error.code, 'insufficient_scope');
    assert.not.match(res.headers.get('www-authenticate') ?? '', 'offline_access');
    // The areas granted still answer.
    assert.is((await fetch(`${s.base}/v1/agent-access/recovery/check-ins`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200);
  } finally {
    await s.close();
  }
});

test('an expired access token is refused', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const s = await startServer({ clock });
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    // Twice: the caller is then remembered, and only its expiry can refuse it.
    for (let i = 0; i < 2; i++) assert.is((await context(s, tokens.access_token)).status, 200);
    clock.advance(16 * 60_000);
    const expired = await context(s, tokens.access_token);
    assert.is(expired.status, 401);
    assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  } finally {
    await s.close();
  }
});

test.run();
