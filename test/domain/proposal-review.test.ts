// The athlete's moves, pure: given a record and a prepared (or committed) proposal, when the
// athlete approves, rejects or undoes at a time, then these events or this refusal. Each move is
// decided on the record stream the given events make (test/support/decider-spec.ts, deciders.ts):
// the proposal's prepared and committed events are read back from it, as the service reads them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordStreamEvent } from '../../contracts/events.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import type { PreparedProposal } from '../../services/domain/proposal.ts';
import type { BeforeImage } from '../../services/domain/proposal-review.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import {
  approveDecider,
  commitEvents,
  committedDecision,
  created,
  deleted,
  prepareDecider,
  preparedEvent,
  preparedProposal,
  rejectDecider,
  undoDecider,
  updated,
  type ApproveCommand,
  type UndoCommand,
} from '../support/deciders.ts';
import { validBody } from '../support/writes.ts';
import { workoutSet } from '../support/sets.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa7);
const MEAL = uid(3);
const CHECKIN = uid(4);
const SQUAT = uid(5);
const PREPARED_AT = new Date('2026-06-01T12:00:00.000Z');
const at = (minutes: number) => new Date(PREPARED_AT.getTime() + minutes * 60_000);
const DAYS = 24 * 60;

const oats = { eaten_at: '2026-06-01T07:00:00.000Z', name: 'Oats', calories_kcal: 350, protein_g: null, carbohydrate_g: null, fat_g: null };
const checkin = (energy: number) => ({ id: CHECKIN, date: '2026-05-31', sleep_quality: 3, energy, soreness: 3, stress: 3 });
const squat = (name: string) => ({ id: SQUAT, name, muscle_group: 'legs', tracking_type: 'weight_reps' as const });

/** Every given event occurred when the proposal was prepared. */
const stream = { athleteId: ATHLETE, occurredAt: PREPARED_AT.toISOString() };
const prepare = DeciderSpecification.for(prepareDecider(stream));
const approve = DeciderSpecification.for(approveDecider(stream));
const reject = DeciderSpecification.for(rejectDecider(stream));
const undo = DeciderSpecification.for(undoDecider(stream));

const approving = (p: PreparedProposal, now: Date): ApproveCommand => ({ command_id: p.command_id, now, actions: p.actions });

/** A connection of a coach that reads `scopes` and may make every change, preparing at PREPARED_AT; new ids count from `firstId`. */
function preparing(actions: unknown[], commandId: string, scopes: Array<'training' | 'recovery' | 'nutrition'>, firstId: number) {
  let n = 0;
  return {
    body: validBody(actions, commandId),
    caller: { grantId: uid(0x90), clientId: 'c', clientName: 'Coach', scopes, writePermissions: WRITE_PERMISSIONS },
    now: PREPARED_AT,
    timezone: 'Europe/London',
    newId: () => uid(firstId + ++n),
  };
}

/** Given a meal and a check-in, and a proposal that adds a meal, changes the check-in and deletes the meal. */
function givenPrepared(): { history: RecordStreamEvent[]; p: PreparedProposal } {
  const records = [created('meal', { id: MEAL, ...oats }), created('checkin', checkin(3))];
  const { id: _id, ...checkinRecord } = checkin(5);
  const command = preparing(
    [
      { op: 'create', kind: 'meal', record: { ...oats, name: 'Toast' } },
      { op: 'update', kind: 'recovery_checkin', id: CHECKIN, base_revision: 1, record: checkinRecord },
      { op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 },
    ],
    uid(0x500),
    ['recovery', 'nutrition'],
    0x1000,
  );
  const p = preparedProposal(
    prepare
      .given(...records)
      .when(command)
      .then((d) => assert.is(d.outcome, 'prepared')),
  );
  return { history: [...records, preparedEvent(p)], p };
}

test('given a prepared proposal, when approved before expiry, then every record change and a receipt with revisions', () => {
  const { history, p } = givenPrepared();
  approve
    .given(...history)
    .when(approving(p, at(10)))
    .then((d) => {
      assert.is(d.outcome, 'committed');
      if (d.outcome !== 'committed') return;
      assert.equal(
        d.recordEvents.map((e) => e.type),
        ['meal.created', 'checkin.updated', 'meal.deleted'],
      );
      assert.equal(
        d.changes.map((c) => [c.op, c.kind, c.revision_before, c.revision_after]),
        [
          ['create', 'meal', null, 1],
          ['update', 'recovery_checkin', 1, 2],
          ['delete', 'meal', 1, 2],
        ],
      );
      assert.equal(
        d.before.map((b) => (b.item as { name?: string; energy?: number } | null)?.name ?? (b.item as { energy?: number } | null)?.energy ?? null),
        [null, 3, 'Oats'],
      );
    });
});

test('given a prepared proposal, when approved at its expiry, then it expires and nothing is saved', () => {
  const { history, p } = givenPrepared();
  approve
    .given(...history)
    .when(approving(p, at(30)))
    .then({ outcome: 'expired', events: [{ type: 'proposal.expired', data: { command_id: p.command_id, expired_at: p.expires_at } }] });
});

test('given the check-in changed after preparation, when approved, then conflicted naming the action and nothing else', () => {
  const { history, p } = givenPrepared();
  approve
    .given(...history, updated('checkin', checkin(1), 2))
    .when(approving(p, at(5)))
    .then((d) => {
      assert.is(d.outcome, 'conflicted');
      if (d.outcome !== 'conflicted') return;
      assert.equal(d.conflict, { action_index: 1, kind: 'checkin', id: CHECKIN, reason: 'changed' });
      assert.equal(
        d.events.map((e) => e.type),
        ['proposal.conflicted'],
      );
    });
});

test('given the meal was deleted after preparation, when approved, then conflicted: removed', () => {
  const { history, p } = givenPrepared();
  approve
    .given(...history, deleted('meal', MEAL, 2))
    .when(approving(p, at(5)))
    .then((d) => {
      assert.equal(d.outcome === 'conflicted' && d.conflict, { action_index: 2, kind: 'meal', id: MEAL, reason: 'removed' });
    });
});

test('given a prepared proposal, when rejected before expiry, then rejected; after it, then expired; given it decided, then rejecting or approving is refused: not_pending', () => {
  const { history, p } = givenPrepared();
  reject
    .given(...history)
    .when({ command_id: p.command_id, now: at(1) })
    .then((events) =>
      assert.equal(
        events.map((e) => e.type),
        ['proposal.rejected'],
      ),
    );
  reject
    .given(...history)
    .when({ command_id: p.command_id, now: at(31) })
    .then((events) =>
      assert.equal(
        events.map((e) => e.type),
        ['proposal.expired'],
      ),
    );
  const committed = givenCommitted();
  reject
    .given(...committed.history)
    .when({ command_id: committed.p.command_id, now: at(11) })
    .thenRefuses('not_pending');
  const rejected: RecordStreamEvent = { type: 'proposal.rejected', data: { command_id: p.command_id, rejected_at: at(1).toISOString() } };
  approve
    .given(...history, rejected)
    .when(approving(p, at(1)))
    .thenRefuses('not_pending');
});

/** Given the proposal committed at +10 minutes. */
function givenCommitted() {
  const { history: prepared, p } = givenPrepared();
  const d = committedDecision(
    approve
      .given(...prepared)
      .when(approving(p, at(10)))
      .then((d) => assert.is(d.outcome, 'committed')),
  );
  const history = [...prepared, ...commitEvents(p.command_id, at(10), d)];
  const undoing = (now: Date, before: readonly BeforeImage[] | null = d.before): UndoCommand => ({ command_id: p.command_id, now, before });
  return { history, p, d, undoing };
}

test('given a committed batch, when undone within 30 days, then new events bring every item back: deleted restored, changed set back, created removed', () => {
  const { history, d, undoing } = givenCommitted();
  undo
    .given(...history)
    .when(undoing(at(10 + 29 * DAYS)))
    .then((u) => {
      assert.equal(
        u.recordEvents.map((e) => e.type),
        ['meal.created', 'checkin.updated', 'meal.deleted'],
      );
      assert.equal((u.recordEvents[0]!.data as { item: { name: string } }).item.name, 'Oats');
      assert.equal((u.recordEvents[1]!.data as { item: { energy: number } }).item.energy, 3);
      const created = d.affected.find((x) => x.change === 'created')!;
      assert.equal(u.recordEvents[2]!.data, { id: created.id, revision: 2 });
    });
});

test('given a committed batch, when a record it changed changed again, then the whole undo is prevented, naming it', () => {
  const { history, undoing } = givenCommitted();
  const refusal = undo
    .given(...history, updated('checkin', checkin(2), 3))
    .when(undoing(at(60)))
    .thenRefuses('undo_blocked');
  assert.equal(refusal.item, { kind: 'checkin', id: CHECKIN, how: 'changed' });
  assert.match(refusal.message, `the checkin ${CHECKIN} changed after this batch was saved, so nothing was undone`);
});

test('given a committed batch, when an item it created was removed since, then the undo says it was removed', () => {
  const { history, d, undoing } = givenCommitted();
  const created = d.affected.find((x) => x.change === 'created')!;
  const refusal = undo
    .given(...history, deleted('meal', created.id, 2))
    .when(undoing(at(60)))
    .thenRefuses('undo_blocked');
  assert.match(refusal.message, `the meal ${created.id} was removed after this batch was saved`);
});

/**
 * Given an exercise, and a committed proposal whose new workout uses it: the exercise is the
 * batch's dependency, asserted at revision 1, not changed by it.
 */
function givenCommittedWorkout() {
  const records = [created('exercise', squat('Back Squat'))];
  const set = workoutSet(0, { weight_kg: 100, reps: 5 });
  const command = preparing(
    [
      {
        op: 'create',
        kind: 'completed_workout',
        record: {
          title: 'Legs',
          started_at: null,
          ended_at: '2026-06-01T10:00:00.000Z',
          notes: null,
          exercises: [{ exercise_id: SQUAT, exercise_order: 0, superset_id: null, notes: null, sets: [set] }],
        },
      },
    ],
    uid(0x501),
    ['training'],
    0x2000,
  );
  const p = preparedProposal(
    prepare
      .given(...records)
      .when(command)
      .then((d) => assert.is(d.outcome, 'prepared')),
  );
  assert.equal(p.dependencies, [{ kind: 'exercise', id: SQUAT, revision: 1 }], 'the existing exercise is a dependency');
  const prepared = [...records, preparedEvent(p)];
  const d = committedDecision(
    approve
      .given(...prepared)
      .when(approving(p, at(10)))
      .then((d) => assert.is(d.outcome, 'committed')),
  );
  const history = [...prepared, ...commitEvents(p.command_id, at(10), d)];
  const workoutId = d.affected[0]!.id;
  const undoing = (now: Date): UndoCommand => ({ command_id: p.command_id, now, before: d.before });
  return { history, workoutId, undoing };
}

test('given a committed batch whose new workout uses an exercise, when undone with the exercise as it was, then the workout is removed', () => {
  const { history, workoutId, undoing } = givenCommittedWorkout();
  undo
    .given(...history)
    .when(undoing(at(60)))
    .then((u) =>
      assert.equal(
        u.recordEvents.map((e) => [e.type, (e.data as { id?: string }).id]),
        [['workout.deleted', workoutId]],
      ),
    );
});

test('given a committed batch whose new workout uses an exercise, when the exercise was renamed since, then the whole undo is prevented, naming the exercise', () => {
  const { history, undoing } = givenCommittedWorkout();
  const refusal = undo
    .given(...history, updated('exercise', squat('High-bar Squat'), 2))
    .when(undoing(at(60)))
    .thenRefuses('undo_blocked');
  assert.equal(refusal.item, { kind: 'exercise', id: SQUAT, how: 'changed' });
  assert.is(refusal.message, `the exercise ${SQUAT} changed after this batch was saved, so nothing was undone`);
});

test('given a committed batch, when undone after 30 days, then refused: undo_window_passed; without its earlier values, then recovery_data_removed; given it undone, then not_committed', () => {
  const { history, p, undoing } = givenCommitted();
  undo
    .given(...history)
    .when(undoing(at(10 + 30 * DAYS)))
    .thenRefuses('undo_window_passed');
  undo
    .given(...history)
    .when(undoing(at(60), null))
    .thenRefuses('recovery_data_removed');
  const u = undo
    .given(...history)
    .when(undoing(at(60)))
    .then(() => {});
  const undone: RecordStreamEvent = { type: 'proposal.undone', data: { command_id: p.command_id, undone_at: at(60).toISOString(), affected: u.affected } };
  undo
    .given(...history, ...u.recordEvents, undone)
    .when(undoing(at(61)))
    .thenRefuses('not_committed');
});

test.run();
