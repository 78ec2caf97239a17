// Connected apps, over HTTP: each connection says when it was connected, what it may read and
// suggest, its last request and last suggestion, and where it returns to; the athlete gives it a
// name of their own (an event on the connections stream), refused in words when blank, too long
// or not one line, and of another athlete's connection nothing changes; Disconnect asks first on a
// page of its own, and only its POST disconnects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lastReadAt } from '../../services/api/auth.ts';
import { connect, REDIRECT, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';
import { proposalBody, writer } from '../support/writes.ts';

let s: TestServer;
let adaId: string;
let bobId: string;
let ada: FormClient;
let bob: FormClient;
/** Three connections of Ada's, all from clients that call themselves "Coach Bot". */
let grants: string[];

test.before(async () => {
  s = await startServer();
  adaId = await registerPro(s.app);
  bobId = await registerPro(s.app, 'bob@example.com');
  for (let i = 0; i < 3; i++) await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
  grants = (await s.app.connections.list(adaId)).map((c) => c.id);
  ada = await signedInClient(s.base, 'ada@example.com');
  bob = await signedInClient(s.base, 'bob@example.com');
});
test.after(async () => {
  await s.close();
});

const eventsOf = async (athleteId: string) =>
  (await s.app.events.readStream(`connections-${athleteId}`)).map((e) => ({ type: e.type, ...(e.data as { grant_id: string; label?: string }) }));
const renames = async (athleteId: string) => (await eventsOf(athleteId)).filter((e) => e.type === 'grant.renamed').map((e) => [e.grant_id, e.label]);
const rename = async (client: FormClient, grantId: string, name: string | string[]) =>
  client.post(`/connections/${grantId}/name`, { name, _csrf: FormClient.csrf((await client.get('/connections')).text) });
const headings = (page: string) => [...page.matchAll(/<div class="card connection">\s*<h2>(.*?)<\/h2>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));

test('three apps of one name are told apart by the names the athlete gives them, shown first with the app’s own beside', async () => {
  assert.equal(headings((await ada.get('/connections')).text), ['Coach Bot', 'Coach Bot', 'Coach Bot']);
  const saved = await rename(ada, grants[0]!, '  Laptop Claude  ');
  assert.is(saved.status, 303);
  assert.is(saved.headers.get('location'), '/connections?renamed=1');
  assert.is((await rename(ada, grants[1]!, 'Work Claude')).status, 303);
  const page = await ada.get('/connections?renamed=1');
  assert.match(page.text, 'Saved. The app shows under your name for it here.');
  assert.equal(headings(page.text), ['Laptop Claude (the app calls itself Coach Bot)', 'Work Claude (the app calls itself Coach Bot)', 'Coach Bot']);
  assert.match(page.text, '<h2>Laptop Claude <span class="meta">(the app calls itself Coach Bot)</span></h2>');
  assert.match(page.text, `href="/connections/${grants[0]}/disconnect">Disconnect Laptop Claude…</a>`);
  assert.match((await ada.get(`/connections/${grants[0]}/activity`)).text, '<h1>What Laptop Claude did</h1>');
  // Kept as events, trimmed; the same name again writes nothing.
  assert.equal(await renames(adaId), [
    [grants[0], 'Laptop Claude'],
    [grants[1], 'Work Claude'],
  ]);
  assert.is((await rename(ada, grants[0]!, 'Laptop Claude')).status, 303);
  assert.equal((await renames(adaId)).length, 2, 'nothing written for the same name');
  assert.is((await s.app.connections.get(adaId, grants[0]!))?.label, 'Laptop Claude');
});

test('a name that is blank, too long or not one line is refused in its card, with what was typed; nothing changes', async () => {
  const before = await renames(adaId);
  const long = 'x'.repeat(101);
  const cases: Array<[string | string[], string]> = [
    [long, 'That name is 101 characters long; keep it to 100.'],
    ['   ', 'Give the app a name: it needs at least one letter, digit or sign you can see.'],
    ['\u200b', 'Give the app a name: it needs at least one letter, digit or sign you can see.'],
    ['Laptop\nClaude', 'A name is one line of text, without tabs or line breaks.'],
    [['One', 'Two'], 'Give the app one name, as text.'],
  ];
  for (const [name, message] of cases) {
    const refused = await rename(ada, grants[2]!, name);
    assert.is(refused.status, 400, JSON.stringify(name));
    assert.match(refused.text, `<p class="error" role="alert">The name was not saved: ${message}</p>`, JSON.stringify(name));
    // The card's form is open, says what was wrong, and keeps what was typed.
    const card = refused.text.slice(refused.text.indexOf(`action="/connections/${grants[2]}/name"`) - 400);
    assert.match(card, '<details class="rename" open>');
    assert.match(card, `id="name-${grants[2]}-error">${message}</p>`);
    if (name === long) assert.match(card, `value="${long}"`);
  }
  assert.equal(await renames(adaId), before, 'no event');
  assert.is((await s.app.connections.get(adaId, grants[2]!))?.label, null);
  // At the limit it is a name; without the session's token nothing is sent on.
  assert.is((await rename(ada, grants[2]!, 'y'.repeat(100))).status, 303);
  assert.is((await s.app.connections.get(adaId, grants[2]!))?.label, 'y'.repeat(100));
  assert.is((await ada.post(`/connections/${grants[2]}/name`, { name: 'Forged' })).status, 403, "without the session's token");
  assert.is((await s.app.connections.get(adaId, grants[2]!))?.label, 'y'.repeat(100));
});

test("another athlete's connection: renaming or disconnecting it changes nothing and says nothing", async () => {
  const adaEvents = await eventsOf(adaId);
  const bobEvents = await eventsOf(bobId);
  for (const name of ['Mine now', 'z'.repeat(101)]) {
    const res = await rename(bob, grants[1]!, name);
    assert.is(res.status, 303);
    assert.is(res.headers.get('location'), '/connections');
  }
  assert.is((await bob.get(`/connections/${grants[1]}/disconnect`)).status, 404);
  const csrf = FormClient.csrf((await bob.get('/connections')).text);
  assert.is((await bob.post(`/connections/${grants[1]}/disconnect`, { _csrf: csrf })).headers.get('location'), '/connections');
  assert.equal(await eventsOf(adaId), adaEvents);
  assert.equal(await eventsOf(bobId), bobEvents);
  const connection = await s.app.connections.get(adaId, grants[1]!);
  assert.is(connection?.label, 'Work Claude');
  assert.is(connection?.status, 'connected');
  assert.not.match((await bob.get('/connections')).text, 'Work Claude');
});

test('each connection says when it was connected, what it may read and suggest, its last request and suggestion, and where it returns', async () => {
  const { api, grantId, token } = await writer(s, adaId, ['training', 'nutrition'], ['nutrition:write']);
  assert.is((await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  const prepared = await api.prepare(
    proposalBody([
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: new Date().toISOString(), name: 'Oats', calories_kcal: 350, protein_g: 12, carbohydrate_g: 60, fat_g: 6 },
      },
    ]),
  );
  assert.is(prepared.status, 201, JSON.stringify(prepared.body));
  const commandId = prepared.body.data.proposal.command_id as string;
  // The note of a request is written after its answer: wait for the row, not for a time.
  for (let i = 0; i < 200 && !(await lastReadAt(s.app, adaId, grantId)); i++) await new Promise((r) => setImmediate(r));
  assert.ok(await lastReadAt(s.app, adaId, grantId), 'the request was noted');

  const page = (await ada.get('/connections')).text;
  const card = page.slice(page.indexOf('<div class="card connection">'), page.indexOf(`href="/connections/${grantId}/disconnect"`));
  assert.match(card, `href="/connections/${grantId}/activity"`, 'the newest card is this connection');
  assert.match(card, /<dt>Connected<\/dt><dd>\d{1,2} \w{3} \d{4}, \d{2}:\d{2}<\/dd>/);
  assert.match(card, '<dt>May read</dt><dd>Training, Nutrition</dd>');
  assert.match(card, 'Suggest new and changed nutrition records');
  assert.match(card, /<dt>Last request<\/dt><dd>\d{1,2} \w{3} \d{4}, \d{2}:\d{2} /);
  assert.match(
    card,
    new RegExp(`<dt>Last suggestion</dt><dd><a href="/proposals/${commandId}">\\d{1,2} \\w{3} \\d{4}, \\d{2}:\\d{2}</a> — Waiting for your review</dd>`),
  );
  assert.match(card, `<dt>Returns to</dt><dd>${new URL(REDIRECT).host}</dd>`);
  // One that never asked anything says so.
  const quiet = page.slice(page.indexOf(`href="/connections/${grants[2]}/activity"`) - 2000);
  assert.match(quiet, '<dt>Last suggestion</dt><dd>none yet</dd>');
});

test('Disconnect asks first, on a page of its own: what stops and what does not; only its POST disconnects', async () => {
  const list = (await ada.get('/connections')).text;
  assert.match(list, `<a class="button secondary" href="/connections/${grants[0]}/disconnect">`);
  assert.not.match(list, /action="\/connections\/[^"]+\/disconnect"/, 'no button on the list disconnects at once');

  const confirm = await ada.get(`/connections/${grants[0]}/disconnect`);
  assert.is(confirm.status, 200);
  assert.match(confirm.text, '<h1>Disconnect Laptop Claude?</h1>');
  assert.match(confirm.text, '<h2>What stops</h2>');
  assert.match(confirm.text, 'Laptop Claude can no longer read your record (Training): its next request is refused and its sign-in stops working.');
  assert.match(confirm.text, '<h2>What does not stop</h2>');
  assert.match(confirm.text, 'Copies of your record Laptop Claude has already received stay with the app: RepLedger cannot recall them.');
  assert.match(
    confirm.text,
    new RegExp(
      `<form method="post" action="/connections/${grants[0]}/disconnect"><input type="hidden" name="_csrf" value="[^"]+"><button class="danger" type="submit">Yes, disconnect Laptop Claude</button></form>`,
    ),
  );
  assert.match(confirm.text, '<a href="/connections">Keep it connected</a>');
  assert.is((await s.app.connections.get(adaId, grants[0]!))?.status, 'connected', 'showing the page changes nothing');

  const done = await ada.post(`/connections/${grants[0]}/disconnect`, { _csrf: FormClient.csrf(confirm.text) });
  assert.is(done.status, 303);
  assert.is(done.headers.get('location'), '/connections?disconnected=1');
  assert.is((await s.app.connections.get(adaId, grants[0]!))?.status, 'disconnected');
  const after = await ada.get('/connections?disconnected=1');
  assert.match(after.text, 'Disconnected. It can no longer read your record; copies it already received stay with it.');
  assert.match(after.text, /<div class="card connection disconnected">\s*<h2>Laptop Claude/, 'listed as disconnected, under its name');
  const again = await ada.get(`/connections/${grants[0]}/disconnect`);
  assert.match(again.text, 'Laptop Claude is already disconnected');
  assert.not.match(again.text, 'Yes, disconnect');
  assert.is((await ada.get('/connections/00000000-0000-4000-8000-000000000000/disconnect')).status, 404);
  const visitor = await new FormClient(s.base).get(`/connections/${grants[1]}/disconnect`);
  assert.is(visitor.status, 302);
  assert.is(visitor.headers.get('location'), `/sign-in?return_to=${encodeURIComponent(`/connections/${grants[1]}/disconnect`)}`);
});

test.run();
