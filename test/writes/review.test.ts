// The athlete's moves on proposals, through the service with an injected clock: approve (all
// saved together, receipt), reject, expiry, conflicts, undo (all or nothing, within 30 days) and
// retention (a minimal receipt with no field values). Each ends with the read models equal to a
// replay of the log, so nothing is half-applied anywhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sealed as sealedSchema, streams, type Sealed } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { Caller } from '../../services/identity/caller.ts';
import { ReviewRefusal } from '../../services/domain/proposal-review.ts';
import { SealedDetails } from '../../services/writes/sealed.ts';
import { dumpReadModels, openTestApp, recordModels, registerAthlete, type TestApp } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';
import { agentCaller, validBody, seedRecord, type Seeded } from '../support/writes.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const DAY = 86_400_000;

interface World {
  t: TestApp;
  athleteId: string;
  seeded: Seeded;
  caller: Caller;
}

async function world(): Promise<World> {
  const t = await openTestApp({ now: NOW });
  const athleteId = await registerAthlete(t.app);
  const seeded = await seedRecord(t.app, athleteId);
  const caller = await agentCaller(t.app, athleteId);
  return { t, athleteId, seeded, caller };
}

async function assertEqualsReplay(w: World) {
  const live = await dumpReadModels(w.t.app);
  await w.t.app.runner.replay();
  assert.equal(await dumpReadModels(w.t.app), live, 'the read models equal a replay of the log');
}

const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

/**
 * The batch: a new exercise, a workout using it, a changed check-in, a deleted meal and
 * workout (at `deletedRevision`, 1 as seeded).
 */
function batch(s: Seeded, names = { exercise: 'Landmine Press', workout: 'Push' }, deletedRevision = 1) {
  return validBody([
    { op: 'create', kind: 'exercise', ref: 'lm', record: { name: names.exercise, muscle_group: 'shoulders', tracking_type: 'weight_reps' } },
    {
      op: 'create',
      kind: 'completed_workout',
      record: {
        title: names.workout,
        started_at: hoursAgo(3),
        ended_at: hoursAgo(2),
        notes: null,
        exercises: [{ exercise_id: { ref: 'lm' }, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 30, reps: 10 })] }],
      },
    },
    {
      op: 'update',
      kind: 'recovery_checkin',
      id: s.checkinId,
      base_revision: 1,
      record: { date: s.checkinDate, sleep_quality: 5, energy: 5, soreness: 5, stress: 1 },
    },
    { op: 'delete', kind: 'meal', id: s.mealId, base_revision: deletedRevision },
    { op: 'delete', kind: 'completed_workout', id: s.workoutId, base_revision: deletedRevision },
  ]);
}

/**
 * Field values to look for where they must not be: spaces and punctuation, which no base64 text
 * holds, and long enough (over 30 bytes) that no ciphertext decodes to one by chance.
 */
const MARKERS = {
  exercise: 'Landmine Press, marker: the new exercise!',
  workout: 'Push day, marker: the new workout!',
  meal: 'Oats & honey, marker: the deleted meal!',
  deleted: 'Leg day, marker: the deleted workout!',
};

/** The sealed objects in `value`, and the rest of it as JSON, each sealed object there as a placeholder. */
function splitSealed(value: unknown): { sealed: Sealed[]; clear: string } {
  const found: Sealed[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    if (sealedSchema.safeParse(v).success) {
      found.push(v as Sealed);
      return '<sealed>';
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return { sealed: found, clear: JSON.stringify(walk(value)) };
}

async function refusal(run: Promise<unknown>): Promise<ReviewRefusal> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, ReviewRefusal);
  return error as ReviewRefusal;
}

test('approve saves every change together with a receipt; undo brings the record back exactly, the deleted workout with its feedback', async () => {
  const w = await world();
  try {
    const before = await recordModels(w.t.app);
    const body = batch(w.seeded);
    await w.t.app.proposals.prepare(w.caller, body);
    w.t.clock.advance(10 * 60_000);
    assert.is((await w.t.app.proposals.approve(w.athleteId, body.command_id)).outcome, 'committed');
    const proposal = (await w.t.app.proposals.get(w.caller, body.command_id))!;
    assert.is(proposal.status, 'committed');
    assert.is(proposal.approval_url, null);
    const receipt = proposal.receipt!;
    assert.is(receipt.committed_at, '2026-06-01T12:10:00.000Z');
    assert.is(receipt.approved_by, 'athlete');
    assert.equal(
      receipt.changes.map((c) => [c.op, c.kind, c.revision_before, c.revision_after]),
      [
        ['create', 'exercise', null, 1],
        ['create', 'completed_workout', null, 1],
        ['update', 'recovery_checkin', 1, 2],
        ['delete', 'meal', 1, 2],
        ['delete', 'completed_workout', 1, 2],
      ],
    );
    const after = await recordModels(w.t.app);
    assert.is((after.meals as unknown[]).length, 0, 'the meal is gone');
    assert.is((after.feedback as unknown[]).length, 0, 'the deleted workout took its feedback');
    assert.is((after.exercises as unknown[]).length, 2);
    await assertEqualsReplay(w);

    w.t.clock.advance(29 * DAY);
    await w.t.app.proposals.undo(w.athleteId, body.command_id);
    assert.is((await w.t.app.proposals.get(w.caller, body.command_id))!.status, 'undone');
    const undone = await recordModels(w.t.app);
    // Revisions and update times move on (undo is new events); the bodies and creation times are as before.
    const bodies = (m: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(m, (k, v) => (k === 'revision' || k === 'updated_at' || k === 'computed_at' ? undefined : v)));
    assert.equal(bodies(undone), bodies(before), 'the record reads as before the batch');
    await assertEqualsReplay(w);
    assert.is((await refusal(w.t.app.proposals.undo(w.athleteId, body.command_id))).reason, 'not_committed');
  } finally {
    await w.t.close();
  }
});

test('reject saves nothing; a rejected proposal cannot be approved', async () => {
  const w = await world();
  try {
    const before = await recordModels(w.t.app);
    const body = batch(w.seeded);
    await w.t.app.proposals.prepare(w.caller, body);
    assert.is((await w.t.app.proposals.reject(w.athleteId, body.command_id)).outcome, 'rejected');
    assert.is((await w.t.app.proposals.get(w.caller, body.command_id))!.status, 'rejected');
    assert.is((await refusal(w.t.app.proposals.approve(w.athleteId, body.command_id))).reason, 'not_pending');
    assert.equal(await recordModels(w.t.app), before);
  } finally {
    await w.t.close();
  }
});

test('expiry: at 30 minutes the proposal reads expired at once, and an approval then saves nothing', async () => {
  const w = await world();
  try {
    const before = await recordModels(w.t.app);
    const body = batch(w.seeded);
    await w.t.app.proposals.prepare(w.caller, body);
    w.t.clock.advance(30 * 60_000 - 1);
    assert.is((await w.t.app.proposals.get(w.caller, body.command_id))!.status, 'prepared');
    w.t.clock.advance(1);
    const read = (await w.t.app.proposals.get(w.caller, body.command_id))!;
    assert.is(read.status, 'expired', 'expired by the clock, before any sweep');
    assert.is(read.approval_url, null);
    assert.is((await w.t.app.proposals.approve(w.athleteId, body.command_id)).outcome, 'expired');
    assert.equal(await recordModels(w.t.app), before);
    assert.is((await refusal(w.t.app.proposals.approve(w.athleteId, body.command_id))).reason, 'not_pending');
  } finally {
    await w.t.close();
  }
});

test('two proposals updating the same check-in, both approved: the second is conflicted, names the check-in, and saves nothing', async () => {
  const w = await world();
  try {
    const update = (energy: number) =>
      validBody([
        {
          op: 'create',
          kind: 'meal',
          record: { eaten_at: hoursAgo(1), name: `Snack ${energy}`, calories_kcal: 100, protein_g: null, carbohydrate_g: null, fat_g: null },
        },
        {
          op: 'update',
          kind: 'recovery_checkin',
          id: w.seeded.checkinId,
          base_revision: 1,
          record: { date: w.seeded.checkinDate, sleep_quality: 3, energy, soreness: 3, stress: 3 },
        },
      ]);
    const first = update(4);
    const second = update(5);
    await w.t.app.proposals.prepare(w.caller, first);
    await w.t.app.proposals.prepare(w.caller, second);
    assert.is((await w.t.app.proposals.approve(w.athleteId, first.command_id)).outcome, 'committed');
    const between = await recordModels(w.t.app);
    assert.is((await w.t.app.proposals.approve(w.athleteId, second.command_id)).outcome, 'conflicted');
    const read = (await w.t.app.proposals.get(w.caller, second.command_id))!;
    assert.is(read.status, 'conflicted');
    assert.equal(read.conflict, { action_index: 1, kind: 'recovery_checkin', id: w.seeded.checkinId, reason: 'changed' });
    assert.equal(await recordModels(w.t.app), between, 'nothing of the second batch was saved, not even its meal');
    await assertEqualsReplay(w);
  } finally {
    await w.t.close();
  }
});

test('a dependency changed since preparation (the exercise a new workout uses was renamed): conflicted', async () => {
  const w = await world();
  try {
    const body = validBody([
      {
        op: 'create',
        kind: 'completed_workout',
        record: {
          title: 'Legs',
          started_at: null,
          ended_at: hoursAgo(1),
          notes: null,
          exercises: [{ exercise_id: w.seeded.exerciseId, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0)] }],
        },
      },
    ]);
    await w.t.app.proposals.prepare(w.caller, body);
    await w.t.app.records.change(
      w.athleteId,
      [
        {
          op: 'update',
          kind: 'exercise',
          item: { id: w.seeded.exerciseId, name: 'Front Squat', muscle_group: 'legs', tracking_type: 'weight_reps' },
          base_revision: 1,
        },
      ],
      { type: 'athlete', id: w.athleteId },
    );
    assert.is((await w.t.app.proposals.approve(w.athleteId, body.command_id)).outcome, 'conflicted');
    assert.equal((await w.t.app.proposals.get(w.caller, body.command_id))!.conflict, {
      action_index: null,
      kind: 'exercise',
      id: w.seeded.exerciseId,
      reason: 'changed',
    });
  } finally {
    await w.t.close();
  }
});

test('undo is prevented as a whole when one affected record changed after the save; nothing is restored', async () => {
  const w = await world();
  try {
    const body = batch(w.seeded);
    await w.t.app.proposals.prepare(w.caller, body);
    await w.t.app.proposals.approve(w.athleteId, body.command_id);
    await w.t.app.records.change(
      w.athleteId,
      [
        {
          op: 'update',
          kind: 'checkin',
          item: { id: w.seeded.checkinId, date: w.seeded.checkinDate, sleep_quality: 1, energy: 1, soreness: 1, stress: 1 },
          base_revision: 2,
        },
      ],
      { type: 'athlete', id: w.athleteId },
    );
    const changed = await recordModels(w.t.app);
    const refused = await refusal(w.t.app.proposals.undo(w.athleteId, body.command_id));
    assert.is(refused.reason, 'undo_blocked');
    assert.equal(refused.item, { kind: 'checkin', id: w.seeded.checkinId, how: 'changed' });
    assert.equal(await recordModels(w.t.app), changed, 'nothing restored');
    assert.is((await w.t.app.proposals.get(w.caller, body.command_id))!.status, 'committed');
  } finally {
    await w.t.close();
  }
});

test('undo after 30 days is refused; retention then leaves a minimal receipt with no field values', async () => {
  const w = await world();
  try {
    // The meal and the workout the batch deletes carry markers too: their earlier bodies are sealed for undo.
    const seededItem = async <K extends 'meal' | 'workout'>(kind: K) =>
      ((await w.t.app.events.readStream(streams.record(w.athleteId))).find((e) => e.type === `${kind}.created`)!.data as { item: RecordItem<K> }).item;
    await w.t.app.records.change(
      w.athleteId,
      [
        { op: 'update', kind: 'meal', item: { ...(await seededItem('meal')), name: MARKERS.meal }, base_revision: 1 },
        { op: 'update', kind: 'workout', item: { ...(await seededItem('workout')), title: MARKERS.deleted }, base_revision: 1 },
      ],
      { type: 'athlete', id: w.athleteId },
    );
    const body = batch(w.seeded, MARKERS, 2);
    await w.t.app.proposals.prepare(w.caller, body);
    await w.t.app.proposals.approve(w.athleteId, body.command_id);
    const sealedDetails = new SealedDetails(w.t.app.keys, w.t.app.clock);
    const proposalEvents = async () =>
      (await w.t.app.events.readStream(streams.record(w.athleteId))).filter((e) => e.type.startsWith('proposal.')).map((e) => e.data);
    const markers = Object.values(MARKERS);

    // Before retention: the values are in the sealed details (the actions) and undo bodies (the
    // deleted items), which open to them, encrypted (their ciphertext does not hold the text), and
    // nowhere else in the log.
    const beforePurge = splitSealed(await proposalEvents());
    assert.is(beforePurge.sealed.length, 2, 'the prepared details and the committed undo bodies');
    const opened = JSON.stringify(await Promise.all(beforePurge.sealed.map((x) => sealedDetails.open(x))));
    for (const marker of markers) {
      assert.match(opened, marker, 'a value of the batch is sealed');
      assert.not.match(beforePurge.clear, marker, 'no value of the batch is in the clear');
      for (const x of beforePurge.sealed) assert.not.ok(Buffer.from(x.ciphertext, 'base64').includes(Buffer.from(marker)), `sealed, not encoded: "${marker}"`);
    }

    w.t.clock.advance(30 * DAY);
    assert.is((await refusal(w.t.app.proposals.undo(w.athleteId, body.command_id))).reason, 'undo_window_passed');
    assert.is((await w.t.app.proposals.purge()).keysDestroyed, 0, 'not yet past prepared + expiry + 30 days');
    w.t.clock.advance(30 * 60_000 + 1);
    assert.is((await w.t.app.proposals.purge()).keysDestroyed, 1);
    const kept = (await w.t.app.proposals.get(w.caller, body.command_id))!;
    assert.is(kept.actions, null);
    assert.ok(kept.changes.every((c) => c.summary === null));
    assert.equal(
      kept.receipt!.changes.map((c) => c.kind),
      ['exercise', 'completed_workout', 'recovery_checkin', 'meal', 'completed_workout'],
    );
    // No field value of the batch is anywhere in the clear, not in the log, not in the read model;
    // what is sealed no longer opens, its key destroyed.
    const log = splitSealed(await proposalEvents());
    const model = splitSealed(await dumpReadModels(w.t.app).then((m) => m.proposals));
    assert.is(log.sealed.length, 2);
    for (const x of [...log.sealed, ...model.sealed]) assert.is(await sealedDetails.open(x), null, 'the key is destroyed');
    for (const marker of markers) {
      assert.not.match(log.clear, marker, 'no value of the batch in the log');
      assert.not.match(model.clear, marker, 'no value of the batch in the read model');
    }
    const review = (await w.t.app.proposals.review(w.athleteId, body.command_id))!;
    assert.is(review.details, null);
    assert.is(review.before, null);
    // A replay of the command after retention still answers, with what is left.
    const replay = await w.t.app.proposals.prepare(w.caller, body);
    assert.is(replay.status, 'committed');
    assert.is(replay.actions, null);
  } finally {
    await w.t.close();
  }
});

test("another athlete's proposal: not found for approve, reject, undo and review", async () => {
  const w = await world();
  try {
    const body = batch(w.seeded);
    await w.t.app.proposals.prepare(w.caller, body);
    const bob = await registerAthlete(w.t.app, { email: 'bob@example.com' });
    for (const move of [
      () => w.t.app.proposals.approve(bob, body.command_id),
      () => w.t.app.proposals.reject(bob, body.command_id),
      () => w.t.app.proposals.undo(bob, body.command_id),
    ]) {
      const error = await move().then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      assert.is(error?.code, 'not_found');
    }
    assert.is(await w.t.app.proposals.review(bob, body.command_id), null);
  } finally {
    await w.t.close();
  }
});

test.run();
