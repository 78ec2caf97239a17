// `/livez`, `/readyz` and `/metrics` (issue 40): readiness goes false when a store does not answer
// or the projections lag; the metrics are behind METRICS_TOKEN and count operations by
// operationId, quota refusals, proposal transitions and the projections' lag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { registerPro } from '../support/connect.ts';
import { bearer, botToken } from '../support/read-api.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { agentCaller, seedRecord, validBody, type Seeded } from '../support/writes.ts';

const TOKEN = 'metrics-token-for-the-tests';

async function within(s: Promise<TestServer>, run: (s: TestServer) => Promise<void>): Promise<void> {
  const server = await s;
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

interface Ready {
  status: string;
  checks: Record<'event_store' | 'read_store' | 'projections', { ok: boolean; error?: string; lag_events?: number | null }>;
}

async function readyz(base: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as Ready };
}

/** The samples of the exposition text, as `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function metrics(base: string): Promise<Map<string, number>> {
  const res = await fetch(`${base}/metrics`, { headers: bearer(TOKEN) });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
}

test('a fresh server is live and ready, each check saying ok and the projections not behind', () =>
  within(startServer(), async (s) => {
    const live = await fetch(`${s.base}/livez`);
    assert.is(live.status, 200);
    assert.equal(await live.json(), { status: 'live' });
    const ready = await readyz(s.base);
    assert.is(ready.status, 200);
    assert.equal(ready.body, {
      status: 'ready',
      checks: { event_store: { ok: true }, read_store: { ok: true }, projections: { ok: true, lag_events: 0, max_lag_events: 1000 } },
    });
    // /health is as it was.
    assert.is((await fetch(`${s.base}/health`)).status, 200);
  }));

test('a read store that fails, or does not answer within READY_TIMEOUT_MS, makes /readyz 503 naming it (not what it said); /livez stays 200', () =>
  within(startServer({ env: { READY_TIMEOUT_MS: '200' } }), async (s) => {
    const describe = s.app.reads.describe.bind(s.app.reads);
    s.app.reads.describe = () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:27017'));
    let ready = await readyz(s.base);
    assert.is(ready.status, 503);
    assert.is(ready.body.status, 'not_ready');
    // What the store said (hosts, addresses) stays in the log: /readyz answers anyone who reaches it.
    assert.equal(ready.body.checks.read_store, { ok: false, error: "the read store answered with an error (in the service's log)" });
    assert.not.match(JSON.stringify(ready.body), '10.0.0.9');
    assert.equal(ready.body.checks.event_store, { ok: true });
    assert.is((await fetch(`${s.base}/livez`)).status, 200, 'alive all the same: restarting would not bring the store back');

    s.app.reads.describe = () => new Promise(() => undefined);
    ready = await readyz(s.base);
    assert.is(ready.status, 503);
    assert.equal(ready.body.checks.read_store, { ok: false, error: 'the read store did not answer within 200 ms' });

    s.app.events.describe = () => Promise.reject(new Error('KurrentDB unavailable'));
    s.app.reads.describe = describe;
    ready = await readyz(s.base);
    assert.is(ready.status, 503);
    assert.equal(ready.body.checks, {
      event_store: { ok: false, error: "the event store answered with an error (in the service's log)" },
      read_store: { ok: true },
      projections: { ok: true, lag_events: 0, max_lag_events: 1000 },
    });
  }));

test('projections in a worker that lags behind READY_MAX_LAG_EVENTS: not ready until they catch up; the lag gauge says how far', () =>
  within(startServer({ env: { EMBEDDED_PROJECTIONS: 'worker', READY_MAX_LAG_EVENTS: '2', METRICS_TOKEN: TOKEN } }), async (s) => {
    assert.is((await readyz(s.base)).status, 200);
    // No worker follows the log in this process: what is appended waits for catchUp.
    const append = () => s.app.events.append(`test-${crypto.randomUUID()}`, [{ type: 'test.nothing', data: {}, metadata: {} }], 'no_stream');
    await append();
    await append();
    const within = await readyz(s.base);
    assert.is(within.status, 200, 'two behind is within the limit');
    assert.is(within.body.checks.projections.lag_events, 2);
    await append();
    const behind = await readyz(s.base);
    assert.is(behind.status, 503);
    assert.is(behind.body.status, 'not_ready');
    assert.equal(behind.body.checks.projections, {
      ok: false,
      error: 'the slowest projection is more than 2 events behind the log',
      lag_events: 3,
      max_lag_events: 2,
    });
    assert.is((await metrics(s.base)).get('repledger_projection_lag_events'), 3);

    await s.app.runner.catchUp();
    assert.is((await readyz(s.base)).status, 200);
    assert.is((await metrics(s.base)).get('repledger_projection_lag_events'), 0);
  }));

test('/metrics is not served without METRICS_TOKEN, and asks for it as a bearer token when set', async () => {
  await within(startServer(), async (s) => {
    const res = await fetch(`${s.base}/metrics`, { headers: bearer(TOKEN) });
    assert.is(res.status, 404);
  });
  await within(startServer({ env: { METRICS_TOKEN: TOKEN } }), async (s) => {
    for (const headers of [{}, bearer('not-the-metrics-token'), { authorization: `Basic ${btoa(`x:${TOKEN}`)}` }]) {
      const res = await fetch(`${s.base}/metrics`, { headers });
      assert.is(res.status, 401);
      assert.is(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.is(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
    }
    assert.is((await fetch(`${s.base}/metrics`, { headers: bearer(TOKEN) })).status, 200);
  });
});

test('/metrics counts operations by operationId and outcome with their latency, and quota refusals', () =>
  within(startServer({ env: { METRICS_TOKEN: TOKEN, READ_API_QUOTA_UNITS: '10' } }), async (s) => {
    // Agent Access without a token: counted, by operationId, as refused.
    assert.is((await fetch(`${s.base}/v1/agent-access/context`)).status, 401);
    const athleteId = await registerPro(s.app);
    const token = await botToken(s.app, athleteId);
    let ok = 0;
    let refused = 0;
    for (let i = 0; i < 15 && refused === 0; i++) {
      const res = await fetch(`${s.base}/api/v1/me`, { headers: bearer(token) });
      if (res.status === 200) ok++;
      else if (res.status === 429) refused++;
      else assert.unreachable(`status ${res.status}`);
    }
    assert.ok(ok >= 1 && refused === 1, `${ok} answered, ${refused} refused`);
    const m = await metrics(s.base);
    assert.is(m.get('repledger_operation_requests_total{api="agent_access",operation="get_access_context",outcome="unauthorized"}'), 1);
    assert.is(m.get('repledger_operation_requests_total{api="read_api",operation="get_me",outcome="ok"}'), ok);
    assert.is(m.get('repledger_operation_requests_total{api="read_api",operation="get_me",outcome="rate_limited"}'), 1);
    assert.is(m.get('repledger_quota_refusals_total{api="read_api",operation="get_me"}'), 1);
    assert.is(m.get('repledger_operation_duration_seconds_count{api="read_api",operation="get_me"}'), ok + 1);
    assert.ok(m.get('repledger_operation_duration_seconds_sum{api="read_api",operation="get_me"}')! > 0);
    assert.is(m.get('repledger_operation_duration_seconds_bucket{le="+Inf",api="read_api",operation="get_me"}'), ok + 1);
    // Labelled by operation, never by the address asked for.
    assert.not.ok([...m.keys()].some((k) => k.includes('/api/v1/')));
  }));

const checkinUpdate = (seeded: Seeded, energy: number) =>
  validBody([
    {
      op: 'update',
      kind: 'recovery_checkin',
      id: seeded.checkinId,
      base_revision: 1,
      record: { date: seeded.checkinDate, sleep_quality: 3, energy, soreness: 3, stress: 3 },
    },
  ]);

test('/metrics counts proposal transitions: prepared, committed, conflicted, rejected, expired, undone', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  await within(startServer({ clock, env: { METRICS_TOKEN: TOKEN } }), async (s) => {
    const athleteId = await registerPro(s.app);
    const seeded = await seedRecord(s.app, athleteId);
    const caller = await agentCaller(s.app, athleteId);
    const [a, b, c, d] = [checkinUpdate(seeded, 4), checkinUpdate(seeded, 5), checkinUpdate(seeded, 2), checkinUpdate(seeded, 1)];
    for (const body of [a, b, c]) await s.app.proposals.prepare(caller, body);
    await s.app.proposals.prepare(caller, a); // the same body again: a replay, not a new proposal
    assert.is((await s.app.proposals.approve(athleteId, a.command_id)).outcome, 'committed');
    assert.is((await s.app.proposals.approve(athleteId, b.command_id)).outcome, 'conflicted');
    assert.is((await s.app.proposals.reject(athleteId, c.command_id)).outcome, 'rejected');
    await s.app.proposals.undo(athleteId, a.command_id);
    // Created, updated by a, a undone: the check-in is at revision 3.
    const pending = await s.app.proposals.prepare(caller, validBody(d.actions.map((x) => ({ ...x, base_revision: 3 }))));
    clock.advance((WRITE_POLICY.proposalExpiryMinutes + 1) * 60_000);
    assert.is((await s.app.proposals.reject(athleteId, pending.command_id)).outcome, 'expired');

    const m = await metrics(s.base);
    const count = (t: string) => m.get(`repledger_proposal_transitions_total{transition="${t}"}`);
    assert.equal(
      ['prepared', 'committed', 'conflicted', 'rejected', 'undone', 'expired'].map((t) => [t, count(t)]),
      [
        ['prepared', 4],
        ['committed', 1],
        ['conflicted', 1],
        ['rejected', 1],
        ['undone', 1],
        ['expired', 1],
      ],
    );
  });
});

test.run();
