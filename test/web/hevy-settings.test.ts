// Settings > Hevy over HTTP (server-side rendering), against the local fake Hevy: the key is
// pasted once and never shown again (nor sent back in any page), CSRF and a wrong key refuse and
// change nothing, the page shows the last sync, its result and a revoked key's error, and Sync
// now, Pause, Resume and Disconnect do what they say.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { eventually } from '../support/eventually.ts';
import { BENCH_TEMPLATE, hevyWorkout, startFakeHevy, type FakeHevy } from '../support/fake-hevy.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const KEY = '6a2c8e0d-3f41-4b7a-9c55-0e8f1d2a7b90';
const PATH = '/settings/hevy';

async function setup(): Promise<{ s: TestServer; hevy: FakeHevy; client: FormClient; athleteId: string }> {
  const hevy = await startFakeHevy();
  hevy.keys.add(KEY);
  hevy.templates.set(BENCH_TEMPLATE.id, BENCH_TEMPLATE);
  for (let i = 0; i < 3; i++) hevy.put(hevyWorkout(`w-${i}`, { title: `Session ${i}` }), `2026-05-2${i}T10:00:00Z`);
  const s = await startServer({ env: { HEVY_API_URL: hevy.url, HEVY_SYNC_EVERY_MINUTES: '0' } });
  const athleteId = await registerPro(s.app);
  const client = new FormClient(s.base);
  const form = await client.get('/sign-in');
  assert.is((await client.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(form.text) })).status, 303);
  return { s, hevy, client, athleteId };
}

async function settled(s: TestServer, athleteId: string) {
  return eventually(
    async () => {
      const status = await s.app.hevy.status(athleteId);
      return { done: status.last_run !== null && status.last_run.state !== 'running', value: status };
    },
    { what: 'the sync to finish' },
  );
}

test('connect: the page asks for the key; CSRF and a wrong key refuse; the key is never shown again; the first sync runs', async () => {
  const { s, hevy, client, athleteId } = await setup();
  try {
    assert.match((await client.get('/settings')).text, `href="${PATH}"`);
    const empty = await client.get(PATH);
    assert.is(empty.status, 200);
    assert.match(empty.text, '<input type="password" id="api_key" name="api_key"');
    const csrf = FormClient.csrf(empty.text);

    assert.is((await client.post(`${PATH}/connect`, { api_key: KEY })).status, 403, 'no CSRF token');
    const crossSite = await new FormClient(s.base, 'https://evil.example').post(`${PATH}/connect`, { _csrf: csrf, api_key: KEY });
    assert.is(crossSite.status, 403);
    const wrong = await client.post(`${PATH}/connect`, { _csrf: csrf, api_key: 'ffffffff-0000-4000-8000-000000000000' });
    assert.is(wrong.status, 400);
    assert.match(wrong.text, 'Hevy did not accept this API key');
    assert.not.match(wrong.text, 'ffffffff-0000-4000-8000-000000000000', 'the refused key is echoed back');
    assert.equal(await s.app.events.readStream(streams.hevy(athleteId)), [], 'a refusal connected something');

    const connected = await client.post(`${PATH}/connect`, { _csrf: csrf, api_key: KEY });
    assert.is(connected.status, 303);
    assert.is(connected.headers.get('location'), `${PATH}?done=connected`);
    const status = await settled(s, athleteId);
    assert.is(status.last_run?.state, 'ok');
    const shown = await client.get(`${PATH}?done=connected`);
    assert.match(shown.text, 'Hevy is connected.');
    assert.match(shown.text, 'Connected as Ada');
    assert.match(shown.text, '3 workouts added');
    assert.match(shown.text, 'Sync now');
    assert.match(shown.text, 'Recent syncs');
    for (const path of [PATH, '/settings', '/account', '/workouts']) assert.not.match((await client.get(path)).text, KEY, `${path} shows the key`);
    assert.ok(hevy.requests.some((r) => r.startsWith('/v1/workouts/events')));
    // A synced workout says where it came from.
    const list = await client.get('/workouts');
    const href = /href="(\/workouts\/[0-9a-f-]{36})"/.exec(list.text)?.[1];
    assert.ok(href, 'no workout listed');
    assert.match((await client.get(href!)).text, 'synced from Hevy');
  } finally {
    await s.close();
    await hevy.close();
  }
});

test('a key revoked in Hevy: Sync now ends in an error the page explains', async () => {
  const { s, hevy, client, athleteId } = await setup();
  try {
    const csrf = FormClient.csrf((await client.get(PATH)).text);
    await client.post(`${PATH}/connect`, { _csrf: csrf, api_key: KEY });
    await settled(s, athleteId);
    hevy.keys.delete(KEY);
    const started = await client.post(`${PATH}/run`, { _csrf: csrf });
    assert.is(started.status, 303);
    assert.is(started.headers.get('location'), `${PATH}?done=started`);
    const status = await settled(s, athleteId);
    assert.is(status.last_run?.error?.code, 'key_rejected');
    const page = await client.get(PATH);
    assert.match(page.text, 'Hevy refused your API key: it was revoked, or Hevy Pro ended.');
    assert.match(page.text, 'only when you ask');
  } finally {
    await s.close();
    await hevy.close();
  }
});

test('pause, a refused Sync now while paused, resume, and disconnect (the key deleted, the workouts kept)', async () => {
  const { s, hevy, client, athleteId } = await setup();
  try {
    const csrf = FormClient.csrf((await client.get(PATH)).text);
    await client.post(`${PATH}/connect`, { _csrf: csrf, api_key: KEY });
    await settled(s, athleteId);
    assert.is((await client.post(`${PATH}/pause`, { _csrf: csrf })).status, 303);
    const paused = await client.get(`${PATH}?done=paused`);
    assert.match(paused.text, 'Connected as Ada (paused)');
    assert.match(paused.text, '>Resume</button>');
    assert.not.match(paused.text, '>Sync now</button>');
    const refused = await client.post(`${PATH}/run`, { _csrf: csrf });
    assert.is(refused.status, 400);
    assert.match(refused.text, 'The sync is paused: resume it first.');
    assert.is((await client.post(`${PATH}/resume`, { _csrf: csrf })).status, 303);
    assert.match((await client.get(PATH)).text, '>Sync now</button>');

    const keyId = (await s.app.hevy.connection(athleteId))!.key.key_id;
    const gone = await client.post(`${PATH}/disconnect`, { _csrf: csrf });
    assert.is(gone.headers.get('location'), `${PATH}?done=disconnected`);
    const after = await client.get(`${PATH}?done=disconnected`);
    assert.match(after.text, 'your API key is deleted');
    assert.match(after.text, 'Connect Hevy');
    assert.is(await s.app.keys.get(keyId), null);
    assert.match((await client.get('/workouts')).text, 'Session 2');
  } finally {
    await s.close();
    await hevy.close();
  }
});

test('signed out: the page sends the browser to sign in, and back', async () => {
  const s = await startServer();
  try {
    const visitor = await new FormClient(s.base).get(PATH);
    assert.is(visitor.status, 302);
    assert.match(visitor.headers.get('location') ?? '', /^\/sign-in\?return_to=/);
  } finally {
    await s.close();
  }
});

test.run();
