// "Delete my account" in the web app: the export offered first, CSRF and the password re-entered
// enforced (a refusal deletes nothing), the tick box required, then the account gone and the
// browser signed out.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const EMAIL = 'ada@example.com';
const PATH = '/settings/delete-account';

async function signedIn(s: TestServer): Promise<FormClient> {
  const client = new FormClient(s.base);
  const form = await client.get('/sign-in');
  assert.is((await client.post('/sign-in', { email: EMAIL, password: PASSWORD, _csrf: FormClient.csrf(form.text) })).status, 303);
  return client;
}

test('the page offers the export before the form; settings links to it', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const client = await signedIn(s);
    assert.match((await client.get('/settings')).text, `href="${PATH}"`);
    const page = await client.get(PATH);
    assert.is(page.status, 200);
    const download = page.text.indexOf('href="/settings/export"');
    const form = page.text.indexOf(`<form method="post" action="${PATH}"`);
    assert.ok(download > 0 && form > download, 'Download my record comes before the form');
    assert.match(page.text, 'Download my record');
    assert.match(page.text, 'cannot be undone');
    assert.not.match(page.text, /\{"|"athlete_id"/, 'no raw JSON');
    // Not signed in: to the sign-in page, and back here after it.
    const visitor = await new FormClient(s.base).get(PATH);
    assert.is(visitor.status, 302);
    assert.match(visitor.headers.get('location') ?? '', /^\/sign-in\?return_to=/);
  } finally {
    await s.close();
  }
});

test('missing or wrong CSRF: 403; wrong password or no tick: refused; nothing deleted by any of them', async () => {
  const s = await startServer();
  try {
    const id = await registerPro(s.app);
    const client = await signedIn(s);
    const csrf = FormClient.csrf((await client.get(PATH)).text);
    const stillThere = async () => assert.is((await s.app.athletes.get(id))?.email, EMAIL, 'nothing deleted');

    assert.is((await client.post(PATH, { password: PASSWORD, understood: 'yes' })).status, 403, 'no CSRF token');
    await stillThere();
    assert.is((await client.post(PATH, { _csrf: `${csrf.slice(1)}x`, password: PASSWORD, understood: 'yes' })).status, 403, 'a wrong CSRF token');
    await stillThere();
    const crossSite = await new FormClient(s.base, 'https://evil.example').post(PATH, { _csrf: csrf, password: PASSWORD, understood: 'yes' });
    assert.is(crossSite.status, 403, 'from another site');
    await stillThere();

    const wrong = await client.post(PATH, { _csrf: csrf, password: 'not my password!', understood: 'yes' });
    assert.is(wrong.status, 400);
    assert.match(wrong.text, 'Nothing was deleted: that is not your password.');
    await stillThere();
    const unticked = await client.post(PATH, { _csrf: csrf, password: PASSWORD });
    assert.is(unticked.status, 400);
    assert.match(unticked.text, 'Tick the box');
    await stillThere();

    const done = await client.post(PATH, { _csrf: csrf, password: PASSWORD, understood: 'yes' });
    assert.is(done.status, 303);
    assert.is(done.headers.get('location'), '/account-deleted');
    assert.is(await s.app.athletes.get(id), null);
    assert.is(await s.app.athletes.byEmail(EMAIL), null);
    const after = await client.get('/account-deleted');
    assert.is(after.status, 200);
    assert.match(after.text, 'Your account is deleted');
    assert.is((await client.get('/settings')).status, 302, 'signed out');
    assert.is(await s.app.athletes.authenticate(EMAIL, PASSWORD), null);
  } finally {
    await s.close();
  }
});

test('wrong passwords are counted like sign-in attempts: after too many, even the right one waits', async () => {
  const s = await startServer();
  try {
    const id = await registerPro(s.app);
    const client = await signedIn(s);
    const csrf = FormClient.csrf((await client.get(PATH)).text);
    let status = 0;
    for (let i = 0; i < 20 && status !== 429; i++)
      status = (await client.post(PATH, { _csrf: csrf, password: `wrong password ${i}`, understood: 'yes' })).status;
    assert.is(status, 429);
    const right = await client.post(PATH, { _csrf: csrf, password: PASSWORD, understood: 'yes' });
    assert.is(right.status, 429);
    assert.ok(right.headers.get('retry-after'));
    assert.ok(await s.app.athletes.get(id), 'nothing deleted');
  } finally {
    await s.close();
  }
});

test('another process reading the store as the account is deleted: deleted all the same, the page says so; the files are erased later', async () => {
  const s = await startServer();
  try {
    const id = await registerPro(s.app);
    const client = await signedIn(s);
    const csrf = FormClient.csrf((await client.get(PATH)).text);
    const reader = new DatabaseSync(join(s.app.config.dataDir, 'repledger.db'), { readOnly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM events').get();
    try {
      const done = await client.post(PATH, { _csrf: csrf, password: PASSWORD, understood: 'yes' });
      assert.is(done.status, 303, 'not an error page: the account is deleted');
      assert.is(done.headers.get('location'), '/account-deleted');
      assert.is(await s.app.athletes.get(id), null);
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
    assert.ok(await s.app.accounts.wasDeleted(id));
    assert.is(await s.app.accounts.erase(), null, 'erased once the reader is gone');
  } finally {
    await s.close();
  }
});

test.run();
