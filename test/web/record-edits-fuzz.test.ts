// Every record form fuzzed (issue 39): the athlete's own forms, as a browser would send them but
// with fields dropped, repeated, long or strange, paths of any depth, buttons that name no list,
// and revisions of any kind. Nothing may answer 5xx; every answer is a page or a redirect; and
// nothing is ever half-saved: a refused form appends nothing, and a saved one appends one whole
// edit (its record events, then `edit.saved`).
// Seeded, so a failure names an input that reproduces it.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { registerPro } from '../support/connect.ts';
import { formValues, withValues, type FormValues } from '../support/form-fields.ts';
import { startServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';
import { signedInClient } from '../support/web-record.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const RUNS = 500;

test('every record form, fuzzed: no 5xx, a page or a redirect, and nothing half-saved', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-10T10:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const c = await signedInClient(s.base, 'ada@example.com');
    // One item of each kind to change, so that the edit forms have something to hold.
    const saved = await s.app.edits.save(athleteId, 'Europe/London', [
      { op: 'create', kind: 'exercise', ref: 'squat', record: { name: 'Squat', muscle_group: null, tracking_type: 'weight_reps' } },
      {
        op: 'create',
        kind: 'completed_workout',
        record: {
          title: 'Legs',
          started_at: '2026-06-09T07:00:00Z',
          ended_at: '2026-06-09T08:00:00Z',
          notes: null,
          exercises: [
            {
              exercise_id: { ref: 'squat' },
              exercise_order: 0,
              superset_id: null,
              notes: null,
              sets: [workoutSet(0, { weight_kg: 100, reps: 5 })],
            },
          ],
        },
      },
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: '2026-06-09T12:00:00Z', name: 'Lunch', calories_kcal: 600, protein_g: null, carbohydrate_g: null, fat_g: null },
      },
      {
        op: 'create',
        kind: 'goal',
        record: { goal_type: 'weekly_session_count', status: 'active', exercise_id: null, target_value: 4, target_unit: 'sessions', achieved_at: null },
      },
    ]);
    const [, workoutId, mealId, goalId] = saved.created as string[];
    const forms: Array<{ page: string; action: string }> = [
      ...['workout', 'routine', 'goal', 'checkin', 'meal', 'measurement', 'equipment', 'preferences'].map((slug) => ({
        page: `/record/${slug}/new`,
        action: `/record/${slug}`,
      })),
      { page: `/record/workout/${workoutId}`, action: `/record/workout/${workoutId}` },
      { page: `/record/meal/${mealId}`, action: `/record/meal/${mealId}` },
      { page: `/record/goal/${goalId}`, action: `/record/goal/${goalId}` },
      { page: `/record/meal/${mealId}/remove`, action: `/record/meal/${mealId}/remove` },
      { page: '/record/undo', action: '/record/undo' },
    ];
    // The new forms filled in as far as they need to save; the fuzz then breaks them.
    const filled: Record<string, Record<string, string>> = {
      '/record/workout': { 'f.title': 'Fuzzed' },
      '/record/routine': { 'f.title': 'Fuzzed' },
      '/record/goal': { 'f.goal_type': 'daily_protein', 'f.target_value': '150', 'f.target_unit': 'g' },
      '/record/checkin': { 'f.sleep_quality': '3', 'f.energy': '3', 'f.soreness': '3', 'f.stress': '3' },
      '/record/meal': { 'f.name': 'Fuzzed' },
      '/record/measurement': { 'f.value': '80' },
      '/record/equipment': { 'f.name': 'Fuzzed' },
    };
    const baseOf = async (i: number) => {
      const page = await c.get(forms[i]!.page);
      // A page with nothing to change any more (the item removed, no change to undo) keeps its last form: posting it is refused.
      if (page.status !== 200 || !page.text.includes(`action="${forms[i]!.action}"`)) return null;
      return withValues(formValues(page.text, forms[i]!.action), filled[forms[i]!.action] ?? {});
    };
    const bases: FormValues[] = [];
    for (let i = 0; i < forms.length; i++) {
      const base = await baseOf(i);
      if (!base) throw new Error(`no form on ${forms[i]!.page}`);
      bases.push(base);
    }
    const nasty = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('', ' ', '-1', '0', '1e309', 'NaN', '9'.repeat(40), '2026-13-45T25:61', '1:2:3:4', 'A', 'Z', '<script>', '\u200b', 'x'.repeat(3000)),
      fc.integer().map(String),
      fc.double().map(String),
    );
    const path = fc.oneof(
      fc.constantFrom(
        'f.title',
        'f.name',
        'f.exercises.0.sets.0.weight_kg',
        'f.exercises.0.superset_id',
        'f.exercises.0.sets.0.parent_position',
        'f.__proto__',
        'f.constructor.0.x',
      ),
      fc
        .array(
          fc.oneof(
            fc.constantFrom('exercises', 'sets', 'weight_kg', 'exercise_id', 'new_exercise_name', 'scheduled_dates', '__proto__'),
            fc.nat(250).map(String),
          ),
          { minLength: 1, maxLength: 7 },
        )
        .map((p) => `f.${p.join('.')}`),
    );
    const button = fc.oneof(
      { arbitrary: fc.constant('save'), weight: 6 },
      fc.constantFrom(
        'save',
        'add:exercises',
        'add:exercises.0.sets',
        'remove:exercises.0',
        'remove:exercises.0.sets.0',
        'remove:exercises.99',
        'add:sets',
        'add:exercises.0.sets.0.x',
      ),
      fc.string({ maxLength: 40 }),
    );
    const edit = fc.oneof(
      fc.record({ drop: fc.nat(60) }),
      fc.record({ set: path, to: nasty }),
      fc.record({ repeat: fc.nat(60), to: nasty }),
      fc.record({ revision: fc.oneof(nasty, fc.constantFrom('1', '2', '3', '999999999')) }),
    );
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const [which, edits, pressed] of fc.sample(fc.tuple(fc.nat(forms.length - 1), fc.array(edit, { maxLength: 3 }), button), {
      numRuns: RUNS,
      seed: SEED,
    })) {
      const values: FormValues = bases[which]!.map(([k, v]) => [k, v]);
      for (const e of edits) {
        if ('drop' in e) values.splice(e.drop % Math.max(values.length, 1), 1);
        else if ('set' in e) values.push([e.set, e.to]);
        else if ('repeat' in e && values.length) values.push([values[e.repeat % values.length]![0], e.to]);
        else if ('revision' in e) values.push(['_revision', String(e.revision)]);
      }
      const form: Record<string, string[]> = {};
      for (const [k, v] of [...values, ['_do', pressed] as [string, string]]) (form[k] ??= []).push(v);
      const before = await s.app.events.readStream(streams.record(athleteId));
      const answer = await c.post(forms[which]!.action, form);
      const where = `POST ${forms[which]!.action} ${JSON.stringify({ edits, pressed }).slice(0, 300)} → ${answer.status}`;
      assert.ok(answer.status < 500, `5xx: ${where} ${answer.text.slice(0, 300)}`);
      assert.ok(answer.status === 303 || /text\/html/.test(answer.headers.get('content-type') ?? ''), `a page for people: ${where}`);
      const after = await s.app.events.readStream(streams.record(athleteId));
      const appended = after.slice(before.length).map((e) => e.type);
      if (answer.status !== 303) assert.equal(appended, [], `a refused form saved nothing: ${where}`);
      else if (appended.length) assert.ok(/^edit\.(saved|undone)$/.test(appended.at(-1)!), `a whole edit: ${where} appended ${appended.join(', ')}`);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      // After a save, the forms are read again (at the revision now), as the athlete's next visit would.
      if (appended.length) for (let i = 0; i < forms.length; i++) bases[i] = (await baseOf(i)) ?? bases[i]!;
      sent++;
    }
    assert.is(sent, RUNS);
    console.log(
      `    answers: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ')}`,
    );
    // The fuzz reaches every outcome: saved, refused, redrawn after a button, and in conflict.
    for (const status of [200, 303, 400, 409]) assert.ok(statuses.has(status), `some answers were ${status}`);
  } finally {
    await s.close();
  }
});

test.run();
