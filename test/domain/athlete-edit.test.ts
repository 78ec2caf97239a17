// The athlete's own edits, pure: given the record stream, when the athlete saves an edit (a batch
// of write actions) or undoes their last one at a time, then these events or this refusal. Both
// are decided on the record stream the given events make (test/support/decider-spec.ts,
// deciders.ts): item bodies and the last edit are read back from it, as the service reads them.
// Every decision, refused or not, must leave the state it was given as it was (the kit checks).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { EditEvent, EditSaved, RecordEvent, RecordStreamEvent } from '../../contracts/events.ts';
import type { WriteAction } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import type { EditCommand } from '../../services/domain/athlete-edit.ts';
import { decideImport } from '../../services/domain/import.ts';
import { live } from '../../services/domain/record.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import {
  approveDecider,
  commitEvents,
  committedDecision,
  created,
  createdWith,
  deleted,
  editDecider,
  editUndoDecider,
  lastEditOf,
  prepareDecider,
  preparedEvent,
  preparedProposal,
  updated,
} from '../support/deciders.ts';
import { workoutSet } from '../support/sets.ts';
import { validBody } from '../support/writes.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa7);
const MEAL = uid(3);
const CHECKIN = uid(4);
const SQUAT = uid(5);
const WORKOUT = uid(6);
const EDIT = uid(0xe1);
const LATER_EDIT = uid(0xe2);
/** When the given events occurred; edits are saved an hour later. */
const GIVEN_AT = new Date('2026-06-01T11:00:00.000Z');
const NOW = new Date('2026-06-01T12:00:00.000Z');
const after = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const DAYS = 24 * 60;
const TZ = 'Europe/London';

const stream = { athleteId: ATHLETE, occurredAt: GIVEN_AT.toISOString() };
const edit = DeciderSpecification.for(editDecider(stream));
const undo = DeciderSpecification.for(editUndoDecider(stream));
const prepare = DeciderSpecification.for(prepareDecider(stream));
const approve = DeciderSpecification.for(approveDecider(stream));

const oats = { eaten_at: '2026-06-01T07:00:00.000Z', name: 'Oats', calories_kcal: 350, protein_g: null, carbohydrate_g: null, fat_g: null };
const checkin = { date: '2026-05-31', sleep_quality: 3, energy: 3, soreness: 3, stress: 3 };
const squat = { id: SQUAT, name: 'Back Squat', muscle_group: 'legs' as const, tracking_type: 'weight_reps' as const };
const legDay = {
  id: WORKOUT,
  title: 'Leg day',
  started_at: '2026-05-31T17:00:00.000Z',
  ended_at: '2026-05-31T18:00:00.000Z',
  notes: null,
  source: null,
  exercises: [{ exercise_id: SQUAT, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 100, reps: 5 })] }],
};
const feedback = { id: WORKOUT, difficulty: 'as_expected' as const, next_time_intent: 'keep' as const, recorded_at: '2026-05-31T18:05:00.000Z' };

/** An edit of `actions` saved at `now` (NOW unless told), in `timezone`; its new items' ids count from `firstId`. */
function editing(actions: WriteAction[], options: { editId?: string; now?: Date; timezone?: string; firstId?: number } = {}): EditCommand {
  let n = 0;
  return {
    editId: options.editId ?? EDIT,
    actions,
    now: options.now ?? NOW,
    timezone: options.timezone ?? TZ,
    newId: () => uid((options.firstId ?? 0x1000) + ++n),
  };
}

const savedOf = (events: ReadonlyArray<RecordEvent | EditEvent>): EditSaved['data'] => {
  const last = events.at(-1)!;
  if (last.type !== 'edit.saved') throw new Error(`the edit ends with ${last.type}, not edit.saved`);
  return last.data;
};
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);

test('given an empty record, when an edit creates a custom exercise by ref and a workout using it, then both are created and edit.saved keeps them as new', () => {
  const workout = {
    title: 'Sled work',
    started_at: '2026-06-01T09:00:00.000Z',
    ended_at: '2026-06-01T09:30:00.000Z',
    notes: null,
    exercises: [
      { exercise_id: { ref: 'sled' }, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 80, distance_metres: 20 })] },
    ],
  };
  const sled = { name: 'Sled push', muscle_group: null, tracking_type: 'weight_distance' as const };
  const [exerciseId, workoutId] = [uid(0x1001), uid(0x1002)];
  edit
    .given()
    .when(
      editing([
        { op: 'create', kind: 'exercise', ref: 'sled', record: sled },
        { op: 'create', kind: 'completed_workout', record: workout },
      ]),
    )
    .then([
      created('exercise', { id: exerciseId, ...sled }),
      created('workout', { id: workoutId, ...workout, source: null, exercises: [{ ...workout.exercises[0]!, exercise_id: exerciseId }] }),
      {
        type: 'edit.saved',
        data: {
          edit_id: EDIT,
          saved_at: NOW.toISOString(),
          affected: [
            { kind: 'exercise', id: exerciseId, change: 'created', revision_before: null, revision_after: 1 },
            { kind: 'workout', id: workoutId, change: 'created', revision_before: null, revision_after: 1 },
          ],
          before: [
            { kind: 'exercise', id: exerciseId, item: null, created_at: null },
            { kind: 'workout', id: workoutId, item: null, created_at: null },
          ],
        },
      },
    ]);
});

test('given a meal at revision 1, when an edit updates it at base revision 1, then it is at revision 2 and edit.saved keeps its earlier body and creation time', () => {
  edit
    .given(created('meal', { id: MEAL, ...oats }))
    .when(editing([{ op: 'update', kind: 'meal', id: MEAL, base_revision: 1, record: { ...oats, name: 'Porridge' } }]))
    .then([
      updated('meal', { id: MEAL, ...oats, name: 'Porridge' }, 2),
      {
        type: 'edit.saved',
        data: {
          edit_id: EDIT,
          saved_at: NOW.toISOString(),
          affected: [{ kind: 'meal', id: MEAL, change: 'updated', revision_before: 1, revision_after: 2 }],
          before: [{ kind: 'meal', id: MEAL, item: { id: MEAL, ...oats }, created_at: GIVEN_AT.toISOString() }],
        },
      },
    ]);
});

test('given a meal changed since the form was read, when an edit updates it at the older revision, then the whole edit is refused: stale_revision at actions.N.base_revision', () => {
  const given = [created('meal', { id: MEAL, ...oats }), updated('meal', { id: MEAL, ...oats, name: 'Toast' }, 2)];
  const refusal = edit
    .given(...given)
    .when(
      editing([
        { op: 'create', kind: 'meal', record: { ...oats, name: 'Eggs' } },
        { op: 'update', kind: 'meal', id: MEAL, base_revision: 1, record: { ...oats, name: 'Porridge' } },
      ]),
    )
    .thenRefuses('stale_revision', { at: 'actions.1.base_revision' });
  assert.is(refusal.actionIndex, 1);
  // The kit checks the state decided on is as it was; the record the given events make is too.
  const state = edit.given(...given).state();
  assert.is(live(state.fold.state, 'meal', MEAL)?.revision, 2);
  assert.is(state.fold.lastEdit, null, 'no edit was saved');
  // A delete at the older revision, alike.
  edit
    .given(...given)
    .when(editing([{ op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 }]))
    .thenRefuses('stale_revision', { at: 'actions.0.base_revision' });
});

test('given a workout with feedback, when an edit removes the workout, then its feedback goes with it; when that edit is undone, then both come back as they were', () => {
  const given = [created('exercise', squat), created('workout', legDay), created('feedback', feedback)];
  const saved = edit
    .given(...given)
    .when(editing([{ op: 'delete', kind: 'completed_workout', id: WORKOUT, base_revision: 1 }]))
    .then((events) => {
      assert.equal(events.slice(0, 2), [deleted('workout', WORKOUT, 2), deleted('feedback', WORKOUT, 2)]);
      assert.equal(savedOf(events).before, [
        { kind: 'workout', id: WORKOUT, item: legDay, created_at: GIVEN_AT.toISOString() },
        { kind: 'feedback', id: WORKOUT, item: feedback, created_at: GIVEN_AT.toISOString() },
      ]);
    });
  const history = [...given, ...saved];
  const undone = undo
    .given(...history)
    .when({ edit_id: EDIT, now: after(60) })
    .then([
      createdWith('workout', legDay, 3, { created_at: GIVEN_AT.toISOString() }),
      createdWith('feedback', feedback, 3, { created_at: GIVEN_AT.toISOString() }),
      {
        type: 'edit.undone',
        data: {
          edit_id: EDIT,
          undone_at: after(60).toISOString(),
          affected: [
            { kind: 'workout', id: WORKOUT, change: 'created', revision_before: 2, revision_after: 3 },
            { kind: 'feedback', id: WORKOUT, change: 'created', revision_before: 2, revision_after: 3 },
          ],
        },
      },
    ]);
  const restored = undo.given(...history, ...undone).state();
  assert.is(live(restored.fold.state, 'workout', WORKOUT)?.revision, 3);
  assert.is(live(restored.fold.state, 'feedback', WORKOUT)?.revision, 3);
  assert.is(restored.fold.lastEdit, null, 'an undone edit is no longer the last edit');
});

test('given a check-in for a day, when an edit adds another check-in for that day, then refused naming its date; moving the check-in to a free day is not', () => {
  const given = [created('checkin', { id: CHECKIN, ...checkin })];
  edit
    .given(...given)
    .when(editing([{ op: 'create', kind: 'recovery_checkin', record: { ...checkin, energy: 5 } }]))
    .thenRefuses('invalid_action', { at: 'actions.0.record.date' });
  edit
    .given(...given)
    .when(editing([{ op: 'update', kind: 'recovery_checkin', id: CHECKIN, base_revision: 1, record: { ...checkin, date: '2026-05-30' } }]))
    .then((events) => assert.equal(types(events), ['checkin.updated', 'edit.saved']));
});

test("dates: a check-in after today in the athlete's timezone is refused; a routine date beyond the 90-day horizon, or before today, is refused", () => {
  // 23:30 UTC on 1 June: already 2 June in Auckland, still 1 June in Los Angeles.
  const late = new Date('2026-06-01T23:30:00.000Z');
  const checkinOn = (date: string): WriteAction[] => [{ op: 'create', kind: 'recovery_checkin', record: { ...checkin, date } }];
  edit
    .given()
    .when(editing(checkinOn('2026-06-02'), { now: late, timezone: 'Pacific/Auckland' }))
    .then((events) => assert.equal(types(events), ['checkin.created', 'edit.saved']));
  edit
    .given()
    .when(editing(checkinOn('2026-06-02'), { now: late, timezone: 'America/Los_Angeles' }))
    .thenRefuses('invalid_action', { at: 'actions.0.record.date' });
  edit
    .given()
    .when(editing(checkinOn('2026-06-03'), { now: late, timezone: 'Pacific/Auckland' }))
    .thenRefuses('invalid_action', { at: 'actions.0.record.date' });

  // Today is 1 June in London: 30 August is 90 days ahead, 31 August one more.
  const routine = (scheduled_dates: string[]): WriteAction[] => [
    {
      op: 'create',
      kind: 'saved_routine',
      record: {
        title: 'Legs',
        exercises: [{ position: 0, exercise_id: SQUAT, sets: 3, reps: '5', target_rpe: null, rest_seconds: 120 }],
        scheduled_dates,
      },
    },
  ];
  assert.is(WRITE_POLICY.schedulingHorizonDays, 90);
  edit
    .given(created('exercise', squat))
    .when(editing(routine(['2026-06-01', '2026-08-30'])))
    .then((events) => assert.equal(types(events), ['routine.created', 'edit.saved']));
  edit
    .given(created('exercise', squat))
    .when(editing(routine(['2026-06-01', '2026-08-31'])))
    .thenRefuses('beyond_horizon', { at: 'actions.0.record.scheduled_dates.1' });
  edit
    .given(created('exercise', squat))
    .when(editing(routine(['2026-05-31'])))
    .thenRefuses('beyond_horizon', { at: 'actions.0.record.scheduled_dates.0' });
});

/** Given a meal the athlete created by an edit (EDIT), then changed by a later edit (LATER_EDIT) at +1 minute. */
function givenTwoEdits(): RecordStreamEvent[] {
  const first = edit
    .given()
    .when(editing([{ op: 'create', kind: 'meal', record: oats }], { firstId: 2 }))
    .then(() => {});
  const second = edit
    .given(...first)
    .when(editing([{ op: 'update', kind: 'meal', id: MEAL, base_revision: 1, record: { ...oats, name: 'Porridge' } }], { editId: LATER_EDIT, now: after(1) }))
    .then(() => {});
  return [...first, ...second];
}

test('undo: only the last edit, named by its id; an edit undone is not undone again, and the edit before it does not become undoable', () => {
  const history = givenTwoEdits();
  assert.is(lastEditOf(undo.given(...history).state())?.edit_id, LATER_EDIT);
  undo
    .given(...history)
    .when({ edit_id: EDIT, now: after(2) })
    .thenRefuses('not_committed');
  undo
    .given(...history)
    .when({ edit_id: uid(0xee), now: after(2) })
    .thenRefuses('not_committed');
  const undone = undo
    .given(...history)
    .when({ edit_id: LATER_EDIT, now: after(2) })
    .then([
      updated('meal', { id: MEAL, ...oats }, 3),
      {
        type: 'edit.undone',
        data: {
          edit_id: LATER_EDIT,
          undone_at: after(2).toISOString(),
          affected: [{ kind: 'meal', id: MEAL, change: 'updated', revision_before: 2, revision_after: 3 }],
        },
      },
    ]);
  // The undo of an undo, and the earlier edit now that the later one is undone: both refused.
  undo
    .given(...history, ...undone)
    .when({ edit_id: LATER_EDIT, now: after(3) })
    .thenRefuses('not_committed');
  undo
    .given(...history, ...undone)
    .when({ edit_id: EDIT, now: after(3) })
    .thenRefuses('not_committed');
  // A new edit after the undo is the last edit again.
  const next = edit
    .given(...history, ...undone)
    .when(editing([{ op: 'delete', kind: 'meal', id: MEAL, base_revision: 3 }], { editId: uid(0xe3), now: after(4) }))
    .then(() => {});
  undo
    .given(...history, ...undone, ...next)
    .when({ edit_id: uid(0xe3), now: after(5) })
    .then((events) => assert.equal(types(events), ['meal.created', 'edit.undone']));
});

test('undo: within the undo window (30 days after the edit was saved), not at its end or after', () => {
  const history = givenTwoEdits();
  const savedAt = after(1).getTime();
  assert.is(WRITE_POLICY.undoWindowDays, 30);
  undo
    .given(...history)
    .when({ edit_id: LATER_EDIT, now: new Date(savedAt + 30 * DAYS * 60_000 - 1) })
    .then((events) => assert.equal(types(events), ['meal.updated', 'edit.undone']));
  for (const late of [30 * DAYS * 60_000, 31 * DAYS * 60_000]) {
    undo
      .given(...history)
      .when({ edit_id: LATER_EDIT, now: new Date(savedAt + late) })
      .thenRefuses('undo_window_passed');
  }
});

test('undo: blocked, naming the item, when a batch the athlete approved changed an item of the edit since', () => {
  const history = givenTwoEdits();
  const command = {
    body: validBody([{ op: 'update', kind: 'meal', id: MEAL, base_revision: 2, record: { ...oats, name: 'Granola' } }], uid(0x500)),
    caller: { grantId: uid(0x90), clientId: 'c', clientName: 'Coach', scopes: ['nutrition' as const], writePermissions: WRITE_PERMISSIONS },
    now: after(10),
    timezone: TZ,
    newId: () => uid(0x2000),
  };
  const p = preparedProposal(
    prepare
      .given(...history)
      .when(command)
      .then(() => {}),
  );
  const prepared = [...history, preparedEvent(p)];
  const d = committedDecision(
    approve
      .given(...prepared)
      .when({ command_id: p.command_id, now: after(11), actions: p.actions })
      .then(() => {}),
  );
  const refusal = undo
    .given(...prepared, ...commitEvents(p.command_id, after(11), d))
    .when({ edit_id: LATER_EDIT, now: after(12) })
    .thenRefuses('undo_blocked');
  assert.equal(refusal.item, { kind: 'meal', id: MEAL, how: 'changed' });
  assert.is(refusal.message, `the meal ${MEAL} changed after this change was saved, so nothing was undone`);
});

test('undo: blocked, naming the exercise, when a later import used the custom exercise the edit created', () => {
  const sled = edit
    .given()
    .when(editing([{ op: 'create', kind: 'exercise', record: { name: 'Sled push', muscle_group: null, tracking_type: 'weight_reps' } }]))
    .then(() => {});
  const exerciseId = savedOf(sled).affected[0]!.id;
  const imported = decideImport(
    {
      app: 'strong',
      file_name: 'strong.csv',
      file_sha256: 'a'.repeat(64),
      workouts: [
        {
          source_ref: '2026-06-01 13:00:00 Push',
          title: 'Push',
          started_at: '2026-06-01T12:00:00.000Z',
          ended_at: '2026-06-01T12:30:00.000Z',
          notes: null,
          line: 2,
          exercises: [
            {
              title: 'Sled Push',
              superset_key: null,
              notes: null,
              sets: [{ position: 0, set_type: 'normal', weight_kg: 100, reps: 5, distance_metres: null, duration_seconds: null, rpe: null, line: 2 }],
            },
          ],
        },
      ],
    },
    undo.given(...sled).state().fold.state,
  );
  assert.equal(types(imported.events), ['workout.created', 'import.completed'], 'the import used the exercise the edit created');
  const refusal = undo
    .given(...sled, ...imported.events)
    .when({ edit_id: EDIT, now: after(60) })
    .thenRefuses('undo_blocked');
  assert.equal(refusal.item, { kind: 'exercise', id: exerciseId, how: 'in_use' });
  // Without the import, the same undo removes the exercise.
  undo
    .given(...sled)
    .when({ edit_id: EDIT, now: after(60) })
    .then((events) => assert.equal(types(events), ['exercise.deleted', 'edit.undone']));
});

test("fitness preferences: an edit creates them with the athlete's id, updates them by it, and its undo removes what it created", () => {
  const preferences = { experience_level: 'intermediate' as const, training_days_per_week: 4, session_minutes: 60, focus: ['strength'] };
  const saved = edit
    .given()
    .when(editing([{ op: 'create', kind: 'fitness_preferences', record: preferences }]))
    .then((events) => {
      assert.equal(events[0], created('fitness_preferences', { id: ATHLETE, ...preferences }));
      assert.equal(savedOf(events).affected, [{ kind: 'fitness_preferences', id: ATHLETE, change: 'created', revision_before: null, revision_after: 1 }]);
    });
  edit
    .given(...saved)
    .when(
      editing([{ op: 'update', kind: 'fitness_preferences', id: ATHLETE, base_revision: 1, record: { ...preferences, session_minutes: 45 } }], {
        editId: LATER_EDIT,
      }),
    )
    .then((events) => assert.equal(events[0], updated('fitness_preferences', { id: ATHLETE, ...preferences, session_minutes: 45 }, 2)));
  undo
    .given(...saved)
    .when({ edit_id: EDIT, now: after(1) })
    .then((events) => assert.equal(events[0], deleted('fitness_preferences', ATHLETE, 2)));
});

test.run();
