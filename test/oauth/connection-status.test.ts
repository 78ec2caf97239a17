// The connection check on its own: a connection recorded as disconnected refuses its token even
// when the token is still live in the authorization server's store, as after a crash between
// the disconnect event and the revocation that follows it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectionEvent, streams } from '../../contracts/events.ts';
import { appendEvents } from '../../services/commands/append.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

test('a disconnected connection refuses a token the authorization server still holds', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const context = () => fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const before = await context();
    assert.is(before.status, 200);
    const grantId = ((await before.json()) as { data: { grant_id: string } }).data.grant_id;

    // Only the event: no revocation of the authorization server's tokens.
    await appendEvents(
      s.app.events,
      s.app.clock,
      { stream: streams.connections(athleteId), athleteId },
      [connectionEvent.parse({ type: 'grant.disconnected', data: { grant_id: grantId, athlete_id: athleteId } })],
      'any',
      {
        type: 'athlete',
        id: athleteId,
      },
    );
    const stored = await s.app.reads.dump('oauth_state');
    assert.ok(
      stored.some(({ partition }) => partition === 'AccessToken'),
      "the access token is still in the authorization server's store",
    );

    const after = await context();
    assert.is(after.status, 401);
    const body = (await after.json()) as { error: { code: string; message: string } };
    assert.is(body.error.code, 'unauthorized');
    assert.is(body.error.message, 'this connection was disconnected');
    assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  } finally {
    await s.close();
  }
});

test.run();
