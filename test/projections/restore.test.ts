// Undo brings a deleted workout back as a new revision. The read models must then be as they were
// before the delete — the same local date for a workout without a start (dated by its creation),
// the same history, streak and records — and equal to a replay of the log.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { itemImages, itemKey } from '../../services/domain/record.ts';
import { dumpReadModels, openTestApp, registerAthlete } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';

/** Read models without what a new revision changes by design: revisions, update and computation times. */
function comparable(models: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(models, (key, value) => (key === 'revision' || key === 'updated_at' || key === 'computed_at' ? undefined : value)));
}

test('a restored workout without a start keeps its local date, history, streak and records; read models equal a replay', async () => {
  // Late evening in Sydney: the workout's local date is the next day there.
  const t = await openTestApp({ now: '2026-03-02T14:30:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app, { timezone: 'Australia/Sydney' });
    const actor = { type: 'athlete' as const, id: athleteId };
    const squat = randomUUID();
    await t.app.records.change(
      athleteId,
      [{ op: 'create', kind: 'exercise', item: { id: squat, name: 'Squat', muscle_group: null, tracking_type: 'weight_reps' } }],
      actor,
    );
    const workout: RecordItem<'workout'> = {
      id: randomUUID(),
      title: 'No start recorded',
      started_at: null,
      ended_at: '2026-03-02T14:25:00.000Z',
      notes: null,
      source: null,
      exercises: [{ exercise_id: squat, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 100, reps: 5 })] }],
    };
    await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: workout }], actor);
    await t.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'feedback',
          item: { id: workout.id, difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: '2026-03-02T14:26:00.000Z' },
        },
      ],
      actor,
    );
    const before = comparable(await dumpReadModels(t.app));

    t.clock.advance(5 * 86_400_000);
    await t.app.records.change(athleteId, [{ op: 'delete', kind: 'workout', id: workout.id, base_revision: 1 }], actor);
    assert.not.equal(comparable(await dumpReadModels(t.app)), before, 'the delete changed the read models');

    // Undo, days later: the images from the log say what to bring back and since when it existed.
    t.clock.advance(86_400_000);
    const log = (await t.app.events.readStream(streams.record(athleteId))).map((e) => ({
      type: e.type,
      data: e.data,
      occurred_at: String(e.metadata.occurred_at),
    }));
    const images = itemImages(log, new Set([itemKey('workout', workout.id), itemKey('feedback', workout.id)]));
    const w = images.get(itemKey('workout', workout.id))!;
    const f = images.get(itemKey('feedback', workout.id))!;
    assert.is(w.item, null, 'deleted');
    const bodies = log.filter((e) => e.type.endsWith('.created')).map((e) => (e.data as { item: { id: string } }).item);
    await t.app.records.change(
      athleteId,
      [
        {
          op: 'restore',
          kind: 'workout',
          item: bodies.find((b) => b.id === workout.id && 'exercises' in b),
          base_revision: w.revision,
          created_at: w.created_at,
        },
        {
          op: 'restore',
          kind: 'feedback',
          item: bodies.find((b) => b.id === workout.id && 'difficulty' in b),
          base_revision: f.revision,
          created_at: f.created_at,
        },
      ],
      actor,
    );
    const after = await dumpReadModels(t.app);
    assert.equal(comparable(after), before, 'as before the delete, the local date included');
    await t.app.runner.replay();
    assert.equal(await dumpReadModels(t.app), after, 'and as a replay builds them');
  } finally {
    await t.close();
  }
});

test.run();
