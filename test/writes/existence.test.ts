// No existence oracle (issue 35, part 12). A connection that may propose in an area but not read it
// learns nothing of what is there from preparing: over REST and over MCP, a create that collides
// with the record (a check-in on a date already used, fitness preferences the athlete has) gets the
// same answer as one that does not; the athlete's approval finds the collision and the proposal
// becomes conflicted, saving nothing. A connection that reads the area gets the refusal that says
// what is in the way. Updates and deletes there are refused alike whether the id exists or not.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessError } from '../../contracts/agent-access.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { addDays } from '../../services/domain/time.ts';
import { dumpReadModels } from '../support/app.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { proposalBody, seedRecord, writer, type Answer, type Seeded } from '../support/writes.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const PREFERENCES = { experience_level: 'beginner', training_days_per_week: 3, session_minutes: 45, focus: ['mobility'] };

let s: TestServer;
let ada: string;
let seeded: Seeded;

test.before(async () => {
  s = await startServer({ clock: fixedClock(NOW), env: { AGENT_ACCESS_QUOTA_UNITS: '100000' } });
  ada = await registerPro(s.app);
  seeded = await seedRecord(s.app, ada);
});
test.after(() => s.close());

const checkin = (date: string) => ({ op: 'create', kind: 'recovery_checkin', record: { date, sleep_quality: 4, energy: 4, soreness: 4, stress: 4 } });
const preferences = () => ({ op: 'create', kind: 'fitness_preferences', record: PREFERENCES });

/**
 * An answer with what two different requests must differ in made the same: ids (each uuid by the
 * order it first appears, so that the same id stays the same; the client's, which two connections
 * of two athletes differ in), the dates the bodies name, and the day a summary names.
 */
function comparable(body: unknown, dates: string[]): unknown {
  const ids = new Map<string, string>();
  let json = JSON.stringify(body, (key, value: unknown) => (key === 'client_id' ? 'CLIENT' : value)).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (id) => {
      if (!ids.has(id)) ids.set(id, `ID${ids.size}`);
      return ids.get(id)!;
    },
  );
  for (const date of dates) json = json.replaceAll(date, 'DATE');
  return JSON.parse(json.replace(/[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]+ \d{4}/g, 'DAY'));
}

/** Status, headers (their names and the body's length) and body: everything a client sees. */
function seen(answer: Answer, dates: string[]) {
  const headers = [...answer.headers.keys()].filter((h) => h !== 'date').sort();
  return { status: answer.status, headers, length: answer.headers.get('content-length'), body: comparable(answer.body, dates) };
}

/** The read models of the record: those of proposals and connections aside. */
async function recordModels() {
  return Object.fromEntries(Object.entries(await dumpReadModels(s.app)).filter(([name]) => !name.startsWith('proposal') && !name.startsWith('connection')));
}

test('over REST, without the recovery read scope: a check-in on a date already used is prepared exactly as one on a free date; approving it ends conflicted, nothing saved', async () => {
  const { api } = await writer(s, ada, ['training'], ['recovery:write']);
  const free = addDays(seeded.checkinDate, -1);
  const taken = await api.prepare(proposalBody([checkin(seeded.checkinDate)]));
  const open = await api.prepare(proposalBody([checkin(free)]));
  assert.is(taken.status, 201, JSON.stringify(taken.body));
  assert.equal(seen(taken, [seeded.checkinDate]), seen(open, [free]), 'the same answer, taken or free');

  const before = await recordModels();
  const takenId = taken.body.data.proposal.command_id as string;
  assert.is((await s.app.proposals.approve(ada, takenId)).outcome, 'conflicted');
  const conflicted = (await api.proposal(takenId)).body.data.proposal;
  assert.is(conflicted.status, 'conflicted');
  assert.equal(conflicted.conflict, { action_index: 0, kind: 'recovery_checkin', id: taken.body.data.proposal.actions[0].id, reason: 'taken' });
  assert.equal(await recordModels(), before, 'nothing saved');
  // The free one is saved: the answer at preparation was the same, the outcome is the record's.
  assert.is((await s.app.proposals.approve(ada, open.body.data.proposal.command_id)).outcome, 'committed');
});

test('over REST, with the recovery read scope: the refusal says the date is taken, as before', async () => {
  const { api } = await writer(s, ada, ['training', 'recovery'], ['recovery:write']);
  const body = proposalBody([checkin(seeded.checkinDate)]);
  const answer = await api.prepare(body);
  assert.is(answer.status, 400);
  assert.ok(agentAccessError.safeParse(answer.body).success, JSON.stringify(answer.body));
  assert.equal(answer.body.error, {
    code: 'invalid_input',
    message: `there is already a check-in for ${seeded.checkinDate}`,
    request_id: answer.headers.get('x-request-id'),
    action_index: 0,
    field: 'actions.0.record.date',
  });
  assert.is((await api.proposal(body.command_id)).status, 404, 'nothing stored');
});

test('over MCP, without the recovery read scope: the same tool result for a taken date and a free one', async () => {
  const before = new Set((await s.app.connections.list(ada)).map((c) => c.id));
  const token = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
  const grantId = (await s.app.connections.list(ada)).find((c) => !before.has(c.id))!.id;
  await s.app.connections.setWritePermissions(ada, grantId, ['recovery:write'], { onlyRemove: false });
  const call = async (actions: unknown[]) => {
    const res = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'prepare_write_proposal', arguments: proposalBody(actions) } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, asserted field by field
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  // A day no check-in has yet: another test of this file saves one the day before the seeded one.
  const free = addDays(seeded.checkinDate, -2);
  const taken = await call([checkin(seeded.checkinDate)]);
  const open = await call([checkin(free)]);
  assert.is(taken.status, 200);
  assert.not.ok(taken.body.result.isError, JSON.stringify(taken.body));
  assert.is(taken.body.result.structuredContent.data.proposal.status, 'prepared');
  assert.equal(seen(taken, [seeded.checkinDate]), seen(open, [free]), 'the same answer, taken or free');
});

test('fitness preferences, without the training read scope: the same answer whether the athlete has them or not; approval finds them there; with the scope, refused as existing', async () => {
  const withPreferences = await registerPro(s.app, `bo-${randomUUID()}@example.com`);
  const without = await registerPro(s.app, `cy-${randomUUID()}@example.com`);
  await s.app.records.change(
    withPreferences,
    [{ op: 'create', kind: 'fitness_preferences', item: { id: withPreferences, ...PREFERENCES, focus: ['strength'] } }],
    { type: 'athlete', id: withPreferences },
  );
  const emailOf = async (id: string) => (await s.app.athletes.get(id))!.email;
  const theirs = await writer(s, withPreferences, ['nutrition'], ['training:write'], await emailOf(withPreferences));
  const none = await writer(s, without, ['nutrition'], ['training:write'], await emailOf(without));
  const over = await theirs.api.prepare(proposalBody([preferences()]));
  const fresh = await none.api.prepare(proposalBody([preferences()]));
  assert.is(over.status, 201, JSON.stringify(over.body));
  assert.equal(seen(over, []), seen(fresh, []), 'the same answer, there or not');

  const before = await s.app.proposals.record(withPreferences, 'fitness_preferences', {});
  assert.is((await s.app.proposals.approve(withPreferences, over.body.data.proposal.command_id)).outcome, 'conflicted');
  assert.equal((await theirs.api.proposal(over.body.data.proposal.command_id)).body.data.proposal.conflict.reason, 'taken');
  assert.equal(await s.app.proposals.record(withPreferences, 'fitness_preferences', {}), before, 'nothing saved');

  const reader = await writer(s, withPreferences, ['training'], ['training:write'], await emailOf(withPreferences));
  const refused = await reader.api.prepare(proposalBody([preferences()]));
  assert.is(refused.status, 400);
  assert.equal([refused.body.error.code, refused.body.error.field], ['invalid_input', 'actions.0.id']);

  // The created proposal showed the preferences' id (the athlete's); editing them is refused alike, there or not.
  const update = (id: string) => proposalBody([{ op: 'update', kind: 'fitness_preferences', id, base_revision: 1, record: PREFERENCES }]);
  const edit = await theirs.api.prepare(update(withPreferences));
  const editNone = await none.api.prepare(update(without));
  assert.is(edit.status, 403);
  assert.equal(seen(edit, []), seen(editNone, []), 'the same refusal, there or not');
});

test('deleting a check-in without the recovery read scope: the same 403 for an id that exists and one that does not', async () => {
  const { api } = await writer(s, ada, ['training'], ['recovery:write', 'recovery:delete']);
  const existing = await api.prepare(proposalBody([{ op: 'delete', kind: 'recovery_checkin', id: seeded.checkinId, base_revision: 1 }]));
  const unknown = await api.prepare(proposalBody([{ op: 'delete', kind: 'recovery_checkin', id: randomUUID(), base_revision: 1 }]));
  assert.is(existing.status, 403);
  assert.is(existing.body.error.code, 'insufficient_scope');
  assert.equal(seen(existing, []), seen(unknown, []));
});

test.run();
