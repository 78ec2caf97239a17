// Undo and what a batch relied on, through the proposal service on a real embedded store: a
// committed batch's new workout uses an exercise the batch did not change (a dependency). Undone
// while the exercise is as it was, the workout goes; once the athlete has renamed the exercise,
// the undo is refused as a whole (undo_blocked, the exercise named) and nothing is restored: the
// workout stays, the record and the proposal read exactly as before the attempt.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReviewRefusal } from '../../services/domain/proposal-review.ts';
import { openTestApp, recordModels, registerAthlete } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';
import { agentCaller, seedRecord, validBody } from '../support/writes.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

test('renaming an exercise that a committed batch’s new workout used blocks the whole undo; before the rename the undo goes ahead', async () => {
  const t = await openTestApp({ now: NOW });
  try {
    const athleteId = await registerAthlete(t.app);
    const seeded = await seedRecord(t.app, athleteId);
    const caller = await agentCaller(t.app, athleteId);
    const legDay = (title: string) =>
      validBody([
        {
          op: 'create',
          kind: 'completed_workout',
          record: {
            title,
            started_at: hoursAgo(3),
            ended_at: hoursAgo(2),
            notes: null,
            exercises: [
              { exercise_id: seeded.exerciseId, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 110, reps: 3 })] },
            ],
          },
        },
      ]);

    // Two batches, each a new workout using the seeded exercise (at revision 1), both saved.
    const first = legDay('Heavy triples');
    const second = legDay('More triples');
    for (const body of [first, second]) {
      const prepared = await t.app.proposals.prepare(caller, body);
      assert.equal(prepared.changes.length, 1);
      t.clock.advance(60_000);
      assert.is((await t.app.proposals.approve(athleteId, body.command_id)).outcome, 'committed');
    }
    const workoutOf = async (commandId: string) => (await t.app.proposals.get(caller, commandId))!.receipt!.changes[0]!.id;
    const secondWorkout = await workoutOf(second.command_id);

    // With the exercise as the batches left it, an undo goes ahead.
    const firstWorkout = await workoutOf(first.command_id);
    await t.app.proposals.undo(athleteId, first.command_id);
    assert.is((await t.app.proposals.get(caller, first.command_id))!.status, 'undone');
    assert.is(await t.app.proposals.record(athleteId, 'completed_workout', { id: firstWorkout }), null, 'the first workout was removed');

    // The athlete renames the exercise, as the web app would.
    await t.app.records.change(
      athleteId,
      [
        {
          op: 'update',
          kind: 'exercise',
          item: { id: seeded.exerciseId, name: 'Low-bar Squat', muscle_group: 'legs', tracking_type: 'weight_reps' },
          base_revision: 1,
        },
      ],
      { type: 'athlete', id: athleteId },
    );
    const before = await recordModels(t.app);
    const workoutBefore = await t.app.proposals.record(athleteId, 'completed_workout', { id: secondWorkout });
    assert.ok(workoutBefore, 'the second workout is in the record');

    const error = await t.app.proposals.undo(athleteId, second.command_id).then(
      () => null,
      (e: unknown) => e,
    );
    if (error === null) {
      const gone = (await t.app.proposals.record(athleteId, 'completed_workout', { id: secondWorkout })) === null;
      assert.unreachable(`the undo went ahead though the exercise it relied on was renamed since the save${gone ? ': the workout was removed' : ''}`);
    }
    assert.instance(error, ReviewRefusal, String(error));
    const refusal = error as ReviewRefusal;
    assert.is(refusal.reason, 'undo_blocked');
    assert.equal(refusal.item, { kind: 'exercise', id: seeded.exerciseId, how: 'changed' });
    assert.is(refusal.message, `the exercise ${seeded.exerciseId} changed after this batch was saved, so nothing was undone`);

    // Nothing restored, nothing removed: the workout, the record and the proposal are as they were.
    assert.equal(
      await t.app.proposals.record(athleteId, 'completed_workout', { id: secondWorkout }),
      workoutBefore,
      'the new workout is still there, unchanged',
    );
    assert.equal(await recordModels(t.app), before, 'the record reads as before the attempt');
    const proposal = (await t.app.proposals.get(caller, second.command_id))!;
    assert.is(proposal.status, 'committed');
    assert.is(proposal.undone_at, null);
  } finally {
    await t.close();
  }
});

test.run();
