// Write permissions in the connection settings: shown per connection, and the athlete can turn
// any of them off; the settings page cannot grant one (issue 11, section 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { permissionFormPath } from '../../contracts/write-permissions.ts';
import { seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, follow, PASSWORD, registerPro } from '../support/connect.ts';
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
    const kept = await save(['training:write', 'nutrition:delete']);
    assert.is(kept.status, 303);
    assert.match((await browser.get(kept.headers.get('location')!)).text, 'Saved. The app may suggest only what is still ticked.');
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
    assert.equal(
      events.map((e) => e.type),
      ['grant.connected', 'grant.write_permissions_changed', 'grant.write_permissions_changed', 'grant.write_permissions_changed'],
    );
    // Without the session's token, nothing changes.
    await s.app.connections.setWritePermissions(athleteId, grantId, ['training:write'], { onlyRemove: false });
    assert.is((await new FormClient(s.base).post(`/connections/${grantId}/write-permissions`, { _csrf: csrf })).status, 403);
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write']);
  } finally {
    await s.close();
  }
});

test('the permission form: the link an agent hands over asks, the athlete ticks, only what was ticked is allowed', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    await connect(s.base, `${s.base}/mcp`, ['training', 'nutrition']);
    const grantId = (await s.app.connections.list(athleteId))[0]!.id;
    const link = `${permissionFormPath(grantId, ['training:write', 'nutrition:delete'])}%20everything`;

    // Not signed in: sign in first, then back to the form with what it asks.
    const browser = new FormClient(s.base);
    const first = await follow(browser, `${s.base}${link}`);
    assert.match(first.location, '/sign-in?return_to=');
    const returnTo = new URL(first.location).searchParams.get('return_to')!;
    const signedIn = await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(first.text) });
    const form = await browser.get(signedIn.headers.get('location')!);
    assert.is(form.status, 200);
    assert.match(form.text, 'Let Coach Bot suggest changes?');
    assert.match(form.text, 'value="training:write"');
    assert.match(form.text, 'value="nutrition:delete"');
    assert.not.match(form.text, 'everything', 'an unknown permission is not offered');
    assert.not.match(form.text, ' checked', 'nothing is ticked for the athlete');

    // Sent with nothing ticked: nothing is granted, and the page does not claim otherwise.
    const none = await browser.post(`/connections/${grantId}/write-permissions/request`, { _csrf: FormClient.csrf(form.text) });
    assert.is(none.headers.get('location'), '/connections?permissions=none');
    assert.match((await browser.get(none.headers.get('location')!)).text, 'Nothing was allowed: no permission was ticked.');
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions ?? [], []);

    const saved = await browser.post(`/connections/${grantId}/write-permissions/request`, { _csrf: FormClient.csrf(form.text), allow: ['training:write'] });
    assert.is(saved.headers.get('location'), '/connections?permissions=1');
    assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write']);
    assert.match((await browser.get('/connections?permissions=1')).text, 'Suggest new and changed training records');

    // Another athlete's connection, or none: a page that says so, and nothing granted.
    assert.is((await browser.get(permissionFormPath('00000000-0000-4000-8000-000000000000', ['training:write']))).status, 404);
    const other = await browser.post('/connections/00000000-0000-4000-8000-000000000000/write-permissions/request', {
      _csrf: FormClient.csrf(form.text),
      allow: 'training:write',
    });
    assert.is(other.status, 303);
  } finally {
    await s.close();
  }
});

const noBrowser = whyNoBrowser();
if (noBrowser) {
  console.log(`skipped: permission form browser test — ${noBrowser}`);
  test.skip('the permission form in Chromium', () => {});
} else {
  test('the permission form in Chromium: readable on a phone, no serious accessibility problem', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      await connect(s.base, `${s.base}/mcp`, ['training', 'nutrition']);
      const grantId = (await s.app.connections.list(athleteId))[0]!.id;
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true })).newPage();
      await page.goto(`${s.base}${permissionFormPath(grantId, ['training:write', 'training:delete', 'nutrition:write'])}`);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Let Coach Bot suggest changes?');
      assert.equal(await seriousViolations(page), []);
      await screenshot(page, 'write-permission-form');
      await page.check('input[value="training:write"]');
      await page.click('text=Allow what I ticked');
      await page.waitForSelector('text=Saved.');
      assert.equal(await seriousViolations(page), []);
      await screenshot(page, 'connections-with-write-permissions');
      assert.equal((await s.app.connections.get(athleteId, grantId))!.write_permissions, ['training:write']);
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
