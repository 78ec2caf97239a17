// For random valid batches: preparing a proposal never changes a read model of the record, and
// sending the same body again always answers the same proposal (and stores no second one), its
// keys in any order. The service receives the body as zod parsed it, with its keys in the
// schema's order whatever order they were sent in, so key order is tested where it can still
// matter: the digest of the raw body, keys reordered at every depth, against the digest the
// service stored, and against the raw body with one value changed.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams, type ProposalPrepared } from '../../contracts/events.ts';
import { writeProposalBody } from '../../contracts/write.ts';
import { bodyDigest } from '../../services/domain/proposal.ts';
import { addDays } from '../../services/domain/time.ts';
import { openTestApp, recordModels, registerAthlete } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';
import { agentCaller, proposalBody, seedRecord } from '../support/writes.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const TODAY = '2026-06-01';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * `value` with the keys of every object, at every depth, in another order: a permutation drawn
 * from `pick`, reversed when it drew the order they had. Also returns the depth of the deepest
 * object reordered (the body is 1, an action 2, its record 3, a workout's exercise 4, a set 5).
 */
function reordered(value: Json, pick: () => number): { value: Json; deepest: number } {
  let deepest = 0;
  const walk = (v: Json, depth: number): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x, depth));
    if (v === null || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    const order = [...keys];
    for (let i = order.length - 1; i > 0; i--) {
      const j = pick() % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    if (keys.length > 1) {
      if (order.every((k, i) => k === keys[i])) order.reverse();
      deepest = Math.max(deepest, depth);
    }
    return Object.fromEntries(order.map((k) => [k, walk(v[k]!, depth + 1)]));
  };
  return { value: walk(value, 1), deepest };
}

/** Every place in `value` that holds a scalar, as a path of keys and indexes. */
function leaves(value: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...at, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, [...at, k]));
  return [at];
}

/** `value` (copied) with the scalar at `path` replaced by another of a different JSON text. */
function changedAt(value: Json, path: Array<string | number>): Json {
  const copy = structuredClone(value) as Record<string | number, Json>;
  let holder = copy;
  for (const step of path.slice(0, -1)) holder = holder[step] as Record<string | number, Json>;
  const last = path.at(-1)!;
  const old = holder[last];
  holder[last] = typeof old === 'number' ? old + 1 : typeof old === 'string' ? `${old}x` : typeof old === 'boolean' ? !old : 0;
  return copy;
}

test('random valid batches: preparation changes no read model of the record, and a replay is the same proposal', async () => {
  const t = await openTestApp({ now: NOW });
  try {
    const athleteId = await registerAthlete(t.app);
    const seeded = await seedRecord(t.app, athleteId);

    const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);
    const nullableCount = fc.option(fc.integer({ min: 0, max: 2000 }), { nil: null });
    const meal = fc.record({
      eaten_at: fc.integer({ min: 1, max: 24 * 60 }).map(hoursAgo),
      name: text,
      calories_kcal: nullableCount,
      protein_g: nullableCount,
      carbohydrate_g: nullableCount,
      fat_g: nullableCount,
    });
    // Body fat is a percentage (at most 100); the others may go to 200.
    const measurement = fc.constantFrom('bodyweight', 'waist', 'body_fat').chain((metric) =>
      fc.record({
        measured_at: fc.integer({ min: 1, max: 24 * 60 }).map(hoursAgo),
        metric: fc.constant(metric),
        value: fc.double({ min: 1, max: metric === 'body_fat' ? 100 : 200, noNaN: true }),
      }),
    );
    const score = fc.option(fc.integer({ min: 1, max: 5 }), { nil: null });
    // Check-in dates are unique in a record: new ones avoid the seeded date and each other.
    const checkinDates = fc.uniqueArray(fc.integer({ min: 3, max: 60 }), { maxLength: 4 }).map((days) => days.map((d) => addDays(TODAY, -d)));
    const routineDates = fc.uniqueArray(fc.integer({ min: 0, max: 90 }), { maxLength: 5 }).map((days) => days.map((d) => addDays(TODAY, d)));
    const seededChange = (update: unknown, del: unknown) => fc.constantFrom(null, update, del);

    const batch = fc
      .record({
        meals: fc.array(meal, { maxLength: 4 }),
        measurements: fc.array(measurement, { maxLength: 3 }),
        checkins: fc.tuple(checkinDates, fc.array(fc.tuple(score, score, score, score), { minLength: 4, maxLength: 4 })),
        exercises: fc.array(text, { maxLength: 3 }),
        workouts: fc.array(fc.tuple(text, fc.integer({ min: 2, max: 500 }), fc.nat(), fc.integer({ min: 1, max: 4 })), { maxLength: 3 }),
        routine: fc.option(fc.tuple(text, routineDates), { nil: null }),
        checkin: seededChange('update', 'delete'),
        meal: seededChange('update', 'delete'),
        workout: seededChange('update', 'delete'),
      })
      .map((b) => {
        const actions: unknown[] = [];
        b.exercises.forEach((name, i) =>
          actions.push({ op: 'create', kind: 'exercise', ref: `ex${i}`, record: { name, muscle_group: null, tracking_type: 'weight_reps' } }),
        );
        const exerciseRefs: unknown[] = [seeded.exerciseId, ...b.exercises.map((_, i) => ({ ref: `ex${i}` }))];
        for (const [title, endedHoursAgo, pick, sets] of b.workouts) {
          actions.push({
            op: 'create',
            kind: 'completed_workout',
            record: {
              title,
              started_at: hoursAgo(endedHoursAgo + 1),
              ended_at: hoursAgo(endedHoursAgo),
              notes: null,
              exercises: [
                {
                  exercise_id: exerciseRefs[pick % exerciseRefs.length],
                  exercise_order: 0,
                  superset_id: null,
                  notes: null,
                  sets: Array.from({ length: sets }, (_, p) => workoutSet(p, { weight_kg: 40 + p, reps: 8 })),
                },
              ],
            },
          });
        }
        for (const record of b.meals) actions.push({ op: 'create', kind: 'meal', record });
        for (const record of b.measurements) actions.push({ op: 'create', kind: 'body_measurement', record });
        b.checkins[0].forEach((date, i) => {
          const [sleep_quality, energy, soreness, stress] = b.checkins[1][i]!;
          actions.push({ op: 'create', kind: 'recovery_checkin', record: { date, sleep_quality, energy, soreness, stress } });
        });
        if (b.routine) {
          actions.push({
            op: 'create',
            kind: 'saved_routine',
            record: {
              title: b.routine[0],
              exercises: [{ position: 0, exercise_id: exerciseRefs[exerciseRefs.length - 1], sets: 3, reps: '8-10', target_rpe: null, rest_seconds: 90 }],
              scheduled_dates: b.routine[1],
            },
          });
        }
        if (b.checkin === 'update')
          actions.push({
            op: 'update',
            kind: 'recovery_checkin',
            id: seeded.checkinId,
            base_revision: 1,
            record: { date: seeded.checkinDate, sleep_quality: 5, energy: 5, soreness: 5, stress: 5 },
          });
        if (b.checkin === 'delete') actions.push({ op: 'delete', kind: 'recovery_checkin', id: seeded.checkinId, base_revision: 1 });
        if (b.meal === 'update')
          actions.push({
            op: 'update',
            kind: 'meal',
            id: seeded.mealId,
            base_revision: 1,
            record: { eaten_at: hoursAgo(5), name: 'Porridge', calories_kcal: 300, protein_g: 10, carbohydrate_g: 50, fat_g: 6 },
          });
        if (b.meal === 'delete') actions.push({ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 });
        if (b.workout === 'delete') actions.push({ op: 'delete', kind: 'completed_workout', id: seeded.workoutId, base_revision: 1 });
        if (b.workout === 'update') {
          actions.push({
            op: 'update',
            kind: 'completed_workout',
            id: seeded.workoutId,
            base_revision: 1,
            record: {
              title: 'Leg day, heavier',
              started_at: hoursAgo(27),
              ended_at: hoursAgo(26),
              notes: 'felt strong',
              exercises: [
                { exercise_id: seeded.exerciseId, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 110, reps: 5 })] },
              ],
            },
          });
        }
        return actions;
      })
      .filter((actions) => actions.length > 0);

    const models = () => recordModels(t.app);
    const before = await models();
    const events = async () => (await t.app.events.readStream(`record-${athleteId}`)).length;

    let sets = 0;
    await fc.assert(
      fc.asyncProperty(batch, fc.infiniteStream(fc.nat()), fc.nat(), async (actions, draws, leafPick) => {
        // A connection of its own for each batch: one may have only so many awaiting review.
        const caller = await agentCaller(t.app, athleteId);
        const body = proposalBody(actions) as Json & ReturnType<typeof proposalBody>;
        const proposal = await t.app.proposals.prepare(caller, writeProposalBody.parse(body));
        assert.is(proposal.status, 'prepared');
        assert.is(proposal.changes.length, actions.length);
        assert.equal(await models(), before, 'no read model of the record changed');
        const stored = await events();
        const prepared = (await t.app.events.readStream(streams.record(athleteId))).findLast(
          (e) => e.type === 'proposal.prepared',
        ) as unknown as ProposalPrepared;
        assert.is(prepared.data.command_id, body.command_id);

        // The same body, the keys of every object in it (actions, records, exercises, sets) in
        // another order: the raw body has the digest the service stored, ...
        const iterator = draws[Symbol.iterator]();
        const shuffled = reordered(body, () => iterator.next().value as number);
        assert.is.not(JSON.stringify(shuffled.value), JSON.stringify(body), 'the keys are in another order');
        assert.equal(JSON.parse(JSON.stringify(shuffled.value)), JSON.parse(JSON.stringify(body)), 'and the body is the same');
        if (shuffled.deepest === 5) sets++;
        assert.is(bodyDigest(shuffled.value), bodyDigest(body), 'key order does not change the digest');
        assert.is(bodyDigest(shuffled.value), prepared.data.body_sha256, 'the digest the service stored');
        // ... any one value changed, at any depth, gives another digest, ...
        const places = leaves(body);
        const changed = changedAt(shuffled.value, places[leafPick % places.length]!);
        assert.is.not(bodyDigest(changed), bodyDigest(body), 'a changed value changes the digest');
        // ... and the service answers the reordered body with the same proposal, storing nothing more.
        const replay = await t.app.proposals.prepare(caller, writeProposalBody.parse(JSON.parse(JSON.stringify(shuffled.value))));
        assert.equal(replay, proposal);
        assert.is(await events(), stored);
        assert.equal(await t.app.proposals.get(caller, body.command_id), proposal);
      }),
      { numRuns: 60, includeErrorInReport: true },
    );
    // Most batches hold a workout: the sets in it were reordered too, not only the body and its actions.
    assert.ok(sets > 30, `the sets of a workout were reordered in ${sets} of 60 batches`);
  } finally {
    await t.close();
  }
});

test.run();
