// In worker mode (EMBEDDED_PROJECTIONS=worker here; KurrentDB + MongoDB behave the same) the read
// models follow the log later. A grant the authorization server revokes before the worker has
// projected its `grant.connected` must still end up disconnected, with why: the revocation is
// recorded from what the revoking request knows (the code's or token's athlete), not from a read
// model that is not there yet.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { beginAuthorization, consent, registerPro, REDIRECT } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';

const post = (s: TestServer, body: Record<string, string>) =>
  fetch(`${s.base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

/** The athlete's connection events once the revocations the requests so far caused are recorded. */
async function eventsOf(s: TestServer, athleteId: string) {
  await s.app.connections.revocationsRecorded();
  return s.app.events.readStream(`connections-${athleteId}`);
}

async function authorized(s: TestServer, email: string) {
  const resource = `${s.base}/v1/agent-access`;
  const client = await beginAuthorization(resource, 'training');
  const code = await consent(s.base, client, ['training'], email);
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.info!.client_id,
    code_verifier: client.verifier,
    resource,
  };
  return { client, exchange, resource };
}

test('revocations before the projection worker has caught up are not lost (replayed code, replayed refresh token)', async () => {
  const s = await startServer({ env: { EMBEDDED_PROJECTIONS: 'worker' } });
  try {
    assert.is(s.app.projectionMode, 'worker');
    const ada = await registerPro(s.app, 'ada@example.com');
    const bob = await registerPro(s.app, 'bob@example.com');
    // The worker has seen the athletes (sign-in needs them), and nothing after.
    await s.app.runner.catchUp();

    const first = await authorized(s, 'ada@example.com');
    assert.is((await post(s, first.exchange)).status, 200);
    const second = await authorized(s, 'bob@example.com');
    const tokens = (await (await post(s, second.exchange)).json()) as { refresh_token: string };
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: second.client.info!.client_id, resource: second.resource };
    assert.is((await post(s, refresh)).status, 200);

    // Both connections are in the log but not yet in the read models.
    assert.equal(await s.app.connections.list(ada), []);
    assert.equal(await s.app.connections.list(bob), []);

    // The replays revoke the grants.
    assert.is((await post(s, first.exchange)).status, 400);
    assert.is((await post(s, refresh)).status, 400);

    const adaEvents = await eventsOf(s, ada);
    assert.equal(
      adaEvents.map((e) => e.type),
      ['grant.connected', 'grant.disconnected'],
    );
    assert.is((adaEvents[1]!.data as { reason: string }).reason, 'authorization_code_reused');
    const bobEvents = await eventsOf(s, bob);
    assert.equal(
      bobEvents.map((e) => e.type),
      ['grant.connected', 'grant.disconnected'],
    );
    assert.is((bobEvents[1]!.data as { reason: string }).reason, 'refresh_token_reused');

    // When the worker catches up, the connections show as disconnected, with why.
    await s.app.runner.catchUp();
    const [adaConnection] = await s.app.connections.list(ada);
    assert.is(adaConnection?.status, 'disconnected');
    assert.is(adaConnection?.disconnect_reason, 'authorization_code_reused');
    const [bobConnection] = await s.app.connections.list(bob);
    assert.is(bobConnection?.status, 'disconnected');
    assert.is(bobConnection?.disconnect_reason, 'refresh_token_reused');

    // A second revocation of the same grant adds nothing: the first reason stands.
    await s.app.connections.revokedByServer(adaConnection!.oauth_grant_id, ada, 'client_revoked');
    assert.is((await s.app.events.readStream(`connections-${ada}`)).length, 2);
  } finally {
    await s.close();
  }
});

test.run();
