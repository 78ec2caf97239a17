// The athlete's own edits in the web app, over HTTP as a browser without script sends them: each
// kind's form adds, changes and removes; values shown in the athlete's units read back exactly when
// left alone; a workout with a superset and a drop set is logged; a change made meanwhile is a
// conflict that names it and keeps what was typed; a pending proposal the edit makes stale shows
// as stale; the last change is undone.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { registerPro } from '../support/connect.ts';
import { formValues, withValues, type FormValues } from '../support/form-fields.ts';
import { type FormClient, startServer, type TestServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';
import { signedInClient } from '../support/web-record.ts';
import { agentCaller, proposalBody, validBody, writer } from '../support/writes.ts';

const NOW = '2026-06-10T10:00:00.000Z';
const TODAY = '2026-06-10';

/** Posts form values (pairs, as a browser sends them), with the button pressed. */
export function send(c: FormClient, action: string, values: FormValues, button = 'save') {
  const form: Record<string, string[]> = {};
  for (const [k, v] of [...values, ['_do', button] as [string, string]]) (form[k] ??= []).push(v);
  return c.post(action, form);
}

/** A form page's values after pressing `buttons` in turn (each answers the form again). */
async function formAfter(c: FormClient, path: string, action: string, buttons: string[] = []): Promise<{ text: string; values: FormValues }> {
  let page = await c.get(path);
  assert.is(page.status, 200, page.text);
  for (const button of buttons) {
    page = await send(c, action, formValues(page.text, action), button);
    assert.is(page.status, 200, page.text);
  }
  return { text: page.text, values: formValues(page.text, action) };
}

async function start(units: 'kg' | 'lbs' = 'kg'): Promise<{ s: TestServer; c: FormClient; athleteId: string }> {
  const s = await startServer({ clock: fixedClock(NOW) });
  const athleteId = await registerPro(s.app);
  if (units === 'lbs') {
    const athlete = (await s.app.athletes.get(athleteId))!;
    await s.app.athletes.updateProfile(
      athlete.email,
      { ...athlete.profile, unit_preference: 'lbs', bodyweight_unit_preference: 'lbs', height_unit_preference: 'ft_in' },
      {
        type: 'athlete',
        id: athleteId,
      },
    );
  }
  return { s, c: await signedInClient(s.base, 'ada@example.com'), athleteId };
}

type Doc = { id: string; revision: number } & Record<string, unknown>;

const LUNCH = { eaten_at: NOW, name: 'Lunch', calories_kcal: 600, protein_g: null, carbohydrate_g: null, fat_g: null };

/** A meal the athlete saved earlier: its id. */
async function lunch(s: TestServer, athleteId: string): Promise<string> {
  return (await s.app.edits.save(athleteId, 'Europe/London', [{ op: 'create', kind: 'meal', record: LUNCH }])).created[0]!;
}
const onlyDoc = async (s: TestServer, collection: string, athleteId: string): Promise<Doc> => {
  const docs = await s.app.reads.page<Doc>(collection, { partition: athleteId, index: 'by_id', direction: 'asc', limit: 10 });
  assert.is(docs.length, 1, `one ${collection} document`);
  return docs[0]!;
};

/** Each kind: what its new form is filled with (after pressing any buttons), what a change types, and what the read model then holds. */
const KINDS: Array<{
  slug: string;
  collection: string;
  buttons?: string[];
  fill: Record<string, string | string[]>;
  saved: Record<string, unknown>;
  change: Record<string, string | string[]>;
  changed: Record<string, unknown>;
  removable: boolean;
}> = [
  {
    slug: 'goal',
    collection: 'goals',
    fill: { 'f.goal_type': 'target_bodyweight', 'f.target_value': '75', 'f.target_unit': 'kg' },
    saved: { goal_type: 'target_bodyweight', status: 'active', target_value: 75, target_unit: 'kg', achieved_at: null, exercise_id: null },
    change: { 'f.status': 'achieved', 'f.achieved_at': '2026-06-09T18:30' },
    changed: { status: 'achieved', achieved_at: '2026-06-09T17:30:00.000Z' },
    removable: true,
  },
  {
    slug: 'checkin',
    collection: 'checkins',
    fill: { 'f.sleep_quality': '4', 'f.energy': '3', 'f.soreness': '5', 'f.stress': '2' },
    saved: { date: TODAY, sleep_quality: 4, energy: 3, soreness: 5, stress: 2 },
    change: { 'f.energy': '' },
    changed: { energy: null, sleep_quality: 4 },
    removable: true,
  },
  {
    slug: 'meal',
    collection: 'meals',
    fill: { 'f.name': 'Lunch', 'f.calories_kcal': '650', 'f.protein_g': '40,5' },
    saved: { name: 'Lunch', calories_kcal: 650, protein_g: 40.5, carbohydrate_g: null, fat_g: null, eaten_at: NOW },
    change: { 'f.eaten_at': '2026-06-10T08:15' },
    changed: { eaten_at: '2026-06-10T07:15:00.000Z', name: 'Lunch' },
    removable: true,
  },
  {
    slug: 'measurement',
    collection: 'body_measurements',
    fill: { 'f.metric': 'waist', 'f.value': '82.5' },
    saved: { metric: 'waist', value: 0.825, measured_at: NOW },
    change: { 'f.value': '81' },
    changed: { value: 0.81 },
    removable: true,
  },
  {
    slug: 'routine',
    collection: 'routines',
    buttons: ['add:exercises'],
    fill: {
      'f.title': 'Push day',
      'f.exercises.0.new_exercise_name': 'Bench press',
      'f.exercises.0.sets': '3',
      'f.exercises.0.reps': '8-10',
      'f.exercises.0.rest_seconds': '2:30',
      'f.scheduled_dates': ['2026-06-12', '2026-06-15'],
    },
    saved: { title: 'Push day', scheduled_dates: ['2026-06-12', '2026-06-15'] },
    change: { 'f.scheduled_dates': ['2026-06-12', ''] },
    changed: { scheduled_dates: ['2026-06-12'], title: 'Push day' },
    removable: true,
  },
  {
    slug: 'equipment',
    collection: 'equipment_setups',
    fill: { 'f.name': 'Home gym', 'f.equipment': ['Barbell', 'Rack'] },
    saved: { name: 'Home gym', equipment: ['Barbell', 'Rack'] },
    change: { 'f.equipment': ['Barbell', '', 'Bench'] },
    changed: { equipment: ['Barbell', 'Bench'] },
    removable: true,
  },
  {
    slug: 'preferences',
    collection: 'fitness_preferences',
    fill: { 'f.experience_level': 'intermediate', 'f.training_days_per_week': '4', 'f.session_minutes': '60', 'f.focus': ['strength'] },
    saved: { experience_level: 'intermediate', training_days_per_week: 4, session_minutes: 60, focus: ['strength'] },
    change: { 'f.session_minutes': '' },
    changed: { session_minutes: null, training_days_per_week: 4 },
    removable: false,
  },
];

for (const k of KINDS) {
  test(`${k.slug}: added, changed${k.removable ? ' and removed' : ''} through its forms, by the athlete`, async () => {
    const { s, c, athleteId } = await start();
    try {
      const created = await formAfter(c, `/record/${k.slug}/new`, `/record/${k.slug}`, k.buttons);
      const added = await send(c, `/record/${k.slug}`, withValues(created.values, k.fill));
      assert.is(added.status, 303, added.text);
      const doc = await onlyDoc(s, k.collection, athleteId);
      for (const [field, value] of Object.entries(k.saved)) assert.equal(doc[field], value, field);
      const path = `/record/${k.slug}/${doc.id}`;
      const edit = await formAfter(c, path, path);
      const changed = await send(c, path, withValues(edit.values, k.change));
      assert.is(changed.status, 303, changed.text);
      const after = await onlyDoc(s, k.collection, athleteId);
      assert.is(after.revision, 2);
      for (const [field, value] of Object.entries(k.changed)) assert.equal(after[field], value, field);
      // Nothing else changed: every field the change did not type reads back as it was.
      for (const field of Object.keys(doc))
        if (!(field in k.changed) && !['revision', 'updated_at', 'local_date'].includes(field)) assert.equal(after[field], doc[field], field);
      if (k.removable) {
        const confirm = await c.get(`${path}/remove`);
        assert.is(confirm.status, 200);
        const removed = await send(c, `${path}/remove`, formValues(confirm.text, `${path}/remove`));
        assert.is(removed.status, 303, removed.text);
        assert.is(await s.app.reads.get(k.collection, athleteId, doc.id), null);
      }
      const actors = (await s.app.events.readStream(streams.record(athleteId))).map((e) => e.metadata.actor as { type: string; id: string });
      assert.ok(actors.every((a) => a.type === 'athlete' && a.id === athleteId));
    } finally {
      await s.close();
    }
  });
}

test('a workout with a superset and a drop set, logged in pounds; left alone, every weight reads back to the gram', async () => {
  const { s, c, athleteId } = await start('lbs');
  try {
    const form = await formAfter(c, '/record/workout/new', '/record/workout', ['add:exercises', 'add:exercises', 'add:exercises.0.sets']);
    const values = withValues(form.values, {
      'f.title': 'Upper',
      'f.started_at': '2026-06-10T07:00',
      'f.ended_at': '2026-06-10T08:05',
      'f.exercises.0.new_exercise_name': 'Bench press',
      'f.exercises.0.superset_id': 'A',
      'f.exercises.0.sets.0.weight_kg': '135',
      'f.exercises.0.sets.0.reps': '8',
      'f.exercises.0.sets.0.rpe': '8.5',
      'f.exercises.0.sets.1.set_type': 'drop_set',
      'f.exercises.0.sets.1.parent_position': '0',
      'f.exercises.0.sets.1.weight_kg': '95',
      'f.exercises.0.sets.1.reps': '10',
      'f.exercises.1.new_exercise_name': 'Chin-up',
      'f.exercises.1.new_exercise_tracking': 'bodyweight',
      'f.exercises.1.superset_id': 'A',
      'f.exercises.1.sets.0.reps': '8',
      'f.exercises.1.notes': 'Slow negatives',
    });
    const saved = await send(c, '/record/workout', values);
    assert.is(saved.status, 303, saved.text);
    const id = saved.headers.get('location')!.split('/').pop()!;
    const [workout] = (await s.app.records.load(athleteId).then((l) => l.images(new Set([`workout/${id}`])))).values();
    const w = workout!.item as unknown as {
      started_at: string;
      ended_at: string;
      exercises: Array<{ exercise_id: string; superset_id: string | null; notes: string | null; sets: Array<Record<string, unknown>> }>;
    };
    assert.is(w.started_at, '2026-06-10T06:00:00.000Z');
    assert.is(w.ended_at, '2026-06-10T07:05:00.000Z');
    assert.is(w.exercises.length, 2);
    assert.ok(w.exercises[0]!.superset_id && w.exercises[0]!.superset_id === w.exercises[1]!.superset_id, 'one superset');
    assert.is(w.exercises[1]!.notes, 'Slow negatives');
    const [top, drop] = w.exercises[0]!.sets;
    assert.equal([top!.set_type, top!.weight_kg, top!.reps, top!.rpe, top!.completed], ['normal', Number((135 * 0.45359237).toPrecision(15)), 8, 8.5, true]);
    assert.equal([drop!.set_type, drop!.parent_position, drop!.reps], ['drop_set', 0, 10]);
    const names = await s.app.reads.page<{ id: string; name: string; tracking_type: string }>('exercises', {
      partition: athleteId,
      index: 'by_name',
      direction: 'asc',
      limit: 5,
    });
    assert.equal(
      names.map((e) => [e.name, e.tracking_type]),
      [
        ['Bench press', 'weight_reps'],
        ['Chin-up', 'bodyweight'],
      ],
    );
    // Opened and saved with a new title only: the weights (shown as 135 lb, 95 lb) come back exactly.
    const edit = await formAfter(c, `/record/workout/${id}`, `/record/workout/${id}`);
    assert.ok(
      edit.values.some(([n, v]) => n === 'f.exercises.0.sets.0.weight_kg' && v === '135'),
      'shown in pounds',
    );
    const again = await send(c, `/record/workout/${id}`, withValues(edit.values, { 'f.title': 'Upper A' }));
    assert.is(again.status, 303, again.text);
    const [after] = (await s.app.records.load(athleteId).then((l) => l.images(new Set([`workout/${id}`])))).values();
    assert.equal(after!.item, { ...workout!.item, title: 'Upper A' });
    // A third exercise put in superset A joins the superset the first two are in.
    const third = await formAfter(c, `/record/workout/${id}`, `/record/workout/${id}`, ['add:exercises']);
    const joined = await send(
      c,
      `/record/workout/${id}`,
      withValues(third.values, { 'f.exercises.2.new_exercise_name': 'Dip', 'f.exercises.2.superset_id': 'A', 'f.exercises.2.sets.0.reps': '12' }),
    );
    assert.is(joined.status, 303, joined.text);
    const [three] = (await s.app.records.load(athleteId).then((l) => l.images(new Set([`workout/${id}`])))).values();
    const supersets = (three!.item as unknown as { exercises: Array<{ superset_id: string | null }> }).exercises.map((e) => e.superset_id);
    assert.equal(supersets, [w.exercises[0]!.superset_id, w.exercises[0]!.superset_id, w.exercises[0]!.superset_id]);
  } finally {
    await s.close();
  }
});

test("an imported workout's positions, set numbers and drop-set parents survive a save that changes only its title", async () => {
  const { s, c, athleteId } = await start();
  try {
    const [exerciseId, id] = [randomUUID(), randomUUID()];
    const item = {
      id,
      title: 'Imported',
      started_at: '2026-06-09T07:00:00.000Z',
      ended_at: '2026-06-09T08:00:00.000Z',
      notes: null,
      source: { app: 'hevy' as const, ref: 'Imported|2026-06-09T07:00' },
      exercises: [
        {
          exercise_id: exerciseId,
          exercise_order: 3,
          superset_id: null,
          notes: null,
          sets: [
            workoutSet(2, { set_type: 'warmup', set_number: 1, weight_kg: 60, reps: 5 }),
            workoutSet(5, { set_number: 1, weight_kg: 100.5, reps: 5 }),
            workoutSet(9, { set_type: 'drop_set', parent_position: 5, set_number: 2, weight_kg: 80, reps: 8 }),
          ],
        },
      ],
    };
    await s.app.records.change(
      athleteId,
      [
        { op: 'create', kind: 'exercise', item: { id: exerciseId, name: 'Squat', muscle_group: null, tracking_type: 'weight_reps' } },
        { op: 'create', kind: 'workout', item },
      ],
      { type: 'import', id: 'test' },
    );
    const path = `/record/workout/${id}`;
    const form = await formAfter(c, path, path);
    assert.is((await send(c, path, withValues(form.values, { 'f.title': 'Squats' }))).status, 303);
    const [after] = (await s.app.records.load(athleteId).then((l) => l.images(new Set([`workout/${id}`])))).values();
    assert.equal(after!.item, { ...item, title: 'Squats' });
  } finally {
    await s.close();
  }
});

test('a record form without its CSRF token, or from another site, is refused and saves nothing', async () => {
  const { s, c, athleteId } = await start();
  try {
    const form = await formAfter(c, '/record/meal/new', '/record/meal');
    const filled = withValues(form.values, { 'f.name': 'Soup' });
    const before = (await s.app.events.readStream(streams.record(athleteId))).length;
    assert.is(
      (
        await send(
          c,
          '/record/meal',
          filled.filter(([name]) => name !== '_csrf'),
        )
      ).status,
      403,
    );
    assert.is((await send(c, '/record/meal', withValues(filled, { _csrf: 'not-the-token' }))).status, 403);
    const crossSite: Record<string, string[]> = {};
    for (const [k, v] of [...filled, ['_do', 'save'] as [string, string]]) (crossSite[k] ??= []).push(v);
    assert.is((await c.post('/record/meal', crossSite, { origin: 'https://evil.example' })).status, 403);
    assert.is((await s.app.events.readStream(streams.record(athleteId))).length, before);
  } finally {
    await s.close();
  }
});

test('while writes are paused, a record form saves nothing and says when to try again', async () => {
  const { s, c, athleteId } = await start();
  try {
    const form = await formAfter(c, '/record/meal/new', '/record/meal');
    await s.app.maintenance.set('write', 120, 'operator:test');
    const before = (await s.app.events.readStream(streams.record(athleteId))).length;
    const paused = await send(c, '/record/meal', withValues(form.values, { 'f.name': 'Soup' }));
    assert.is(paused.status, 503);
    assert.is(paused.headers.get('retry-after'), '120');
    assert.match(paused.text, 'paused changes to records for maintenance, so nothing was saved');
    assert.is((await s.app.events.readStream(streams.record(athleteId))).length, before);
  } finally {
    await s.close();
  }
});

test('a form left with a field wrong comes back with what was typed and what is wrong, and saves nothing', async () => {
  const { s, c, athleteId } = await start();
  try {
    const form = await formAfter(c, '/record/meal/new', '/record/meal');
    const before = (await s.app.events.readStream(streams.record(athleteId))).length;
    for (const [fields, message] of [
      [{ 'f.name': '', 'f.calories_kcal': '600' }, 'Name: this field is required'],
      [{ 'f.name': 'Soup', 'f.calories_kcal': 'lots' }, 'Energy: give a number'],
      [{ 'f.name': 'Soup', 'f.calories_kcal': '-5' }, 'Energy: '],
      [{ 'f.name': 'Soup', 'f.eaten_at': '2026-06-11T09:00' }, 'in the future'],
      [{ 'f.name': 'Soup', 'f.eaten_at': 'yesterday' }, 'Eaten: give a date and time'],
    ] as const) {
      const res = await send(c, '/record/meal', withValues(form.values, fields));
      assert.is(res.status, 400, `${JSON.stringify(fields)}: ${res.status}`);
      assert.match(res.text, message);
      assert.match(res.text, 'Nothing was saved');
      if (fields['f.name']) assert.match(res.text, `value="${fields['f.name']}"`);
    }
    assert.is((await s.app.events.readStream(streams.record(athleteId))).length, before);
  } finally {
    await s.close();
  }
});

test('a change made meanwhile by an approved batch is a conflict: it names the batch, keeps what was typed, saves nothing until saved again', async () => {
  const { s, c, athleteId } = await start();
  try {
    const id = await lunch(s, athleteId);
    const path = `/record/meal/${id}`;
    const form = await formAfter(c, path, path);
    const agent = await agentCaller(s.app, athleteId);
    const batch = validBody([
      {
        op: 'update',
        kind: 'meal',
        id,
        base_revision: 1,
        record: { eaten_at: NOW, name: 'Lunch', calories_kcal: 720, protein_g: null, carbohydrate_g: null, fat_g: null },
      },
    ]);
    await s.app.proposals.prepare(agent, batch);
    await s.app.proposals.approve(athleteId, batch.command_id);
    const conflict = await send(c, path, withValues(form.values, { 'f.name': 'Soup and bread' }));
    assert.is(conflict.status, 409);
    assert.match(conflict.text, 'Nothing was saved');
    assert.match(conflict.text, 'a batch from Agent that you approved');
    assert.match(conflict.text, 'value="Soup and bread"');
    assert.match(conflict.text, '720 kcal → 600 kcal');
    assert.match(conflict.text, `<a href="/record/meal/${id}">start again from the saved one</a>`);
    assert.is((await s.app.reads.get<Doc>('meals', athleteId, id))?.name, 'Lunch');
    const resent = await send(c, path, formValues(conflict.text, path));
    assert.is(resent.status, 303, resent.text);
    const doc = await s.app.reads.get<Doc>('meals', athleteId, id);
    assert.equal([doc?.name, doc?.calories_kcal, doc?.revision], ['Soup and bread', 600, 3]);
  } finally {
    await s.close();
  }
});

test("an edit makes a pending proposal stale on its review page; the athlete's last change is undone from the record's page", async () => {
  const { s, c, athleteId } = await start();
  try {
    const id = await lunch(s, athleteId);
    const batch = validBody([
      {
        op: 'update',
        kind: 'meal',
        id,
        base_revision: 1,
        record: { eaten_at: NOW, name: 'Lunch', calories_kcal: 700, protein_g: 30, carbohydrate_g: null, fat_g: null },
      },
    ]);
    await s.app.proposals.prepare(await agentCaller(s.app, athleteId), batch);
    const path = `/record/meal/${id}`;
    const form = await formAfter(c, path, path);
    assert.is((await send(c, path, withValues(form.values, { 'f.name': 'Late lunch' }))).status, 303);
    const review = await c.get(`/proposals/${batch.command_id}`);
    assert.match(review.text, 'by you');
    assert.match(review.text, /changed/);
    // Approved anyway, it is not saved; the page says the athlete's own change was in the way.
    assert.is((await s.app.proposals.approve(athleteId, batch.command_id)).outcome, 'conflicted');
    assert.match((await c.get(`/proposals/${batch.command_id}`)).text, 'after Agent prepared it (by you, on 10 Jun 2026, 11:00)');

    const nutrition = await c.get('/nutrition');
    assert.match(nutrition.text, 'Your last change');
    assert.match(nutrition.text, 'Changed the meal “Late lunch”');
    const confirm = await c.get('/record/undo');
    assert.match(confirm.text, 'Set the meal “Late lunch”');
    const undone = await send(c, '/record/undo', formValues(confirm.text, '/record/undo'));
    assert.is(undone.status, 303, undone.text);
    assert.is((await s.app.reads.get<Doc>('meals', athleteId, id))?.name, 'Lunch');
    assert.not.match((await c.get('/nutrition')).text, 'Your last change');
    // Undone once only; an undo posted twice (a double click) changes nothing more.
    assert.is((await send(c, '/record/undo', formValues(confirm.text, '/record/undo'))).status, 409);
  } finally {
    await s.close();
  }
});

test("a connected app's batch not saved because of the athlete's own edit: its activity says the athlete changed the record, and get_write_proposal keeps its documented shape", async () => {
  const { s, c, athleteId } = await start();
  try {
    const id = await lunch(s, athleteId);
    const { api, grantId } = await writer(s, athleteId, ['nutrition'], ['nutrition:write']);
    const body = proposalBody([{ op: 'update', kind: 'meal', id, base_revision: 1, record: { ...LUNCH, calories_kcal: 650 } }]);
    assert.is((await api.prepare(body)).status, 201);
    const path = `/record/meal/${id}`;
    const form = await formAfter(c, path, path);
    assert.is((await send(c, path, withValues(form.values, { 'f.name': 'Late lunch' }))).status, 303);
    assert.is((await s.app.proposals.approve(athleteId, body.command_id)).outcome, 'conflicted');
    const activity = await c.get(`/connections/${grantId}/activity`);
    assert.is(activity.status, 200);
    assert.match(activity.text, 'Not saved — your record had changed (you had changed it yourself)');
    const answer = await api.proposal(body.command_id);
    assert.is(answer.status, 200);
    assert.equal(answer.body.data.proposal.conflict, { action_index: 0, kind: 'meal', id, reason: 'changed' });
  } finally {
    await s.close();
  }
});

test('a removal confirmed after the item changed removes nothing, and says what changed it', async () => {
  const { s, c, athleteId } = await start();
  try {
    const id = await lunch(s, athleteId);
    const path = `/record/meal/${id}/remove`;
    const confirm = await c.get(path);
    await s.app.records.change(athleteId, [{ op: 'update', kind: 'meal', item: { ...LUNCH, id, name: 'Brunch' }, base_revision: 1 }], {
      type: 'import',
      id: 'test',
    });
    const refused = await send(c, path, formValues(confirm.text, path));
    assert.is(refused.status, 409);
    assert.match(refused.text, 'Nothing was removed');
    assert.match(refused.text, 'by an import');
    assert.is((await s.app.reads.get<Doc>('meals', athleteId, id))?.name, 'Brunch');
    // The page now holds the new revision: confirming again removes it.
    assert.is((await send(c, path, formValues(refused.text, path))).status, 303);
    assert.is(await s.app.reads.get('meals', athleteId, id), null);
  } finally {
    await s.close();
  }
});

test.run();
