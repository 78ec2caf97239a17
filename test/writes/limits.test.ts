// Bounded pending work (issue 35, part 11): one connection may have 10 proposals awaiting review at
// once, and its proposals may store 4 MiB in any 24 hours. Over either, prepare_write_proposal
// answers 429 in the shared error shape with a code of its own and a Retry-After that is exact (a
// second earlier it is still refused; at it, the prepare goes through), over REST and MCP; an
// identical replay of a proposal still answers with it at the limit. Time is the server's injected
// clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessError } from '../../contracts/agent-access.ts';
import { streams, type ProposalPrepared } from '../../contracts/events.ts';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sealedBytes } from '../../services/domain/proposal.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';
import { proposalBody, restWrites, seedRecord, type Answer, type Seeded } from '../support/writes.ts';
import type { WritePermission } from '../../contracts/write-permissions.ts';

const clock = fixedClock('2026-06-01T12:00:00.000Z');
const SECOND = 1000;
const HOUR = 3_600_000;

let s: TestServer;
let ada: string;
let seeded: Seeded;

test.before(async () => {
  s = await startServer({ clock, env: { AGENT_ACCESS_QUOTA_UNITS: '100000' } });
  ada = await registerPro(s.app);
  seeded = await seedRecord(s.app, ada);
});
test.after(() => s.close());

/**
 * A REST connection reading `areas` and allowed `permissions`, whose access token (15 minutes) is
 * refreshed after the clock is moved on by hours: the limits are the grant's, whatever its tokens.
 */
async function writer(areas: string[], permissions: WritePermission[]) {
  const resource = `${s.base}/v1/agent-access`;
  const before = new Set((await s.app.connections.list(ada)).map((c) => c.id));
  const { client, tokens } = await connect(s.base, resource, areas);
  const grantId = (await s.app.connections.list(ada)).find((c) => !before.has(c.id))!.id;
  await s.app.connections.setWritePermissions(ada, grantId, permissions, { onlyRemove: false });
  let api = restWrites(s.base, tokens.access_token);
  let refreshToken = tokens.refresh_token!;
  return {
    grantId,
    api: () => api,
    async refresh() {
      const res = await fetch(`${s.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.info!.client_id, resource }),
      });
      const fresh = (await res.json()) as { access_token: string; refresh_token: string };
      assert.is(res.status, 200, JSON.stringify(fresh));
      api = restWrites(s.base, fresh.access_token);
      refreshToken = fresh.refresh_token;
    },
  };
}

/** Moves the clock on, and the connection's token with it. */
async function advance(ms: number, connection: Awaited<ReturnType<typeof writer>>) {
  clock.advance(ms);
  await connection.refresh();
}

let meals = 0;
const meal = () => ({
  op: 'create',
  kind: 'meal',
  record: {
    eaten_at: new Date(clock.now().getTime() - 60_000).toISOString(),
    name: `Meal ${++meals}`,
    calories_kcal: 500,
    protein_g: 30,
    carbohydrate_g: null,
    fat_g: null,
  },
});

/** A refusal for a limit: 429 in the shared shape, its code, never cached, Retry-After in whole seconds; returns them. */
function limited(answer: Answer, code: string): number {
  assert.is(answer.status, 429, JSON.stringify(answer.body).slice(0, 500));
  assert.ok(agentAccessError.safeParse(answer.body).success, JSON.stringify(answer.body));
  assert.is(answer.body.error.code, code, answer.body.error.message);
  assert.is(answer.headers.get('cache-control'), 'private, no-store');
  const retryAfter = answer.headers.get('retry-after') ?? '';
  assert.match(retryAfter, /^[1-9]\d*$/, `Retry-After ${retryAfter}`);
  return Number(retryAfter);
}

test('get_write_context states both limits', async () => {
  const c = await writer(['nutrition'], ['nutrition:write']);
  const { limits } = (await c.api().context()).body.data;
  assert.is(limits.maximum_pending_proposals, 10);
  assert.is(limits.maximum_proposal_bytes_per_day, 4 * 1024 * 1024);
});

test('10 awaiting review: the 11th is refused (429 pending_proposals_limit) until the soonest expires or the athlete decides one; a replay still answers', async () => {
  const c = await writer(['nutrition'], ['nutrition:write']);
  const prepared: Array<{ body: ReturnType<typeof proposalBody>; answer: Answer }> = [];
  for (let i = 0; i < WRITE_POLICY.pendingProposalsPerConnection; i++) {
    if (i) clock.advance(10 * SECOND);
    const body = proposalBody([meal()]);
    const answer = await c.api().prepare(body);
    assert.is(answer.status, 201);
    prepared.push({ body, answer });
  }
  const eleventh = proposalBody([meal()]);
  const refused = await c.api().prepare(eleventh);
  // The first expires 30 minutes after it was prepared, 90 seconds ago.
  assert.is(limited(refused, 'pending_proposals_limit'), 30 * 60 - 90);
  assert.match(refused.body.error.message, "10 proposals awaiting the athlete's review");
  assert.is((await c.api().proposal(eleventh.command_id)).status, 404, 'nothing stored');

  // An identical replay answers the proposal it prepared, at the limit as anywhere.
  const replay = await c.api().prepare(prepared[0]!.body);
  assert.is(replay.status, 201);
  assert.equal(replay.body.data.proposal, prepared[0]!.answer.body.data.proposal);

  // The athlete rejects one: room for the 11th at once, with the command_id it was refused with.
  assert.is((await s.app.proposals.reject(ada, prepared[4]!.body.command_id)).outcome, 'rejected');
  assert.is((await c.api().prepare(eleventh)).status, 201);

  // Full again: the wait is still the first's expiry. A second before it, still refused; at it, prepared.
  assert.is(limited(await c.api().prepare(proposalBody([meal()])), 'pending_proposals_limit'), 30 * 60 - 90);
  await advance((30 * 60 - 90 - 1) * SECOND, c);
  assert.is(limited(await c.api().prepare(proposalBody([meal()])), 'pending_proposals_limit'), 1);
  clock.advance(SECOND);
  assert.is((await c.api().prepare(proposalBody([meal()]))).status, 201, 'the first has expired: room for one');
  assert.is((await c.api().proposal(prepared[0]!.body.command_id)).body.data.proposal.status, 'expired');
});

test('over MCP the limit is an HTTP 429 with Retry-After and the code, as the request quota is; a replay is still a result', async () => {
  const before = new Set((await s.app.connections.list(ada)).map((c) => c.id));
  const token = (await connect(s.base, `${s.base}/mcp`, ['nutrition'])).tokens.access_token;
  const grantId = (await s.app.connections.list(ada)).find((c) => !before.has(c.id))!.id;
  await s.app.connections.setWritePermissions(ada, grantId, ['nutrition:write'], { onlyRemove: false });
  const call = async (body: unknown): Promise<Answer> => {
    const res = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'prepare_write_proposal', arguments: body } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, asserted field by field
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const first = proposalBody([meal()]);
  const original = await call(first);
  assert.is(original.status, 200);
  for (let i = 1; i < WRITE_POLICY.pendingProposalsPerConnection; i++) assert.not.ok((await call(proposalBody([meal()]))).body.result.isError);
  assert.is(limited(await call(proposalBody([meal()])), 'pending_proposals_limit'), 30 * 60);
  const replay = await call(first);
  assert.is(replay.status, 200);
  assert.equal(replay.body.result.structuredContent.data.proposal, original.body.result.structuredContent.data.proposal);
});

/** About 460 KB of JSON: two workouts of 100 exercises, each with a note of 2,000 characters. */
function largeBody(s: Seeded) {
  const ago = (h: number) => new Date(clock.now().getTime() - h * HOUR).toISOString();
  const workout = (h: number) => ({
    op: 'create',
    kind: 'completed_workout',
    record: {
      title: `Long session ${h}`,
      started_at: ago(h + 1),
      ended_at: ago(h),
      notes: null,
      exercises: Array.from({ length: 100 }, (_, i) => ({
        exercise_id: s.exerciseId,
        exercise_order: i,
        superset_id: null,
        notes: `${i} `.padEnd(2000, 'note '),
        sets: [workoutSet(0, { weight_kg: 60, reps: 8 })],
      })),
    },
  });
  return proposalBody([workout(2), workout(4)]);
}

test('the bytes of a day: large batches until the next would pass 4 MiB; refused (429 proposal_bytes_limit) until the oldest leaves the window; a small one still fits; a replay answers', async () => {
  const c = await writer(['training', 'nutrition'], ['training:write', 'nutrition:write']);
  const limit = WRITE_POLICY.proposalBytesPerConnectionPerDay;
  const large: Array<ReturnType<typeof proposalBody>> = [];
  let refused: Answer | null = null;
  for (let i = 0; i < 12 && !refused; i++) {
    if (i) await advance(HOUR, c);
    const body = largeBody(seeded);
    assert.ok(JSON.stringify(body).length > 450_000 && JSON.stringify(body).length < 512 * 1024);
    const answer = await c.api().prepare(body);
    if (answer.status === 201) large.push(body);
    else refused = answer;
  }
  assert.ok(refused, 'a large batch was refused');
  assert.ok(large.length >= 4, `${large.length} large batches fitted`);

  // What the log holds for this connection's proposals: the sealed details as stored, and when.
  const events = (await s.app.events.readStream(streams.record(ada))).filter(
    (e): e is typeof e & ProposalPrepared => e.type === 'proposal.prepared' && (e.data as ProposalPrepared['data']).grant_id === c.grantId,
  );
  const stored = events.map((e) => ({ at: Date.parse(e.data.prepared_at), bytes: e.data.details.ciphertext.length }));
  const used = stored.reduce((n, x) => n + x.bytes, 0);
  assert.ok(used <= limit && used + stored[0]!.bytes > limit, `${used} bytes stored`);
  // The first leaving the window makes room: it was prepared an hour before each of the others, the last an hour ago.
  assert.is(stored[0]!.at, clock.now().getTime() - large.length * HOUR);
  assert.is(limited(refused!, 'proposal_bytes_limit'), 24 * 3600 - large.length * 3600);
  assert.match(refused!.body.error.message, `take ${used} bytes`);

  // What the fold counts is what the log stores, and what preparation foresaw before sealing.
  const { proposals } = await s.app.records.load(ada);
  for (const e of events) {
    assert.is(proposals.get(e.data.command_id)!.sealed_bytes, e.data.details.ciphertext.length);
    const proposal = (await c.api().proposal(e.data.command_id)).body.data.proposal;
    assert.is(sealedBytes({ actions: proposal.actions, reason: null }), e.data.details.ciphertext.length);
  }

  // A replay at the limit answers; a small batch still fits; decided or not, the large ones still count.
  const replay = await c.api().prepare(large.at(-1)!);
  assert.is(replay.status, 201);
  assert.is((await c.api().prepare(proposalBody([meal()]))).status, 201);
  for (const body of large) await s.app.proposals.reject(ada, body.command_id);
  const wait = limited(await c.api().prepare(largeBody(seeded)), 'proposal_bytes_limit');
  await advance((wait - 1) * SECOND, c);
  assert.is(limited(await c.api().prepare(largeBody(seeded)), 'proposal_bytes_limit'), 1);
  clock.advance(SECOND);
  assert.is((await c.api().prepare(largeBody(seeded))).status, 201, 'the oldest has left the window: room again');
});

test.run();
