// list_recovery_checkins over HTTP against the strict contract: empty and filled records, paging,
// windows, and each refusal.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { addDays } from '../../services/domain/time.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';

const TODAY = '2026-06-15';
const response = agentAccessResponses.list_recovery_checkins;

async function setup() {
  const s = await startServer({ clock: fixedClock(`${TODAY}T10:00:00.000Z`) });
  const athleteId = await registerPro(s.app);
  const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery']);
  const get = (query = '', token = tokens.access_token) =>
    fetch(`${s.base}/v1/agent-access/recovery/check-ins${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { s, athleteId, token: tokens.access_token, get };
}

async function addCheckins(s: TestServer, athleteId: string, daysAgo: number[]) {
  await s.app.records.change(
    athleteId,
    daysAgo.map((d) => ({
      op: 'create' as const,
      kind: 'checkin' as const,
      item: { id: randomUUID(), date: addDays(TODAY, -d), sleep_quality: 1 + (d % 5), energy: null, soreness: 5, stress: 2 },
    })),
    { type: 'athlete', id: athleteId },
  );
}

test('an empty record is a valid answer: the default window, no items, no next page', async () => {
  const { s, get } = await setup();
  try {
    const res = await get();
    assert.is(res.status, 200);
    const body = response.parse(await res.json());
    assert.equal(body.data.window, { from: addDays(TODAY, -29), to: TODAY });
    assert.equal(body.data.items, []);
    assert.is(body.data.next_cursor, null);
    assert.is(body.scope, 'recovery');
    assert.is(body.operation, 'list_recovery_checkins');
  } finally {
    await s.close();
  }
});

test('pages walk the window newest first without gaps or repeats; next_cursor is null on the last page', async () => {
  const { s, athleteId, get } = await setup();
  try {
    await addCheckins(s, athleteId, [0, 1, 2, 3, 5, 8, 13, 21, 25, 29, 30, 34, 55]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.is(res.status, 200);
      const body = response.parse(await res.json());
      assert.ok(body.data.items.length <= 4);
      seen.push(...body.data.items.map((i) => i.date));
      cursor = body.data.next_cursor;
      pages++;
    } while (cursor);
    const expected = [0, 1, 2, 3, 5, 8, 13, 21, 25, 29].map((d) => addDays(TODAY, -d));
    assert.equal(seen, expected, 'the default window holds the 30 local days ending today');
    assert.is(pages, 3);

    const explicit = response.parse(await (await get(`?from=${addDays(TODAY, -60)}&to=${addDays(TODAY, -30)}&limit=10`)).json());
    assert.equal(
      explicit.data.items.map((i) => i.date),
      [30, 34, 55].map((d) => addDays(TODAY, -d)),
    );
    assert.equal(explicit.data.window, { from: addDays(TODAY, -60), to: addDays(TODAY, -30) });
    assert.is(explicit.data.items[0]!.provenance, 'self_reported');
  } finally {
    await s.close();
  }
});

test('bad parameters are 400s that say what was wrong', async () => {
  const { s, get } = await setup();
  try {
    const cases: Array<[string, RegExp]> = [
      ['?limit=0', /^limit: must be an integer from 1 to 10$/],
      ['?limit=11', /^limit: must be an integer from 1 to 10$/],
      ['?limit=ten', /^limit: must be an integer from 1 to 10$/],
      ['?limit=1.5', /^limit: must be an integer from 1 to 10$/],
      ['?limit=', /^limit: must be an integer from 1 to 10$/],
      ['?limit=1&limit=2', /^limit: must be an integer from 1 to 10$/],
      [`?from=${TODAY}`, /from and to must be given together/],
      [`?from=${TODAY}&to=${addDays(TODAY, -1)}`, /from must not be after to/],
      [`?from=${addDays(TODAY, -90)}&to=${TODAY}`, /at most 90 days/],
      // Only what is wrong: a date that is not one is not also compared with the other.
      ['?from=2026-02-30&to=2026-03-01', /^from: Invalid ISO date$/],
      ['?from=2026-8-1&to=2026-10-01', /^from: Invalid ISO date$/],
      [`?cursor=${'x'.repeat(4097)}`, /cursor/],
      ['?sort=asc', /unknown parameter sort/],
    ];
    for (const [query, message] of cases) {
      const res = await get(query);
      assert.is(res.status, 400, query);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.is(body.error.code, 'invalid_input', query);
      assert.match(body.error.message, message, query);
    }
    assert.is((await get(`?from=${addDays(TODAY, -89)}&to=${TODAY}`)).status, 200, '90 days, both included, is allowed');
  } finally {
    await s.close();
  }
});

test('a forged, altered, foreign or re-windowed cursor is refused', async () => {
  const { s, athleteId, get } = await setup();
  try {
    await addCheckins(s, athleteId, [0, 1, 2, 3]);
    const first = response.parse(await (await get('?limit=2')).json());
    const cursor = first.data.next_cursor!;
    assert.is((await get(`?limit=2&cursor=${encodeURIComponent(cursor)}`)).status, 200);
    const [body, mac] = cursor.split('.');
    const altered = Buffer.from(Buffer.from(body!, 'base64url').toString().replace(addDays(TODAY, -1), addDays(TODAY, -9))).toString('base64url');
    for (const bad of [`${altered}.${mac}`, 'not-a-cursor', `${body}.AAAAAAAAAAAAAAAAAAAAAA`]) {
      const res = await get(`?cursor=${encodeURIComponent(bad)}`);
      assert.is(res.status, 400, bad);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /cursor/);
    }
    const otherWindow = await get(`?from=${addDays(TODAY, -5)}&to=${TODAY}&cursor=${encodeURIComponent(cursor)}`);
    assert.is(otherWindow.status, 400);

    // Another athlete, signed in through their own connection, cannot use Ada's cursor.
    await registerPro(s.app, 'bob@example.com');
    const bob = await connect(s.base, `${s.base}/v1/agent-access`, ['recovery'], 'recovery', 'bob@example.com');
    const foreign = await get(`?cursor=${encodeURIComponent(cursor)}`, bob.tokens.access_token);
    assert.is(foreign.status, 400);
    assert.is((await get('', bob.tokens.access_token)).status, 200, "Bob's own list works");
  } finally {
    await s.close();
  }
});

test('a connection without the recovery scope gets 403 insufficient_scope', async () => {
  const s = await startServer({ clock: fixedClock(`${TODAY}T10:00:00.000Z`) });
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const res = await fetch(`${s.base}/v1/agent-access/recovery/check-ins`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="recovery training"/);
  } finally {
    await s.close();
  }
});

test.run();
