// Every refusal of prepare_write_proposal, one by one: its status, code, the action and field it
// names, its headers, and that nothing was stored (the command_id stays free for a valid body).
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessError } from '../../contracts/agent-access.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { addDays } from '../../services/domain/time.ts';
import { registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { proposalBody, seedRecord, writer, type Answer, type Seeded } from '../support/writes.ts';

const EVERY = ['training', 'recovery', 'nutrition', 'body_measurements'];
/**
 * The servers' clock, fixed: "today" cannot change during a run. Half past midnight in London
 * (the athlete's zone) is still the day before in UTC, so a horizon counted from UTC's date is
 * seen too.
 */
const NOW = '2026-06-01T23:30:00.000Z';
const TODAY = '2026-06-02';
const ago = (ms: number) => new Date(Date.parse(NOW) - ms).toISOString();

let s: TestServer;
let athleteId: string;
let seeded: Seeded;

test.before(async () => {
  s = await startServer({ clock: fixedClock(NOW), env: { AGENT_ACCESS_QUOTA_UNITS: '100000' } });
  athleteId = await registerPro(s.app);
  seeded = await seedRecord(s.app, athleteId);
});
test.after(() => s.close());

const meal = () => ({ eaten_at: ago(60_000), name: 'Toast', calories_kcal: 200, protein_g: null, carbohydrate_g: null, fat_g: null });
const createMeal = () => ({ op: 'create', kind: 'meal', record: meal() });
const routine = (dates: string[]) => ({
  op: 'create',
  kind: 'saved_routine',
  record: {
    title: 'Plan',
    exercises: [{ position: 0, exercise_id: seeded.exerciseId, sets: 3, reps: '5', target_rpe: null, rest_seconds: 120 }],
    scheduled_dates: dates,
  },
});

/** `value` with the keys of every object in it, at every depth, in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

/** A refusal in the shared shape, never cached, and its command_id still free. */
async function refused(api: Awaited<ReturnType<typeof writer>>['api'], answer: Answer, status: number, code: string, commandId?: string) {
  assert.is(answer.status, status, JSON.stringify(answer.body));
  assert.ok(agentAccessError.safeParse(answer.body).success, JSON.stringify(answer.body));
  assert.is(answer.body.error.code, code, answer.body.error.message);
  assert.is(answer.headers.get('cache-control'), 'private, no-store');
  assert.is(answer.body.error.request_id, answer.headers.get('x-request-id'));
  if (commandId) assert.is((await api.proposal(commandId)).status, 404, 'nothing was stored');
  return answer.body.error as { message: string; action_index?: number; field?: string; permissions_url?: string };
}

test('no write permission: 403 with the permission form link, and the same command_id works once the athlete allows it', async () => {
  const { api, grantId } = await writer(s, athleteId, EVERY, []);
  const body = proposalBody([createMeal()]);
  const answer = await api.prepare(body);
  const error = await refused(api, answer, 403, 'write_permission_required', body.command_id);
  assert.is(error.action_index, 0);
  assert.is(error.permissions_url, `${s.base}/connections/${grantId}/write-permissions/request?permissions=nutrition%3Awrite`);
  assert.match(error.message, error.permissions_url!);
  assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope"/);
  await s.app.connections.setWritePermissions(athleteId, grantId, ['nutrition:write'], { onlyRemove: false });
  assert.is((await api.prepare(body)).status, 201);
});

test('editing without the read scope: 403 insufficient_scope naming the area to read', async () => {
  const { api } = await writer(s, athleteId, ['training'], ['recovery:write']);
  const body = proposalBody([
    {
      op: 'update',
      kind: 'recovery_checkin',
      id: seeded.checkinId,
      base_revision: 1,
      record: { date: seeded.checkinDate, sleep_quality: 1, energy: 1, soreness: 1, stress: 1 },
    },
  ]);
  const answer = await api.prepare(body);
  const error = await refused(api, answer, 403, 'insufficient_scope', body.command_id);
  assert.is(error.action_index, 0);
  assert.match(answer.headers.get('www-authenticate') ?? '', 'scope="recovery training"');
});

test('deleting without the delete permission: 403 naming it, although creating is allowed', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write']);
  const body = proposalBody([createMeal(), { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
  const error = await refused(api, await api.prepare(body), 403, 'write_permission_required', body.command_id);
  assert.is(error.action_index, 1);
  assert.match(error.permissions_url!, 'permissions=nutrition%3Adelete');
});

test('51 changes: 400; 50 are accepted', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write']);
  const body = proposalBody(Array.from({ length: 51 }, createMeal));
  const error = await refused(api, await api.prepare(body), 400, 'invalid_input', body.command_id);
  assert.is(error.field, 'actions');
  assert.match(error.message, 'at most 50 changes');
  assert.is((await api.prepare(proposalBody(Array.from({ length: 50 }, createMeal)))).status, 201);
});

test('a routine scheduled 91 days ahead: 400 naming the date; 90 days ahead is accepted', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['training:write']);
  const today = TODAY;
  const body = proposalBody([routine([addDays(today, 7), addDays(today, 91)])]);
  const error = await refused(api, await api.prepare(body), 400, 'invalid_input', body.command_id);
  assert.is(error.action_index, 0);
  assert.is(error.field, 'actions.0.record.scheduled_dates.1');
  assert.match(error.message, `the last date that can be scheduled is ${addDays(today, 90)}`);
  assert.is((await api.prepare(proposalBody([routine([today, addDays(today, 90)])]))).status, 201);
  const past = await api.prepare(proposalBody([routine([addDays(today, -1)])]));
  assert.is(past.status, 400);
  // Every day of the window (91 dates, today included) fits; a date twice does not.
  const everyDay = Array.from({ length: 91 }, (_, i) => addDays(today, i));
  assert.is((await api.prepare(proposalBody([routine(everyDay)]))).status, 201);
  const twice = proposalBody([routine([addDays(today, 3), addDays(today, 3)])]);
  const repeated = await refused(api, await api.prepare(twice), 400, 'invalid_input', twice.command_id);
  assert.is(repeated.field, 'actions.0.record.scheduled_dates');
  assert.match(repeated.message, 'each date once');
  const shared = routine([addDays(today, 3)]);
  const samePosition = proposalBody([
    { ...shared, record: { ...shared.record, exercises: [shared.record.exercises[0]!, { ...shared.record.exercises[0]!, reps: '8' }] } },
  ]);
  assert.is((await refused(api, await api.prepare(samePosition), 400, 'invalid_input', samePosition.command_id)).field, 'actions.0.record.exercises');
});

test('a stale base_revision: 400 revision_conflict telling the agent to read the item again', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write', 'nutrition:delete']);
  const body = proposalBody([createMeal(), { op: 'update', kind: 'meal', id: seeded.mealId, base_revision: 2, record: meal() }]);
  const error = await refused(api, await api.prepare(body), 400, 'revision_conflict', body.command_id);
  assert.is(error.action_index, 1);
  assert.is(error.field, 'actions.1.base_revision');
  assert.match(error.message, 'current revision is 1');
  assert.match(error.message, 'get_write_record');
});

test("an unknown id and another athlete's id: the same 404, revealing nothing", async () => {
  const bob = await registerPro(s.app, `bob-${randomUUID()}@example.com`);
  const theirs = await seedRecord(s.app, bob);
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write', 'nutrition:delete']);
  const foreignBody = proposalBody([{ op: 'delete', kind: 'meal', id: theirs.mealId, base_revision: 1 }]);
  const unknownBody = proposalBody([{ op: 'delete', kind: 'meal', id: randomUUID(), base_revision: 1 }]);
  const foreign = await refused(api, await api.prepare(foreignBody), 404, 'not_found', foreignBody.command_id);
  const unknown = await refused(api, await api.prepare(unknownBody), 404, 'not_found', unknownBody.command_id);
  assert.is(foreign.field, 'actions.0.id');
  assert.is(foreign.message.replace(theirs.mealId, 'ID'), unknown.message.replace(/[0-9a-f-]{36}/, 'ID'));
  // An id of another kind is not found either.
  const wrongKind = proposalBody([{ op: 'delete', kind: 'meal', id: seeded.checkinId, base_revision: 1 }]);
  await refused(api, await api.prepare(wrongKind), 404, 'not_found', wrongKind.command_id);
});

test('a malformed body, a wrong version, a bad field, an unknown field: 400 saying what was wrong', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write', 'training:write']);
  const notJson = await api.prepareRaw('{"version": ');
  await refused(api, notJson, 400, 'invalid_input');
  // JSON, but not an object: said so, not as an unknown parameter and missing fields.
  for (const [raw, sent] of [
    ['[]', 'an array'],
    ['null', 'null'],
    ['"a proposal"', 'a string'],
  ] as const) {
    const notObject = await refused(api, await api.prepareRaw(raw), 400, 'invalid_input');
    assert.is(notObject.message, `the request body must be a JSON object, not ${sent}`);
    assert.is(notObject.field, 'body');
  }
  const version = proposalBody([createMeal()]);
  const wrongVersion = await refused(api, await api.prepare({ ...version, version: 'agent-access-write.v2' }), 400, 'invalid_input', version.command_id);
  assert.is(wrongVersion.field, 'version');
  assert.match(wrongVersion.message, 'version must be "agent-access-write.v1"');
  const badField = proposalBody([createMeal(), { op: 'create', kind: 'meal', record: { ...meal(), name: '' } }]);
  const bad = await refused(api, await api.prepare(badField), 400, 'invalid_input', badField.command_id);
  assert.is(bad.action_index, 1);
  assert.is(bad.field, 'actions.1.record.name');
  const unknownField = proposalBody([{ ...createMeal(), record: { ...meal(), sugar_g: 3 } }]);
  const unknown = await refused(api, await api.prepare(unknownField), 400, 'invalid_input', unknownField.command_id);
  assert.is(unknown.field, 'actions.0.record.sugar_g');
  assert.is(unknown.message, 'unknown field actions.0.record.sugar_g', 'the field once, by its whole path');
  const badRef = proposalBody([
    routine([]),
    {
      ...routine([]),
      record: { ...routine([]).record, exercises: [{ position: 0, exercise_id: { ref: 'nope' }, sets: 3, reps: '5', target_rpe: null, rest_seconds: null }] },
    },
  ]);
  const ref = await refused(api, await api.prepare(badRef), 400, 'invalid_input', badRef.command_id);
  assert.is(ref.field, 'actions.1.record.exercises.0.exercise_id');
  const future = proposalBody([{ op: 'create', kind: 'meal', record: { ...meal(), eaten_at: ago(-86_400_000) } }]);
  assert.is((await refused(api, await api.prepare(future), 400, 'invalid_input', future.command_id)).field, 'actions.0.record.eaten_at');
  // A goal achieved in the future is no more possible than a meal eaten there.
  const achieved = proposalBody([
    {
      op: 'create',
      kind: 'goal',
      record: {
        goal_type: 'weekly_session_count',
        status: 'achieved',
        exercise_id: null,
        target_value: 3,
        target_unit: 'sessions',
        achieved_at: '2099-01-01T00:00:00Z',
      },
    },
  ]);
  assert.is((await refused(api, await api.prepare(achieved), 400, 'invalid_input', achieved.command_id)).field, 'actions.0.record.achieved_at');
  // A year mistyped (0999 for 2026) is refused, not recorded: its local date would not even be a date.
  const ancient = proposalBody([{ op: 'create', kind: 'meal', record: { ...meal(), eaten_at: '0999-01-01T12:00:00Z' } }]);
  const old = await refused(api, await api.prepare(ancient), 400, 'invalid_input', ancient.command_id);
  assert.is(old.field, 'actions.0.record.eaten_at');
  assert.match(old.message, 'is before 1900-01-01; check the year');
  // One item changed twice in a batch is refused as such, not as a revision the agent should re-read.
  const twice = proposalBody([
    { op: 'update', kind: 'meal', id: seeded.mealId, base_revision: 1, record: meal() },
    { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 },
  ]);
  const repeated = await refused(api, await api.prepare(twice), 400, 'invalid_input', twice.command_id);
  assert.is(repeated.action_index, 1);
  assert.match(repeated.message, `actions 0 and 1 both change meal ${seeded.mealId}`);
  // A slipped exponent is refused before it reaches a chart or a daily sum.
  const huge = proposalBody([{ op: 'create', kind: 'meal', record: { ...meal(), calories_kcal: 1e308 } }]);
  assert.is((await refused(api, await api.prepare(huge), 400, 'invalid_input', huge.command_id)).field, 'actions.0.record.calories_kcal');
  const noId = proposalBody([{ op: 'update', kind: 'meal', base_revision: 1, record: meal() }]);
  assert.is((await refused(api, await api.prepare(noId), 400, 'invalid_input', noId.command_id)).field, 'actions.0.id');
});

test("command_id: an identical replay returns the same proposal; another body is refused naming the proposal; another connection's is refused and unreadable", async () => {
  const first = await writer(s, athleteId, EVERY, ['nutrition:write']);
  const body = proposalBody([createMeal()]);
  const original = await first.api.prepare(body);
  assert.is(original.status, 201);
  // The same body with the keys of every object in it, the record's too, in reverse order, sent as
  // it is written: the same body.
  const reordered = JSON.stringify(reversedKeys(body));
  assert.is.not(reordered, JSON.stringify(body));
  assert.equal(JSON.parse(reordered), body);
  const replay = await first.api.prepareRaw(reordered);
  assert.is(replay.status, 201);
  assert.equal(replay.body.data.proposal, original.body.data.proposal);
  // A uuid is one id in either case: upper case is the same command, not a second proposal.
  const upper = body.command_id.toUpperCase();
  const shouted = await first.api.prepare({ ...body, command_id: upper });
  assert.is(shouted.status, 201);
  assert.equal(shouted.body.data.proposal, original.body.data.proposal);
  assert.equal((await first.api.proposal(upper)).body.data.proposal, original.body.data.proposal);
  // Another body: the same meal eaten a minute earlier (the clock stands still, so a new meal would be the same one).
  const otherActions = [{ ...createMeal(), record: { ...meal(), eaten_at: ago(120_000) } }];
  assert.is((await first.api.prepare({ ...body, command_id: upper, actions: otherActions })).status, 400);
  const other = await first.api.prepare({ ...body, actions: otherActions });
  const error = await refused(first.api, other, 400, 'command_id_reused');
  assert.is(error.field, 'command_id');
  assert.match(error.message, `command_id ${body.command_id} is the proposal prepared at ${original.body.data.proposal.prepared_at}`);
  assert.equal((await first.api.proposal(body.command_id)).body.data.proposal, original.body.data.proposal, 'the first proposal is untouched');

  const second = await writer(s, athleteId, EVERY, ['nutrition:write']);
  assert.is((await second.api.prepare({ ...body, command_id: body.command_id.toUpperCase() })).body.error.code, 'command_id_reused', 'in any case');
  const theirs = await second.api.prepare(body);
  const taken = await refused(second.api, theirs, 400, 'command_id_reused');
  assert.not.match(taken.message, original.body.data.proposal.prepared_at, 'another connection learns nothing of the proposal');
  assert.is((await second.api.proposal(body.command_id)).status, 404);
});

test('a 1 MB body: 413 in the shared shape', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write']);
  const big = JSON.stringify({ ...proposalBody([createMeal()]), padding: 'x'.repeat(1024 * 1024) });
  const answer = await api.prepareRaw(big);
  await refused(api, answer, 413, 'payload_too_large');
  assert.match(answer.body.error.message, `${512 * 1024} bytes`);
});

test('paused writes: 503 with Retry-After; reads go on, and the write context says writes are paused', async () => {
  const { api } = await writer(s, athleteId, EVERY, ['nutrition:write']);
  await s.app.maintenance.set('write', 120, 'operator:test');
  try {
    const body = proposalBody([createMeal()]);
    const answer = await api.prepare(body);
    await refused(api, answer, 503, 'unavailable', body.command_id);
    assert.is(answer.headers.get('retry-after'), '120');
    const context = await api.context();
    assert.is(context.status, 200);
    assert.is(context.body.data.writes_paused, true);
  } finally {
    await s.app.maintenance.set('write', null, 'operator:test');
  }
});

test('writes are weighted in the quota: a prepare costs 10 units, and a spent quota answers 429 with Retry-After', async () => {
  // On a clock that stands still the spent quota refills by nothing between the calls.
  const small = await startServer({ clock: fixedClock(NOW), env: { AGENT_ACCESS_QUOTA_UNITS: '25' } });
  try {
    const ada = await registerPro(small.app);
    const { api } = await writer(small, ada, EVERY, ['nutrition:write']);
    assert.is((await api.prepare(proposalBody([createMeal()]))).status, 201);
    assert.is((await api.prepare(proposalBody([createMeal()]))).status, 201);
    const body = proposalBody([createMeal()]);
    const answer = await api.prepare(body);
    assert.is(answer.status, 429);
    assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    assert.is(answer.body.error.code, 'rate_limited');
  } finally {
    await small.close();
  }
});

test.run();
