// The athlete's moves, pure: given a record and a prepared (or committed) proposal, when the
// athlete approves, rejects or undoes at a time, then these events or this refusal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProposalPrepared } from '../../contracts/events.ts';
import type { WriteProposalBody } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { decidePrepare, evolveProposals, itemKeysOf, type PreparedProposal, ProposalState } from '../../services/domain/proposal.ts';
import { approvalKeys, decideApprove, decideReject, decideUndo, ReviewRefusal, type ApproveDecision } from '../../services/domain/proposal-review.ts';
import { decideChanges, evolve, initialRecordState, itemImages, type RecordChange, type RecordState } from '../../services/domain/record.ts';
import { thrown } from '../support/thrown.ts';

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

interface World {
  record: RecordState;
  log: Array<{ type: string; data: unknown; occurred_at: string }>;
  proposals: ProposalState;
}

function apply(w: World, events: Array<{ type: string; data: unknown }>) {
  for (const e of events) {
    evolve(w.record, e as never);
    evolveProposals(w.proposals, e);
    w.log.push({ ...e, occurred_at: PREPARED_AT.toISOString() });
  }
}

function change(w: World, changes: RecordChange[]) {
  apply(w, decideChanges(changes, w.record));
}

/** Given a meal and a check-in, and a proposal that adds a meal, changes the check-in and deletes the meal. */
function givenPrepared(): { w: World; p: PreparedProposal } {
  const w: World = { record: initialRecordState(ATHLETE), log: [], proposals: new ProposalState() };
  change(w, [{ op: 'create', kind: 'meal', item: { id: MEAL, ...oats } }, { op: 'create', kind: 'checkin', item: checkin(3) }]);
  const body = {
    version: 'agent-access-write.v1',
    command_id: uid(0x500),
    actions: [
      { op: 'create', kind: 'meal', record: { ...oats, name: 'Toast' } },
      { op: 'update', kind: 'recovery_checkin', id: CHECKIN, base_revision: 1, record: { ...checkin(5), id: undefined } },
      { op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 },
    ],
  } as unknown as WriteProposalBody;
  let n = 0;
  const decision = decidePrepare(
    { body, caller: { grantId: uid(0x90), clientId: 'c', clientName: 'Coach', scopes: ['recovery', 'nutrition'], writePermissions: WRITE_PERMISSIONS }, now: PREPARED_AT, timezone: 'Europe/London', newId: () => uid(0x1000 + ++n) },
    w.record,
    w.proposals,
    itemImages(w.log, itemKeysOf(body)),
  );
  if (decision.outcome !== 'prepared') throw new Error('expected a proposal');
  const p = decision.proposal;
  apply(w, [{ type: 'proposal.prepared', data: { ...p, changes: p.changes.map(({ summary: _s, ...c }) => c), actions: undefined } }]);
  return { w, p };
}

function approve(w: World, p: PreparedProposal, now: Date): ApproveDecision {
  return decideApprove({ now, record: w.record, entry: w.proposals.get(p.command_id)!, prepared: p as unknown as ProposalPrepared['data'], actions: p.actions, images: itemImages(w.log, approvalKeys(p.actions)) });
}

const refused = (run: () => unknown): ReviewRefusal => thrown(ReviewRefusal, run);

test('given a prepared proposal, when approved before expiry, then every record change and a receipt with revisions', () => {
  const { w, p } = givenPrepared();
  const d = approve(w, p, at(10));
  assert.is(d.outcome, 'committed');
  if (d.outcome !== 'committed') return;
  assert.equal(d.recordEvents.map((e) => e.type), ['meal.created', 'checkin.updated', 'meal.deleted']);
  assert.equal(d.changes.map((c) => [c.op, c.kind, c.revision_before, c.revision_after]), [['create', 'meal', null, 1], ['update', 'recovery_checkin', 1, 2], ['delete', 'meal', 1, 2]]);
  assert.equal(d.before.map((b) => (b.item as { name?: string; energy?: number } | null)?.name ?? (b.item as { energy?: number } | null)?.energy ?? null), [null, 3, 'Oats']);
});

test('given a prepared proposal, when approved at its expiry, then it expires and nothing is saved', () => {
  const { w, p } = givenPrepared();
  const d = approve(w, p, at(30));
  assert.equal(d, { outcome: 'expired', events: [{ type: 'proposal.expired', data: { command_id: p.command_id, expired_at: p.expires_at } }] });
});

test('given the check-in changed after preparation, when approved, then conflicted naming the action and nothing else', () => {
  const { w, p } = givenPrepared();
  change(w, [{ op: 'update', kind: 'checkin', item: checkin(1), base_revision: 1 }]);
  const d = approve(w, p, at(5));
  assert.is(d.outcome, 'conflicted');
  if (d.outcome !== 'conflicted') return;
  assert.equal(d.conflict, { action_index: 1, kind: 'checkin', id: CHECKIN, reason: 'changed' });
  assert.equal(d.events.map((e) => e.type), ['proposal.conflicted']);
});

test('given the meal was deleted after preparation, when approved, then conflicted: removed', () => {
  const { w, p } = givenPrepared();
  change(w, [{ op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 }]);
  const d = approve(w, p, at(5));
  assert.equal(d.outcome === 'conflicted' && d.conflict, { action_index: 2, kind: 'meal', id: MEAL, reason: 'removed' });
});

test('reject: rejected before expiry, expired after it, refused once decided', () => {
  const { w, p } = givenPrepared();
  const entry = w.proposals.get(p.command_id)!;
  assert.equal(decideReject(entry, at(1)).map((e) => e.type), ['proposal.rejected']);
  assert.equal(decideReject(entry, at(31)).map((e) => e.type), ['proposal.expired']);
  assert.is(refused(() => decideReject({ ...entry, status: 'committed' }, at(1))).reason, 'not_pending');
  assert.is(refused(() => approve({ ...w, proposals: new ProposalState([[p.command_id, { ...entry, status: 'rejected' }]]) }, p, at(1))).reason, 'not_pending');
});

/** Given the proposal committed at +10 minutes. */
function givenCommitted() {
  const { w, p } = givenPrepared();
  const d = approve(w, p, at(10));
  if (d.outcome !== 'committed') throw new Error('expected a commit');
  apply(w, [...d.recordEvents, { type: 'proposal.committed', data: { command_id: p.command_id, committed_at: at(10).toISOString(), changes: d.changes, affected: d.affected, undo: null } }]);
  const undo = (now: Date, before = d.before) => decideUndo({ now, record: w.record, entry: w.proposals.get(p.command_id)!, committedAt: at(10).toISOString(), affected: d.affected, dependencies: p.dependencies, before });
  return { w, p, d, undo };
}

test('given a committed batch, when undone within 30 days, then new events bring every item back: deleted restored, changed set back, created removed', () => {
  const { undo, d } = givenCommitted();
  const u = undo(at(10 + 29 * DAYS));
  assert.equal(u.recordEvents.map((e) => e.type), ['meal.created', 'checkin.updated', 'meal.deleted']);
  assert.equal((u.recordEvents[0]!.data as unknown as { item: { name: string } }).item.name, 'Oats');
  assert.equal((u.recordEvents[1]!.data as { item: { energy: number } }).item.energy, 3);
  const created = d.affected.find((x) => x.change === 'created')!;
  assert.equal(u.recordEvents[2]!.data, { id: created.id, revision: 2 });
});

test('given a committed batch, when a record it changed changed again, then the whole undo is prevented, naming it', () => {
  const { w, undo } = givenCommitted();
  change(w, [{ op: 'update', kind: 'checkin', item: checkin(2), base_revision: 2 }]);
  const refusal = refused(() => undo(at(60)));
  assert.is(refusal.reason, 'undo_blocked');
  assert.equal(refusal.item, { kind: 'checkin', id: CHECKIN, how: 'changed' });
  assert.match(refusal.message, `the checkin ${CHECKIN} changed after this batch was saved, so nothing was undone`);
});

test('given a committed batch, when an item it created was removed since, then the undo says it was removed', () => {
  const { w, d, undo } = givenCommitted();
  const created = d.affected.find((x) => x.change === 'created')!;
  change(w, [{ op: 'delete', kind: 'meal', id: created.id, base_revision: 1 }]);
  const refusal = refused(() => undo(at(60)));
  assert.is(refusal.reason, 'undo_blocked');
  assert.match(refusal.message, `the meal ${created.id} was removed after this batch was saved`);
});

/**
 * Given an exercise, and a committed proposal whose new workout uses it: the exercise is the
 * batch's dependency, asserted at revision 1, not changed by it.
 */
function givenCommittedWorkout() {
  const w: World = { record: initialRecordState(ATHLETE), log: [], proposals: new ProposalState() };
  change(w, [{ op: 'create', kind: 'exercise', item: { id: SQUAT, name: 'Back Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } }]);
  const set = { position: 0, set_number: 1, set_type: 'normal', parent_position: null, weight_kg: 100, reps: 5, rpe: null, target_rpe: null, duration_seconds: null, distance_metres: null, incline_percent: null, completed: true };
  const body = {
    version: 'agent-access-write.v1',
    command_id: uid(0x501),
    actions: [{ op: 'create', kind: 'completed_workout', record: { title: 'Legs', started_at: null, ended_at: '2026-06-01T10:00:00.000Z', notes: null, exercises: [{ exercise_id: SQUAT, exercise_order: 0, superset_id: null, notes: null, sets: [set] }] } }],
  } as unknown as WriteProposalBody;
  let n = 0;
  const decision = decidePrepare(
    { body, caller: { grantId: uid(0x90), clientId: 'c', clientName: 'Coach', scopes: ['training'], writePermissions: WRITE_PERMISSIONS }, now: PREPARED_AT, timezone: 'Europe/London', newId: () => uid(0x2000 + ++n) },
    w.record,
    w.proposals,
    itemImages(w.log, itemKeysOf(body)),
  );
  if (decision.outcome !== 'prepared') throw new Error('expected a proposal');
  const p = decision.proposal;
  assert.equal(p.dependencies, [{ kind: 'exercise', id: SQUAT, revision: 1 }], 'the existing exercise is a dependency');
  apply(w, [{ type: 'proposal.prepared', data: { ...p, changes: p.changes.map(({ summary: _s, ...c }) => c), actions: undefined } }]);
  const d = approve(w, p, at(10));
  if (d.outcome !== 'committed') throw new Error('expected a commit');
  apply(w, [...d.recordEvents, { type: 'proposal.committed', data: { command_id: p.command_id, committed_at: at(10).toISOString(), changes: d.changes, affected: d.affected, undo: null } }]);
  const workoutId = d.affected[0]!.id;
  const undo = (now: Date) => decideUndo({ now, record: w.record, entry: w.proposals.get(p.command_id)!, committedAt: at(10).toISOString(), affected: d.affected, dependencies: p.dependencies, before: d.before });
  return { w, workoutId, undo };
}

test('given a committed batch whose new workout uses an exercise, when undone with the exercise as it was, then the workout is removed', () => {
  const { workoutId, undo } = givenCommittedWorkout();
  const u = undo(at(60));
  assert.equal(u.recordEvents.map((e) => [e.type, (e.data as { id?: string }).id]), [['workout.deleted', workoutId]]);
});

test('given a committed batch whose new workout uses an exercise, when the exercise was renamed since, then the whole undo is prevented, naming the exercise', () => {
  const { w, undo } = givenCommittedWorkout();
  change(w, [{ op: 'update', kind: 'exercise', item: { id: SQUAT, name: 'High-bar Squat', muscle_group: 'legs', tracking_type: 'weight_reps' }, base_revision: 1 }]);
  const refusal = refused(() => {
    const events = undo(at(60)).recordEvents.map((e) => e.type);
    assert.unreachable(`the undo went ahead with the exercise renamed since the save: ${events.join(', ')}`);
  });
  assert.is(refusal.reason, 'undo_blocked');
  assert.equal(refusal.item, { kind: 'exercise', id: SQUAT, how: 'changed' });
  assert.is(refusal.message, `the exercise ${SQUAT} changed after this batch was saved, so nothing was undone`);
});

test('undo: refused after 30 days, without its earlier values, and when not committed', () => {
  const { undo, w, p } = givenCommitted();
  assert.is(refused(() => undo(at(10 + 30 * DAYS))).reason, 'undo_window_passed');
  assert.is(refused(() => undo(at(60), null as never)).reason, 'recovery_data_removed');
  const entry = w.proposals.get(p.command_id)!;
  assert.is(refused(() => decideUndo({ now: at(60), record: w.record, entry: { ...entry, status: 'undone' }, committedAt: at(10).toISOString(), affected: [], dependencies: [], before: [] })).reason, 'not_committed');
});

test.run();
