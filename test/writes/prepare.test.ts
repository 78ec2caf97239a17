// prepare_write_proposal over REST, from a real OAuth connection: the batch of the issue (a new
// exercise and a workout using it by ref, an updated check-in, a deleted meal) is prepared and
// read back while the record stays exactly as it was.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operations } from '../../contracts/operations.ts';
import { writeRecordSchemas } from '../../contracts/write.ts';
import { recordModels } from '../support/app.ts';
import { registerPro } from '../support/connect.ts';
import { workoutSet } from '../support/sets.ts';
import { startServer } from '../support/server.ts';
import { proposalBody, seedRecord, writer } from '../support/writes.ts';

test('the batch of the issue is prepared, read back prepared with its approval link, and the record reads exactly as before', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const seeded = await seedRecord(s.app, athleteId);
    const { api } = await writer(s, athleteId, ['training', 'recovery', 'nutrition'], ['training:write', 'recovery:write', 'nutrition:delete']);

    const context = await api.context();
    assert.is(context.status, 200);
    assert.ok(operations.get_write_context.response.safeParse(context.body).success, JSON.stringify(context.body));
    assert.equal(context.body.data.permissions, ['training:write', 'recovery:write', 'nutrition:delete']);
    assert.match(context.body.data.permissions_url, `${s.base}/connections/`);

    const read = await api.record('recovery_checkin', seeded.checkinId);
    assert.is(read.status, 200);
    assert.ok(operations.get_write_record.response.safeParse(read.body).success, JSON.stringify(read.body));
    const checkin = read.body.data.item;
    assert.equal(checkin.record, { date: seeded.checkinDate, sleep_quality: 3, energy: 3, soreness: 4, stress: 2 });
    assert.is(checkin.revision, 1);
    const meal = (await api.record('meal', seeded.mealId)).body.data.item;

    const before = await recordModels(s.app);
    const endedAt = new Date(Date.now() - 3_600_000).toISOString();
    const body = proposalBody([
      { op: 'create', kind: 'exercise', ref: 'landmine', record: { name: 'Landmine Press', muscle_group: 'shoulders', tracking_type: 'weight_reps' } },
      {
        op: 'create',
        kind: 'completed_workout',
        record: {
          title: 'Push day',
          started_at: new Date(Date.now() - 2 * 3_600_000).toISOString(),
          ended_at: endedAt,
          notes: null,
          exercises: [
            { exercise_id: { ref: 'landmine' }, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 30, reps: 10 })] },
            { exercise_id: seeded.exerciseId, exercise_order: 1, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 80, reps: 8 })] },
          ],
        },
      },
      { op: 'update', kind: 'recovery_checkin', id: seeded.checkinId, base_revision: checkin.revision, record: { ...checkin.record, energy: 4 } },
      { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: meal.revision },
    ]);
    const prepared = await api.prepare(body);
    assert.is(prepared.status, 201, JSON.stringify(prepared.body));
    assert.is(prepared.headers.get('cache-control'), 'private, no-store');
    assert.ok(operations.prepare_write_proposal.response.safeParse(prepared.body).success, JSON.stringify(prepared.body));
    const proposal = prepared.body.data.proposal;
    assert.is(proposal.status, 'prepared');
    assert.is(proposal.command_id, body.command_id);
    assert.is(proposal.approval_url, `${s.base}/proposals/${body.command_id}`);
    assert.is(Date.parse(proposal.expires_at) - Date.parse(proposal.prepared_at), 30 * 60_000);
    assert.equal(
      proposal.changes.map((c: { op: string; kind: string; area: string }) => [c.op, c.kind, c.area]),
      [
        ['create', 'exercise', 'training'],
        ['create', 'completed_workout', 'training'],
        ['update', 'recovery_checkin', 'recovery'],
        ['delete', 'meal', 'nutrition'],
      ],
    );
    // Summaries are made when read, in the athlete's words and zone (Europe/London): days in words, check-in values of 5.
    const day = (instant: string) =>
      new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'Europe/London' }).format(
        new Date(instant),
      );
    const at = (instant: string) =>
      new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/London' }).format(new Date(instant));
    assert.is(proposal.changes[0].summary, 'Add an exercise “Landmine Press”');
    assert.is(
      proposal.changes[1].summary,
      `Add a workout “Push day” of ${day((body.actions[1] as { record: { started_at: string } }).record.started_at)}: 2 exercises, 2 sets`,
    );
    assert.is(proposal.changes[2].summary, `Change the recovery check-in of ${day(`${seeded.checkinDate}T12:00:00Z`)}: energy 3 of 5 → 4 of 5`);
    assert.is(proposal.changes[3].summary, `Remove the meal “Oats” of ${at(meal.record.eaten_at)}`);
    // The workout uses the new exercise by the id the proposal gave it.
    const [exercise, workout] = proposal.actions;
    assert.is(workout.record.exercises[0].exercise_id, exercise.id);
    assert.is(workout.record.exercises[1].exercise_id, seeded.exerciseId);
    for (const a of proposal.actions)
      if (a.record) assert.ok(writeRecordSchemas[a.kind as keyof typeof writeRecordSchemas].safeParse(a.record).success, a.kind);

    const again = await api.proposal(body.command_id);
    assert.is(again.status, 200);
    assert.ok(operations.get_write_proposal.response.safeParse(again.body).success, JSON.stringify(again.body));
    assert.equal(again.body.data.proposal, proposal);

    assert.equal(await recordModels(s.app), before, 'preparing changed no read model of the record');
    // The proposal's details are sealed in the log: no value of the batch is stored in the clear.
    const [event] = (await s.app.events.readStream(`record-${athleteId}`)).filter((e) => e.type === 'proposal.prepared');
    assert.not.match(JSON.stringify(event!.data), 'Landmine');
    assert.is(event!.metadata.athlete_id, athleteId);
  } finally {
    await s.close();
  }
});

test("get_write_record: another athlete's id and an unknown id are the same 404; an area not granted is a 403 whether the item exists or not", async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const bob = await registerPro(s.app, 'bob@example.com');
    const theirs = await seedRecord(s.app, bob);
    const mine = await seedRecord(s.app, ada);
    const { api } = await writer(s, ada, ['training'], ['training:write']);
    const foreign = await api.record('completed_workout', theirs.workoutId);
    const unknown = await api.record('completed_workout', randomUUID());
    assert.is(foreign.status, 404);
    assert.is(unknown.status, 404);
    assert.is(foreign.body.error.code, 'not_found');
    assert.is(foreign.body.error.message.replace(theirs.workoutId, 'ID'), unknown.body.error.message.replace(/[0-9a-f-]{36}/, 'ID'));
    // Without the nutrition scope, Ada's meal and a made-up one are the same refusal: nothing tells them apart.
    const noScope = await api.record('meal', mine.mealId);
    assert.is(noScope.status, 403);
    assert.is(noScope.body.error.code, 'insufficient_scope');
    assert.match(noScope.headers.get('www-authenticate') ?? '', /scope="nutrition training"/);
    const madeUp = await api.record('meal', randomUUID());
    assert.is(madeUp.status, 403);
    assert.is(madeUp.body.error.message, noScope.body.error.message);
    assert.is((await api.record('completed_workout', mine.workoutId)).status, 200);
    const bad = await api.record('feedback', mine.workoutId);
    assert.is(bad.status, 400);
  } finally {
    await s.close();
  }
});

test('get_write_record finds what no read gives an id for: a check-in by its date, the fitness preferences by their kind', async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const mine = await seedRecord(s.app, ada);
    await s.app.records.change(
      ada,
      [
        {
          op: 'create',
          kind: 'fitness_preferences',
          item: { id: ada, experience_level: 'intermediate', training_days_per_week: 3, session_minutes: 60, focus: [] },
        },
      ],
      { type: 'athlete', id: ada },
    );
    const { api } = await writer(s, ada, ['training', 'recovery'], ['training:write', 'recovery:write']);
    const byDate = await api.recordBy({ kind: 'recovery_checkin', date: mine.checkinDate });
    assert.is(byDate.status, 200, JSON.stringify(byDate.body));
    const item = (byDate.body.data as { item: { id: string; revision: number; record: { date: string } } }).item;
    assert.equal([item.id, item.revision, item.record.date], [mine.checkinId, 1, mine.checkinDate]);
    const prefs = await api.recordBy({ kind: 'fitness_preferences' });
    assert.is(prefs.status, 200, JSON.stringify(prefs.body));
    assert.is((prefs.body.data as { item: { id: string } }).item.id, ada);

    const none = await api.recordBy({ kind: 'recovery_checkin', date: '2020-01-01' });
    assert.is(none.status, 404);
    assert.match((none.body.error as { message: string }).message, 'recovery checkin on 2020-01-01');
    for (const [query, field] of [
      [{ kind: 'recovery_checkin' }, 'id'],
      [{ kind: 'meal' }, 'id'],
      [{ kind: 'meal', date: '2020-01-01' }, 'date'],
      [{ kind: 'recovery_checkin', id: mine.checkinId, date: mine.checkinDate }, 'date'],
    ] as const) {
      const refused = await api.recordBy(query);
      assert.is(refused.status, 400, JSON.stringify(query));
      assert.is((refused.body.error as { field?: string }).field, field, JSON.stringify(refused.body));
    }
  } finally {
    await s.close();
  }
});

test.run();
