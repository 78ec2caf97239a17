// Write permissions in the connection settings: shown per connection, and the athlete can turn
// any of them off; the settings page cannot grant one (issue 11, section 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer } from '../support/server.ts';

test('the settings page lists what a connection may suggest, and unticking turns it off; nothing can be added there', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    await connect(s.base, `${s.base}/mcp`, ['training', 'nutrition']);
    const [connection] = await s.app.connections.list(athleteId);
    const grantId = connection!.id;

    const browser = new FormClient(s.base);
    const signIn = await browser.get('/sign-in');
    await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    assert.match((await browser.get('/connections')).text, 'none — it can only read');

    // As the permission form will (the athlete's choice, recorded as a grant event).
    await s.app.connections.setWritePermissions(athleteId, grantId, ['training:write', 'nutrition:write', 'nutrition:delete'], { onlyRemove: false });
    const page = await browser.get('/connections');
    assert.match(page.text, 'Suggest new and changed training records');
    assert.match(page.text, 'Suggest deleting nutrition records');
    const csrf = FormClient.csrf(page.text);

    const save = (keep: string[]) => browser.post(`/connections/${grantId}/write-permissions`, { _csrf: csrf, keep });
    assert.is((await save(['training:write', 'nutrition:delete'])).status, 303);
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write', 'nutrition:delete']);
    // Ticking one it does not hold adds nothing; a value that is no permission changes nothing.
    await save(['training:write', 'nutrition:delete', 'body_measurements:write']);
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write', 'nutrition:delete']);
    await save(['everything']);
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write', 'nutrition:delete']);
    // Unticking all leaves it read-only.
    await browser.post(`/connections/${grantId}/write-permissions`, { _csrf: csrf });
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, []);
    assert.match((await browser.get('/connections')).text, 'none — it can only read');

    const events = await s.app.events.readStream(`connections-${athleteId}`);
    assert.equal(events.map((e) => e.type), ['grant.connected', 'grant.write_permissions_changed', 'grant.write_permissions_changed', 'grant.write_permissions_changed']);
    // Without the session's token, nothing changes.
    await s.app.connections.setWritePermissions(athleteId, grantId, ['training:write'], { onlyRemove: false });
    assert.is((await new FormClient(s.base).post(`/connections/${grantId}/write-permissions`, { _csrf: csrf })).status, 403);
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write']);
  } finally {
    await s.close();
  }
});

test.run();
