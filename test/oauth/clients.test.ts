// What the authorization server offers clients beyond the main flow.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

test('discovery advertises what MCP clients rely on, and nothing they must not use', async () => {
  const s = await startServer();
  try {
    const meta = (await (await fetch(`${s.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.is(meta.issuer, s.base);
    assert.is(meta.registration_endpoint, `${s.base}/oauth/register`);
    assert.is(meta.revocation_endpoint, `${s.base}/oauth/revoke`);
    assert.equal(meta.code_challenge_methods_supported, ['S256']);
    assert.is(meta.client_id_metadata_document_supported, true);
    assert.ok((meta.scopes_supported as string[]).includes('training'));
    assert.not.ok((meta.scopes_supported as string[]).includes('offline_access'));
    const oidc = (await (await fetch(`${s.base}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.is(oidc.issuer, s.base);
  } finally {
    await s.close();
  }
});

test('a native client registered for a loopback redirect may come back on any port', async () => {
  const s = await startServer();
  try {
    const registered = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Desktop app',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.is(registered.status, 201);
    const client = (await registered.json()) as { client_id: string };
    const authorize = (redirect: string) => {
      const url = new URL(`${s.base}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: redirect,
        scope: 'training',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: `${s.base}/mcp`,
        state: 'xyz',
      }))
        url.searchParams.set(k, v);
      return fetch(url, { redirect: 'manual' });
    };
    const ok = await authorize('http://127.0.0.1:54321/callback');
    assert.is(ok.status, 303);
    assert.match(ok.headers.get('location') ?? '', /^\/oauth\/interaction\//);
    const elsewhere = await authorize('http://evil.example:54321/callback');
    assert.is(elsewhere.status, 400, 'only the registered loopback host and path');
  } finally {
    await s.close();
  }
});

test('a refresh token revoked at the revocation endpoint no longer works', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, resource, ['training']);
    const form = (body: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    const revoked = await fetch(`${s.base}/oauth/revoke`, form({ token: tokens.refresh_token!, client_id: client.info!.client_id }));
    assert.is(revoked.status, 200);
    const refresh = await fetch(
      `${s.base}/oauth/token`,
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.info!.client_id, resource }),
    );
    assert.is(refresh.status, 400);
    assert.is(((await refresh.json()) as { error: string }).error, 'invalid_grant');
  } finally {
    await s.close();
  }
});

test.run();
