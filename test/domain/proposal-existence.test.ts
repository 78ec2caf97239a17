// No existence oracle, decided purely: given a record, when a connection prepares a create in an
// area it may not read, then preparing tells nothing of what is there (a check-in on the date,
// fitness preferences): the colliding create is prepared like one that collides with nothing, and
// its collision is decided at approval, where the proposal becomes conflicted. With the read scope
// the refusal says what is in the way, as before. Every other check still runs at preparation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ReadScope } from '../../contracts/common.ts';
import type { RecordEvent } from '../../contracts/events.ts';
import type { WriteProposalBody } from '../../contracts/write.ts';
import type { WritePermission } from '../../contracts/write-permissions.ts';
import type { PrepareCommand, PreparedProposal } from '../../services/domain/proposal.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { approveDecider, created, prepareDecider, preparedEvent, preparedProposal, type ApproveCommand } from '../support/deciders.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa7);
const CHECKIN = uid(1);
const NOW = new Date('2026-06-01T12:00:00.000Z');
const TAKEN = '2026-05-30';
const FREE = '2026-05-29';
const PREFERENCES = { experience_level: 'intermediate', training_days_per_week: 3, session_minutes: 60, focus: ['strength'] };

const stream = { athleteId: ATHLETE, occurredAt: NOW.toISOString() };
const prepare = DeciderSpecification.for(prepareDecider(stream));
const approve = DeciderSpecification.for(approveDecider(stream));

/** Given: a record with a check-in on TAKEN and, when asked, fitness preferences. */
function given(options: { preferences?: boolean } = {}): RecordEvent[] {
  const events = [created('checkin', { id: CHECKIN, date: TAKEN, sleep_quality: 3, energy: 3, soreness: 3, stress: 3 })];
  if (options.preferences)
    events.push(
      created('fitness_preferences', { id: ATHLETE, experience_level: 'intermediate', training_days_per_week: 3, session_minutes: 60, focus: ['strength'] }),
    );
  return events;
}

const checkin = (date: string) => ({ op: 'create', kind: 'recovery_checkin', record: { date, sleep_quality: 4, energy: 4, soreness: 4, stress: 4 } });
const preferences = () => ({ op: 'create', kind: 'fitness_preferences', record: PREFERENCES });

/** A connection reading `scopes`, allowed `permissions`. */
function command(actions: unknown[], scopes: ReadScope[], permissions: WritePermission[]): PrepareCommand {
  let ids = 0;
  return {
    body: { version: 'agent-access-write.v1', command_id: uid(0x500), actions } as WriteProposalBody,
    caller: { grantId: uid(0x90), clientId: 'client', clientName: 'Coach', scopes, writePermissions: permissions },
    now: NOW,
    timezone: 'Europe/London',
    newId: () => uid(0x1000 + ++ids),
  };
}

/** When: the batch is prepared against the record; then a proposal (a refusal fails the test, saying why). */
function when(record: RecordEvent[], c: PrepareCommand): PreparedProposal {
  return preparedProposal(
    prepare
      .given(...record)
      .when(c)
      .then((d) => assert.is(d.outcome, 'prepared')),
  );
}

/** The proposal with what two batches naming different dates differ in (the date, so the body's digest) made the same. */
const withoutDate = (p: PreparedProposal, date: string) => JSON.parse(JSON.stringify({ ...p, body_sha256: 'DIGEST' }).replaceAll(date, 'DATE'));

/** Then, at approval: the record decides the batch again, given the record and the prepared proposal. */
const approving = (record: RecordEvent[], p: PreparedProposal) =>
  approve.given(...record, preparedEvent(p)).when({ command_id: p.command_id, now: NOW, actions: p.actions } satisfies ApproveCommand);

test('given a check-in on a date, when a connection that may not read recovery creates one there, then it is prepared exactly as on a free date, and approval finds it taken', () => {
  const record = given();
  const blind = (date: string) => command([checkin(date)], ['training'], ['recovery:write']);
  const taken = when(record, blind(TAKEN));
  const free = when(record, blind(FREE));
  assert.equal(withoutDate(taken, TAKEN), withoutDate(free, FREE), 'the same answer whether the date is taken or not');
  approving(record, taken).then((approval) => {
    assert.is(approval.outcome, 'conflicted');
    assert.equal(approval.outcome === 'conflicted' && approval.conflict, { action_index: 0, kind: 'checkin', id: taken.actions[0]!.id, reason: 'taken' });
  });
  approving(record, free).then((approval) => assert.is(approval.outcome, 'committed'));
});

test('given a check-in on a date, when a connection that reads recovery creates one there, then the refusal says the date is taken, as before', () => {
  const refused = prepare
    .given(...given())
    .when(command([checkin(TAKEN)], ['training', 'recovery'], ['recovery:write']))
    .thenRefuses('invalid_action');
  assert.equal(
    [refused.reason, refused.actionIndex, refused.field, refused.message],
    ['invalid_action', 0, 'actions.0.record.date', `there is already a check-in for ${TAKEN}`],
  );
});

test('given fitness preferences, when a connection that may not read training creates them, then they are prepared as if there were none, and approval finds them taken; reading training, the refusal says they exist', () => {
  const blind = () => command([preferences()], ['nutrition'], ['training:write']);
  const existing = given({ preferences: true });
  const none = given();
  const over = when(existing, blind());
  assert.equal(over, when(none, blind()), 'the same answer whether the athlete has preferences or not');
  approving(existing, over).then((approval) => {
    assert.equal(approval.outcome === 'conflicted' && approval.conflict, { action_index: 0, kind: 'fitness_preferences', id: ATHLETE, reason: 'taken' });
  });
  const refused = prepare
    .given(...existing)
    .when(command([preferences()], ['training'], ['training:write']))
    .thenRefuses('invalid_action');
  assert.equal([refused.reason, refused.field, refused.message], ['invalid_action', 'actions.0.id', 'an item with this id exists or existed']);
});

test('given a free date, when a blind connection creates two check-ins on it in one batch, then the second is refused: a collision within the batch tells nothing of the record', () => {
  const refused = prepare
    .given(...given())
    .when(command([checkin(FREE), checkin(FREE)], ['training'], ['recovery:write']))
    .thenRefuses('invalid_action');
  assert.equal(
    [refused.reason, refused.actionIndex, refused.field, refused.message],
    ['invalid_action', 1, 'actions.1.record.date', `there is already a check-in for ${FREE}`],
  );
});

test('given a check-in on a date, when a blind connection prepares a batch with another fault, then every other check still runs at preparation: validation, permissions, dates and references', () => {
  const record = prepare.given(...given());
  const blind = (actions: unknown[], permissions: WritePermission[] = ['recovery:write']) => record.when(command(actions, ['training'], permissions));
  const future = blind([checkin(TAKEN), checkin('2026-06-02')]).thenRefuses('invalid_action');
  assert.equal([future.reason, future.field], ['invalid_action', 'actions.1.record.date']);
  const permission = blind([
    checkin(TAKEN),
    {
      op: 'create',
      kind: 'meal',
      record: { eaten_at: '2026-06-01T08:00:00.000Z', name: 'Oats', calories_kcal: 300, protein_g: null, carbohydrate_g: null, fat_g: null },
    },
  ]).thenRefuses('write_permission_missing');
  assert.equal([permission.reason, permission.missingPermissions], ['write_permission_missing', ['nutrition:write']]);
  const invalid = blind([{ op: 'create', kind: 'recovery_checkin', record: { date: TAKEN, sleep_quality: 9, energy: 4, soreness: 4, stress: 4 } }]).thenRefuses(
    'invalid_action',
  );
  assert.equal([invalid.reason, invalid.field], ['invalid_action', 'actions.0.record.sleep_quality']);
  // A reference to an exercise is checked too (a bodyweight goal may name one).
  const goal = {
    op: 'create',
    kind: 'goal',
    record: { goal_type: 'target_bodyweight', status: 'active', exercise_id: uid(0x999), target_value: 80, target_unit: 'kg', achieved_at: null },
  };
  const reference = record.when(command([goal], ['training'], ['body_measurements:write'])).thenRefuses('invalid_action');
  assert.equal([reference.reason, reference.field], ['invalid_action', 'actions.0.record.exercise_id']);
});

test('given a check-in and fitness preferences, when a connection that may not read their area updates or deletes one, then it is refused the same way whether its id exists or not', () => {
  const record = prepare.given(...given({ preferences: true }));
  const blind = (actions: unknown[]) =>
    record.when(command(actions, ['nutrition'], ['recovery:write', 'recovery:delete', 'training:write'])).thenRefuses('read_scope_missing');
  const existing = blind([{ op: 'delete', kind: 'recovery_checkin', id: CHECKIN, base_revision: 1 }]);
  const unknown = blind([{ op: 'delete', kind: 'recovery_checkin', id: uid(0x404), base_revision: 1 }]);
  assert.equal([existing.reason, existing.missingScopes], ['read_scope_missing', ['recovery']]);
  assert.equal([unknown.reason, unknown.message, unknown.field], [existing.reason, existing.message, existing.field]);
  // Fitness preferences share the athlete's id, which a prepared create of them shows.
  const update = { op: 'update', kind: 'fitness_preferences', id: ATHLETE, base_revision: 1, record: PREFERENCES };
  const theirs = blind([update]);
  const none = prepare
    .given(...given())
    .when(command([update], ['nutrition'], ['training:write']))
    .thenRefuses('read_scope_missing');
  assert.equal([theirs.reason, theirs.message], ['read_scope_missing', none.message]);
  assert.is(none.reason, 'read_scope_missing');
});

test.run();
