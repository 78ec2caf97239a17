// invalid_target is decided before anything is consumed: a refused authorization, code exchange or
// refresh leaves the client's code or refresh token usable, the client's next correct request
// succeeds, and the connection stays connected (not "disconnected / ..._reused").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AdapterPayload } from 'oidc-provider';
import { OAUTH } from '../../services/identity/oauth-store.ts';
import { effectiveResource, pickResource } from '../../services/oauth/provider.ts';
import { beginAuthorization, connect, consent, follow, registerPro, REDIRECT } from '../support/connect.ts';
import { FormClient, type TestServer, withServer } from '../support/server.ts';

const post = (s: TestServer, path: string, body: Record<string, string>) =>
  fetch(`${s.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

async function assertConnected(s: TestServer, athleteId: string) {
  // oidc-provider reports a revocation before it answers the request that caused it; the
  // listener records it in the background. Every revocation those requests caused is recorded
  // once this settles, however slow the machine.
  await s.app.connections.revocationsRecorded();
  assert.is((await s.app.connections.list(athleteId))[0]?.status, 'connected');
  const events = await s.app.events.readStream(`connections-${athleteId}`);
  assert.equal(
    events.map((e) => e.type),
    ['grant.connected'],
  );
}

async function opensRest(s: TestServer, accessToken: string) {
  return (await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

test('the resource oidc-provider will use: the requested one, else the granted one, MCP first among several', () => {
  const mcp = 'https://rl.example/mcp';
  const rest = 'https://rl.example/v1/agent-access';
  assert.is(pickResource([rest, 'https://rl.example'], mcp), rest);
  assert.is(pickResource([rest, mcp], mcp), mcp);
  assert.is(effectiveResource(undefined, rest, mcp), rest);
  assert.is(effectiveResource(undefined, [rest, 'https://rl.example'], mcp), rest);
  assert.is(effectiveResource(mcp, rest, mcp), mcp);
  assert.is(effectiveResource(undefined, undefined, mcp), undefined);
});

test('an authorization asking for more than one resource is refused with invalid_target', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const client = await beginAuthorization(`${s.base}/v1/agent-access`, 'training');
    const url = new URL(client.authorizationUrl!.href);
    assert.equal(url.searchParams.getAll('resource'), [`${s.base}/v1/agent-access`]);
    url.searchParams.append('resource', s.base);
    const answer = await follow(new FormClient(s.base), url.href);
    assert.ok(answer.location.startsWith(REDIRECT), `refused back to the client, not ${answer.location}`);
    const params = new URL(answer.location).searchParams;
    assert.is(params.get('error'), 'invalid_target');
    assert.is(params.get('code'), null);

    // The client's next, correct authorization succeeds.
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    assert.is(await opensRest(s, tokens.access_token), 200);
    await assertConnected(s, athleteId);
  }));

test('a refresh token holding several resources (granted before the one-resource rule) refreshes without a resource', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const rest = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, rest, ['training']);
    // What `resource=<rest>&resource=<base>` at /oauth/authorize used to leave in the store.
    const stored = (await s.app.reads.get<{ id: string; payload: AdapterPayload }>(OAUTH, 'RefreshToken', tokens.refresh_token!))!;
    assert.is(stored.payload.resource, rest);
    await s.app.reads.upsert(OAUTH, 'RefreshToken', { ...stored, payload: { ...stored.payload, resource: [rest, s.base] } });

    const refresh = (token: string, extra: Record<string, string> = {}) =>
      post(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: client.info!.client_id, ...extra });
    const first = await refresh(tokens.refresh_token!);
    assert.is(first.status, 200, 'oidc-provider picks one of the granted resources, not /mcp');
    const rotated = (await first.json()) as { access_token: string; refresh_token: string };
    assert.is(await opensRest(s, rotated.access_token), 200);
    assert.is((await refresh(rotated.refresh_token)).status, 200, 'the rotated token is no replay');
    await assertConnected(s, athleteId);
  }));

test('a refresh token whose own resource is no longer ours is refused without being used up', () =>
  withServer(async (s) => {
    await registerPro(s.app);
    const rest = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, rest, ['training']);
    const stored = (await s.app.reads.get<{ id: string; payload: AdapterPayload }>(OAUTH, 'RefreshToken', tokens.refresh_token!))!;
    await s.app.reads.upsert(OAUTH, 'RefreshToken', { ...stored, payload: { ...stored.payload, resource: 'https://retired.example/api' } });
    const refused = await post(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.info!.client_id });
    assert.is(refused.status, 400);
    assert.is(await errorOf(refused), 'invalid_target');
    const after = await s.app.reads.get<{ id: string; payload: AdapterPayload }>(OAUTH, 'RefreshToken', tokens.refresh_token!);
    assert.is(after?.payload.consumed, undefined, 'the refused refresh consumed nothing');
  }));

test('a code exchange refused with invalid_target does not use up the code', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const rest = `${s.base}/v1/agent-access`;
    const client = await beginAuthorization(rest, 'training');
    const code = await consent(s.base, client, ['training']);
    const exchange = (resource: string | string[]) => {
      const body = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: client.info!.client_id,
        code_verifier: client.verifier!,
      });
      for (const r of [resource].flat()) body.append('resource', r);
      return fetch(`${s.base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    };
    for (const target of [`${s.base}/mcp`, 'https://api.example.com/', [rest, `${s.base}/mcp`]]) {
      const refused = await exchange(target);
      assert.is(refused.status, 400, String(target));
      assert.is(await errorOf(refused), 'invalid_target', String(target));
    }
    const ok = await exchange(rest);
    assert.is(ok.status, 200, 'the same code still works after the refusals');
    const tokens = (await ok.json()) as { access_token: string; refresh_token: string };
    assert.is(await opensRest(s, tokens.access_token), 200);
    await assertConnected(s, athleteId);
  }));

test.run();
