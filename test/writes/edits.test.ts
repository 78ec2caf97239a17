// The athlete's own edits through the service: saved whole with the athlete as the actor, refused
// whole, and undone (the last one only, under the rules of undoing a batch).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { ReviewRefusal } from '../../services/domain/proposal-review.ts';
import { WriteRefusal } from '../../services/domain/proposal.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';

const meal = { eaten_at: '2026-03-01T12:00:00Z', name: 'Lunch', calories_kcal: 600, protein_g: 40, carbohydrate_g: null, fat_g: 20 };

test('an edit is saved in one append with the athlete as its actor; an edit against an older revision is refused whole; the last edit is undone', async () => {
  const t = await openTestApp({ now: '2026-03-01T13:00:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app, { timezone: 'Europe/London' });
    const saved = await t.app.edits.save(athleteId, 'Europe/London', [
      { op: 'create', kind: 'exercise', ref: 'sled', record: { name: 'Sled push', muscle_group: null, tracking_type: 'weight_distance' } },
      { op: 'create', kind: 'meal', record: meal },
    ]);
    const [exerciseId, mealId] = saved.created as [string, string];
    const events = (await t.app.events.readStream(streams.record(athleteId))).map((e) => [e.type, e.metadata.actor]);
    assert.equal(events, [
      ['exercise.created', { type: 'athlete', id: athleteId }],
      ['meal.created', { type: 'athlete', id: athleteId }],
      ['edit.saved', { type: 'athlete', id: athleteId }],
    ]);
    assert.ok(exerciseId && mealId);
    assert.is((await t.app.edits.last(athleteId))?.edit_id, saved.edit_id);

    const lunch = await t.app.edits.save(athleteId, 'Europe/London', [
      { op: 'update', kind: 'meal', id: mealId, base_revision: 1, record: { ...meal, name: 'Big lunch' } },
    ]);
    const stale = await t.app.edits
      .save(athleteId, 'Europe/London', [
        { op: 'create', kind: 'meal', record: meal },
        { op: 'update', kind: 'meal', id: mealId, base_revision: 1, record: { ...meal, name: 'Other' } },
      ])
      .catch((e: unknown) => e);
    assert.instance(stale, WriteRefusal);
    assert.is((stale as WriteRefusal).reason, 'stale_revision');
    assert.is((stale as WriteRefusal).field, 'actions.1.base_revision');
    assert.is((await t.app.events.readStream(streams.record(athleteId))).length, 5, 'nothing of the refused edit was saved');

    const older = await t.app.edits.undo(athleteId, saved.edit_id).catch((e: unknown) => e);
    assert.instance(older, ReviewRefusal, 'only the last edit can be undone');
    await t.app.edits.undo(athleteId, lunch.edit_id);
    const doc = await t.app.reads.get<{ id: string; name: string; revision: number }>('meals', athleteId, mealId);
    assert.is(doc?.name, 'Lunch');
    assert.is(doc?.revision, 3);
    assert.is(await t.app.edits.last(athleteId), null);
    const again = await t.app.edits.undo(athleteId, lunch.edit_id).catch((e: unknown) => e);
    assert.instance(again, ReviewRefusal, 'an undone edit is not undone twice');
  } finally {
    await t.close();
  }
});

test.run();
