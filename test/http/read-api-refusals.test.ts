// What the Read API v1 refuses, each refusal with its status, the Read API error shape and its
// headers (Cache-Control, X-Request-Id equal to the body's request id, the challenge on 401,
// Retry-After on 429 and 503): credentials that are not a live bot token of a Pro athlete, bad
// input, cursors it did not issue for this route and athlete, ids outside the record, bodies,
// quotas and maintenance. And a bot token opens nothing of Agent Access.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, PASSWORD, registerPro } from '../support/connect.ts';
import { assertRefusal, bearer, botToken, readApi } from '../support/read-api.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';

const ROUTES = [
  '/api/v1/me',
  '/api/v1/stats',
  '/api/v1/workouts',
  `/api/v1/workouts/${randomUUID()}`,
  '/api/v1/saved-workouts',
  `/api/v1/saved-workouts/${randomUUID()}`,
];

/** An athlete with a bot token, `workouts` workouts and `routines` saved routines. */
async function athleteWith(s: TestServer, email: string, workouts: number, routines: number) {
  const athleteId = await registerPro(s.app, email);
  const token = await botToken(s.app, athleteId);
  const items: Array<{ op: 'create'; kind: 'workout' | 'routine'; item: RecordItem<'workout'> | RecordItem<'routine'> }> = [];
  for (let i = 0; i < workouts; i++) {
    const day = String(1 + i).padStart(2, '0');
    items.push({
      op: 'create',
      kind: 'workout',
      item: {
        id: randomUUID(),
        title: `W${i}`,
        started_at: `2026-05-${day}T08:00:00.000Z`,
        ended_at: `2026-05-${day}T09:00:00.000Z`,
        notes: null,
        source: null,
        exercises: [],
      },
    });
  }
  for (let i = 0; i < routines; i++)
    items.push({ op: 'create', kind: 'routine', item: { id: randomUUID(), title: `R${i}`, exercises: [], scheduled_dates: [] } });
  if (items.length) await s.app.records.change(athleteId, items as never, { type: 'athlete', id: athleteId });
  return { athleteId, token, ids: items.map((i) => i.item.id) };
}

const get = (s: TestServer, path: string, headers: Record<string, string> = {}) => fetch(`${s.base}${path}`, { headers });

test('no token, a malformed or unknown one, an OAuth token, a session cookie or chat-channel headers: 401 on every route', async () => {
  const s = await startServer();
  try {
    const { athleteId, token } = await athleteWith(s, 'ada@example.com', 0, 0);
    const oauthRest = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    const oauthMcp = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    const browser = new FormClient(s.base);
    const signIn = await browser.get('/sign-in');
    const signedIn = await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    assert.is(signedIn.status, 303, 'signed in');
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    assert.match(cookie, 'repledger_session');

    const credentials: Array<[string, Record<string, string>]> = [
      ['nothing', {}],
      ['an unknown bot token', bearer(`rlb_${'A'.repeat(43)}`)],
      ['a bot token in another scheme', { authorization: `Bot ${token}` }],
      ['a bot token without a scheme', { authorization: token }],
      ['an Agent Access REST token', bearer(oauthRest)],
      ['an Agent Access MCP token', bearer(oauthMcp)],
      ['a signed-in session cookie', { cookie }],
      [
        'chat-channel headers carrying the bot token',
        { 'x-telegram-bot-api-secret-token': token, 'x-bot-token': token, 'x-slack-signature': `v0=${'0'.repeat(64)}`, 'x-signature-ed25519': '00' },
      ],
    ];
    for (const path of ROUTES) {
      for (const [what, headers] of credentials) {
        const refusal = await assertRefusal(await get(s, path, headers), 401, 'unauthorized');
        assert.ok(refusal.message.length > 10, `${what} on ${path}`);
      }
      // Identity first: bad input without a token is still a 401, and says nothing about parameters.
      await assertRefusal(await get(s, `${path}?limit=99&nonsense=1`), 401, 'unauthorized');
    }
    const presented = await get(s, '/api/v1/me', bearer(oauthRest));
    assert.match(presented.headers.get('www-authenticate')!, 'error="invalid_token"');
    // The same bot token, properly presented, is welcome: what was refused was the way it came.
    assert.is((await readApi(s.base, token, 'get_me', '/api/v1/me')).display_name, 'Ada');
    assert.ok(athleteId);
  } finally {
    await s.close();
  }
});

test('a revoked token and a lapsed plan stop the very next request; the plan back, the token works again', async () => {
  const s = await startServer();
  try {
    const { athleteId, token } = await athleteWith(s, 'ada@example.com', 1, 0);
    const other = await botToken(s.app, athleteId, 'Other bot');
    const actor = { type: 'athlete' as const, id: athleteId };
    // Both tokens in use, so that each is remembered as identified.
    await readApi(s.base, token, 'get_stats', '/api/v1/stats');
    await readApi(s.base, other, 'get_stats', '/api/v1/stats');

    const [listed] = (await s.app.botTokens.list(athleteId)).filter((t) => t.name === 'Stats bot');
    await s.app.botTokens.revoke(athleteId, listed!.id, actor);
    const revoked = await assertRefusal(await get(s, '/api/v1/stats', bearer(token)), 401, 'unauthorized');
    assert.match(revoked.message, 'revoked');
    assert.is((await readApi(s.base, other, 'get_me', '/api/v1/me')).display_name, 'Ada', "the athlete's other token is untouched");

    await s.app.athletes.setTier('ada@example.com', 'free', { type: 'operator', id: 'test' });
    const lapsed = await assertRefusal(await get(s, '/api/v1/workouts', bearer(other)), 401, 'unauthorized');
    assert.match(lapsed.message, 'Pro');
    await s.app.athletes.setTier('ada@example.com', 'pro', { type: 'operator', id: 'test' });
    assert.is((await readApi(s.base, other, 'list_workouts', '/api/v1/workouts')).items.length, 1);
    await assertRefusal(await get(s, '/api/v1/workouts', bearer(token)), 401, 'unauthorized');
  } finally {
    await s.close();
  }
});

test('a bot token, and chat-channel headers with it, open nothing of Agent Access or MCP', async () => {
  const s = await startServer();
  try {
    const { token } = await athleteWith(s, 'ada@example.com', 0, 0);
    const chat = { 'x-telegram-bot-api-secret-token': token, 'x-bot-token': token };
    for (const path of ['/v1/agent-access/context', '/v1/agent-access/training/snapshot', '/v1/agent-access/training/workouts']) {
      for (const headers of [bearer(token), { ...bearer(token), ...chat }, chat]) {
        const res = await get(s, path, headers);
        assert.is(res.status, 401, path);
        assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata=/);
        assert.is(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
      }
    }
    const mcp = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token), ...chat, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.is(mcp.status, 401);
  } finally {
    await s.close();
  }
});

test('bad input is a 400 that says what was wrong: an unknown parameter, limit=11 and friends', async () => {
  const s = await startServer();
  try {
    const { token } = await athleteWith(s, 'ada@example.com', 1, 1);
    const cases: Array<[string, RegExp]> = [
      ['/api/v1/workouts?limit=11', /^limit: must be an integer from 1 to 10$/],
      ['/api/v1/workouts?limit=0', /limit: must be an integer from 1 to 10/],
      ['/api/v1/saved-workouts?limit=ten', /limit: must be an integer from 1 to 10/],
      ['/api/v1/workouts?limit=2.5', /limit: must be an integer from 1 to 10/],
      ['/api/v1/workouts?limit=1&limit=2', /limit/],
      ['/api/v1/workouts?from=2026-05-01&to=2026-05-31', /unknown parameter from, to/],
      ['/api/v1/me?verbose=1', /unknown parameter verbose/],
      ['/api/v1/stats?timezone=UTC', /unknown parameter timezone/],
      ['/api/v1/workouts?cursor=', /cursor/],
      [`/api/v1/workouts?cursor=${'c'.repeat(4097)}`, /cursor/],
      [`/api/v1/workouts/${randomUUID()}?include=sets`, /unknown parameter include/],
      [`/api/v1/saved-workouts/${'x'.repeat(129)}`, /^id: /],
    ];
    for (const [path, message] of cases) {
      const refusal = await assertRefusal(await get(s, path, bearer(token)), 400, 'invalid_input');
      assert.match(refusal.message, message, path);
    }
  } finally {
    await s.close();
  }
});

test("cursors: a forged, altered, foreign or other route's cursor is a 400, never data", async () => {
  const s = await startServer();
  try {
    const ada = await athleteWith(s, 'ada@example.com', 3, 3);
    const bob = await athleteWith(s, 'bob@example.com', 3, 3);
    const next = async (token: string, path: string) =>
      (await readApi(s.base, token, path.includes('saved') ? 'list_saved_workouts' : 'list_workouts', `${path}?limit=1`)).next_cursor!;
    const adaCursor = await next(ada.token, '/api/v1/workouts');
    const bobCursor = await next(bob.token, '/api/v1/workouts');
    const savedCursor = await next(ada.token, '/api/v1/saved-workouts');
    const oauth = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    const agentPage = (await (
      await fetch(`${s.base}/v1/agent-access/training/workouts?limit=1&from=2026-05-01&to=2026-05-31`, { headers: bearer(oauth) })
    ).json()) as { data: { next_cursor: string } };
    const [body, mac] = adaCursor.split('.') as [string, string];
    const altered = Buffer.from(body, 'base64url')
      .toString('utf8')
      .replace(/"k":\["[^"]+"/, '"k":["2099-01-01T00:00:00.000Z"');
    const forgeries: Array<[string, string]> = [
      ['garbage', 'abc'],
      ['a flipped signature byte', `${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`],
      ['an altered position under the old signature', `${Buffer.from(altered).toString('base64url')}.${mac}`],
      ["another athlete's cursor", bobCursor],
      ['a cursor of another route', savedCursor],
      ['an Agent Access cursor', agentPage.data.next_cursor],
    ];
    for (const [what, cursor] of forgeries) {
      const refusal = await assertRefusal(await get(s, `/api/v1/workouts?cursor=${encodeURIComponent(cursor)}`, bearer(ada.token)), 400, 'invalid_input');
      assert.match(refusal.message, /^cursor: /, what);
    }
    // Ada's own cursor goes on from where it was; Bob's own from his.
    assert.is((await readApi(s.base, ada.token, 'list_workouts', `/api/v1/workouts?cursor=${encodeURIComponent(adaCursor)}`)).items.length, 2);
    await assertRefusal(await get(s, `/api/v1/saved-workouts?cursor=${encodeURIComponent(adaCursor)}`, bearer(ada.token)), 400, 'invalid_input');
  } finally {
    await s.close();
  }
});

test("another athlete's id and an unknown one: the same 404, revealing nothing", async () => {
  const s = await startServer();
  try {
    const ada = await athleteWith(s, 'ada@example.com', 1, 1);
    const bob = await athleteWith(s, 'bob@example.com', 1, 1);
    const [bobWorkout, bobRoutine] = bob.ids as [string, string];
    for (const [route, theirs] of [
      ['workouts', bobWorkout],
      ['saved-workouts', bobRoutine],
    ] as const) {
      const foreign = await assertRefusal(await get(s, `/api/v1/${route}/${theirs}`, bearer(ada.token)), 404, 'not_found');
      for (const unknown of [randomUUID(), 'w_123', encodeURIComponent('../me')]) {
        const absent = await assertRefusal(await get(s, `/api/v1/${route}/${unknown}`, bearer(ada.token)), 404, 'not_found');
        assert.is(absent.message, foreign.message, 'the message is the same whether the id exists elsewhere or nowhere');
      }
      assert.not.match(foreign.message, theirs);
    }
    // Bob reads his own.
    assert.is((await readApi(s.base, bob.token, 'get_workout', `/api/v1/workouts/${bobWorkout}`)).id, bobWorkout);
    // A route that does not exist is a 404 of the same shape.
    await assertRefusal(await get(s, '/api/v1/goals', bearer(ada.token)), 404, 'not_found');
  } finally {
    await s.close();
  }
});

test('a request body is a 413, before the token is looked at', async () => {
  const s = await startServer();
  try {
    const answer = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${s.base}/api/v1/stats`,
        { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': 64 * 1024 } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end('x'.repeat(64 * 1024));
    });
    await assertRefusal(new Response(answer.body, { status: answer.status, headers: answer.headers as Record<string, string> }), 413, 'payload_too_large');
  } finally {
    await s.close();
  }
});

test('each bot token has its own weighted quota: 429 with Retry-After, charged before input, refilled in time', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  // 10 units a minute: one refills every 6 s. Stats cost 2, the profile 1.
  const s = await startServer({ clock, env: { READ_API_QUOTA_UNITS: '10' } });
  try {
    const { athleteId, token } = await athleteWith(s, 'ada@example.com', 0, 0);
    const second = await botToken(s.app, athleteId, 'Second bot');
    for (let i = 0; i < 5; i++) await readApi(s.base, token, 'get_stats', '/api/v1/stats');
    const limited = await get(s, '/api/v1/stats', bearer(token));
    assert.is(limited.headers.get('retry-after'), '12');
    const refusal = await assertRefusal(limited, 429, 'rate_limited');
    assert.match(refusal.message, 'this bot token has used its quota of 10 units per 60 seconds; try again in 12 seconds');
    await assertRefusal(await get(s, '/api/v1/workouts?limit=99', bearer(token)), 429, 'rate_limited');
    // The athlete's other token, and Agent Access, keep their own budgets.
    await readApi(s.base, second, 'get_stats', '/api/v1/stats');
    clock.advance(6_000);
    await readApi(s.base, token, 'get_me', '/api/v1/me');
    await assertRefusal(await get(s, '/api/v1/stats', bearer(token)), 429, 'rate_limited');
    clock.advance(12_000);
    await readApi(s.base, token, 'get_stats', '/api/v1/stats');
  } finally {
    await s.close();
  }
});

test("paused reads: every route answers 503 with the operator's Retry-After, token or not, until resumed", async () => {
  const s = await startServer();
  try {
    const { token } = await athleteWith(s, 'ada@example.com', 0, 0);
    await s.app.maintenance.set('read', 120, 'operator:test');
    for (const path of ROUTES) {
      for (const headers of [bearer(token), {}]) {
        const paused = await get(s, path, headers);
        assert.is(paused.headers.get('retry-after'), '120');
        assert.match((await assertRefusal(paused, 503, 'unavailable')).message, 'paused for maintenance');
      }
    }
    await s.app.maintenance.set('write', 120, 'operator:test');
    await s.app.maintenance.set('read', null, 'operator:test');
    await readApi(s.base, token, 'get_stats', '/api/v1/stats');
  } finally {
    await s.close();
  }
});

test.run();
