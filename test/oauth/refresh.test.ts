// Refresh tokens: a refused refresh consumes nothing, and whenever the authorization server
// revokes a grant by itself (a replayed refresh token or code, the client revoking its token), the
// athlete's connection shows as disconnected, with why.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { targetProblem, revocationReason } from '../../services/oauth/provider.ts';
import { beginAuthorization, connect, consent, PASSWORD, registerPro, REDIRECT } from '../support/connect.ts';
import { FormClient, type TestServer, withServer } from '../support/server.ts';

const post = (s: TestServer, path: string, body: Record<string, string>) =>
  fetch(`${s.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

/**
 * The athlete's connection once the revocations the requests so far caused are recorded: the
 * listener records them in the background, after oidc-provider reported them and before it
 * answered the request.
 */
async function connectionOf(s: TestServer, athleteId: string) {
  await s.app.connections.revocationsRecorded();
  return (await s.app.connections.list(athleteId))[0];
}

async function connectionsPage(s: TestServer): Promise<string> {
  const browser = new FormClient(s.base);
  const signIn = await browser.get('/sign-in');
  await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
  return (await browser.get('/connections')).text;
}

test('the refresh target rule: one resource, one of ours, one the token was granted for', () => {
  const known = new Set(['https://rl.example/mcp', 'https://rl.example/v1/agent-access']);
  const granted = new Set(['https://rl.example/v1/agent-access']);
  assert.is(targetProblem(undefined, granted, known), null);
  assert.is(targetProblem('https://rl.example/v1/agent-access', granted, known), null);
  assert.ok(targetProblem('https://api.example.com/', granted, known));
  assert.ok(targetProblem('https://rl.example/mcp', granted, known));
  assert.ok(targetProblem(['https://rl.example/v1/agent-access', 'https://rl.example/mcp'], granted, known));
  assert.is(revocationReason('token', 'refresh_token'), 'refresh_token_reused');
  assert.is(revocationReason('revocation', undefined), 'client_revoked');
});

test('a refresh refused with invalid_target does not use up the refresh token', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, resource, ['training']);
    const refresh = (target: string) =>
      post(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.info!.client_id, resource: target });
    for (const target of ['https://api.example.com/', `${s.base}/mcp`]) {
      const refused = await refresh(target);
      assert.is(refused.status, 400, target);
      assert.is(((await refused.json()) as { error: string }).error, 'invalid_target', target);
    }
    const ok = await refresh(resource);
    assert.is(ok.status, 200, 'the same refresh token still works after the refusals');
    const fresh = (await ok.json()) as { access_token: string };
    assert.is((await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${fresh.access_token}` } })).status, 200);
    assert.is((await s.app.connections.list(athleteId))[0]?.status, 'connected');
  }));

test('a replayed refresh token revokes the grant, and the connection shows it with the reason', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const { client, tokens } = await connect(s.base, resource, ['training']);
    const refresh = (token: string) =>
      post(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: client.info!.client_id, resource });
    const rotated = (await (await refresh(tokens.refresh_token!)).json()) as { access_token: string; refresh_token: string };
    const replay = await refresh(tokens.refresh_token!);
    assert.is(replay.status, 400);
    assert.is(((await replay.json()) as { error: string }).error, 'invalid_grant');
    assert.is((await refresh(rotated.refresh_token)).status, 400, 'the whole grant is revoked');

    const connection = await connectionOf(s, athleteId);
    assert.is(connection?.status, 'disconnected');
    assert.is(connection?.disconnect_reason, 'refresh_token_reused');
    const events = await s.app.events.readStream(`connections-${athleteId}`);
    assert.equal(
      events.map((e) => e.type),
      ['grant.connected', 'grant.disconnected'],
    );

    const page = await connectionsPage(s);
    assert.match(page, 'No AI clients are connected');
    assert.match(page, /<h2>Coach Bot<\/h2>\s*<p><strong>Disconnected<\/strong>/);
    assert.match(page, 'sign-in tokens was used twice');
  }));

test('a replayed authorization code and a client revoking its refresh token also show as disconnected', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    const resource = `${s.base}/v1/agent-access`;
    const client = await beginAuthorization(resource, 'training');
    const code = await consent(s.base, client, ['training']);
    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.info!.client_id,
      code_verifier: client.verifier,
      resource,
    };
    assert.is((await post(s, '/oauth/token', exchange)).status, 200);
    assert.is((await post(s, '/oauth/token', exchange)).status, 400);
    const first = await connectionOf(s, athleteId);
    assert.is(first?.disconnect_reason, 'authorization_code_reused');

    await registerPro(s.app, 'bob@example.com');
    const bob = (await s.app.athletes.byEmail('bob@example.com'))!.athlete_id;
    const { client: bobsClient, tokens } = await connect(s.base, resource, ['training'], 'training', 'bob@example.com');
    assert.is((await post(s, '/oauth/revoke', { token: tokens.refresh_token!, client_id: bobsClient.info!.client_id })).status, 200);
    const second = await connectionOf(s, bob);
    assert.is(second?.disconnect_reason, 'client_revoked');
  }));

test('the athlete disconnecting is recorded as such', () =>
  withServer(async (s) => {
    const athleteId = await registerPro(s.app);
    await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const [connection] = await s.app.connections.list(athleteId);
    await s.app.connections.disconnect(athleteId, connection!.id);
    assert.is((await s.app.connections.list(athleteId))[0]?.disconnect_reason, 'athlete');
    assert.match(await connectionsPage(s), 'You disconnected it.');
  }));

test.run();
