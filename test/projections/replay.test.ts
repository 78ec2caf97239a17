// Read models built incrementally (one append at a time) equal read models rebuilt from zero.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import { ACTIVITY_RUNS } from '../../projections/activity.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { RECORD_INDICATORS, type RecordEntryDoc } from '../../projections/record-entries.ts';
import { CHECKPOINTS } from '../../projections/runner.ts';
import type { App } from '../../services/app.ts';
import { DomainError } from '../../services/domain/errors.ts';
import { dumpReadModels, openTestApp, registerAthlete, tempDir } from '../support/app.ts';

const ZONES = ['Europe/London', 'America/New_York', 'Asia/Tokyo', 'Pacific/Auckland'];

type Step =
  | {
      kind: 'workout' | 'routine' | 'goal' | 'checkin' | 'meal' | 'body_measurement' | 'feedback';
      action: 'create' | 'update' | 'delete';
      pick: number;
      seed: number;
    }
  | { kind: 'timezone'; zone: string }
  | { kind: 'exercise'; seed: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constantFrom('workout', 'routine', 'goal', 'checkin', 'meal', 'body_measurement', 'feedback' as const),
      action: fc.constantFrom('create', 'create', 'update', 'delete' as const),
      pick: fc.nat(5),
      seed: fc.nat(1_000_000),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('timezone' as const), zone: fc.constantFrom(...ZONES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('exercise' as const), seed: fc.nat(1000) }) },
);

/** A small model of what exists, to turn random steps into mostly valid commands. */
interface Model {
  athleteId: string;
  exercises: string[];
  live: Map<RecordKind, Map<string, number>>;
}

const iso = (seed: number, offsetDays = 0) => new Date(Date.UTC(2026, 0, 1) + ((seed % 150) + offsetDays) * 86_400_000 + (seed % 86_400) * 1000).toISOString();

function itemFor(kind: Step['kind'], id: string, seed: number, m: Model): RecordItem | null {
  const exercise = m.exercises[seed % m.exercises.length]!;
  switch (kind) {
    case 'workout':
      return {
        id,
        title: `Session ${seed % 7}`,
        started_at: seed % 5 === 0 ? null : iso(seed),
        ended_at: iso(seed + 3600),
        notes: null,
        source: null,
        exercises: [
          {
            exercise_id: exercise,
            exercise_order: 0,
            superset_id: null,
            notes: null,
            sets: Array.from({ length: 1 + (seed % 4) }, (_, i) => ({
              position: i,
              set_number: i + 1,
              set_type: i === 0 ? 'warmup' : 'normal',
              parent_position: null,
              weight_kg: 20 + ((seed + i) % 100),
              reps: 1 + ((seed * (i + 1)) % 12),
              rpe: null,
              target_rpe: null,
              duration_seconds: null,
              distance_metres: null,
              incline_percent: null,
              completed: (seed + i) % 7 !== 0,
            })),
          },
        ],
      };
    case 'routine':
      return {
        id,
        title: `Plan ${seed % 9}`,
        exercises: [{ position: 0, exercise_id: exercise, sets: 1 + (seed % 5), reps: '8-12', target_rpe: null, rest_seconds: 90 }],
        scheduled_dates: [],
      };
    case 'goal':
      return {
        id,
        goal_type: 'target_1rm',
        status: 'active',
        exercise_id: exercise,
        target_value: 100 + (seed % 50),
        target_unit: seed % 2 ? 'kg' : 'lbs',
        achieved_at: null,
      };
    case 'checkin': {
      const date = iso(seed).slice(0, 10);
      return { id, date, sleep_quality: 1 + (seed % 5), energy: null, soreness: 3, stress: 1 + ((seed >> 3) % 5) };
    }
    case 'meal':
      return { id, eaten_at: iso(seed), name: 'Porridge', calories_kcal: 300 + (seed % 400), protein_g: 20, carbohydrate_g: null, fat_g: 10 };
    case 'body_measurement':
      return { id, measured_at: iso(seed), metric: 'bodyweight', value: 60 + (seed % 30) };
    case 'feedback': {
      const workouts = [...(m.live.get('workout')?.keys() ?? [])];
      if (workouts.length === 0) return null;
      return { id: workouts[seed % workouts.length]!, difficulty: 'as_expected', next_time_intent: seed % 2 ? 'keep' : 'review', recorded_at: iso(seed, 1) };
    }
    default:
      return null;
  }
}

async function run(app: App, m: Model, s: Step, clockAdvance: () => void): Promise<void> {
  clockAdvance();
  const actor = { type: 'athlete' as const, id: m.athleteId };
  try {
    if (s.kind === 'timezone') {
      const athlete = (await app.athletes.get(m.athleteId))!;
      await app.athletes.updateProfile(athlete.email, { ...athlete.profile, timezone: s.zone }, actor);
      return;
    }
    if (s.kind === 'exercise') {
      const id = randomUUID();
      await app.records.change(
        m.athleteId,
        [{ op: 'create', kind: 'exercise', item: { id, name: `Lift ${s.seed}`, muscle_group: null, tracking_type: 'weight_reps' } }],
        actor,
      );
      m.exercises.push(id);
      return;
    }
    const live = m.live.get(s.kind) ?? new Map<string, number>();
    m.live.set(s.kind, live);
    const ids = [...live.keys()];
    if (s.action === 'create' || ids.length === 0) {
      const item = itemFor(s.kind, randomUUID(), s.seed, m);
      if (!item || (s.kind === 'feedback' && live.has(item.id))) return;
      await app.records.change(m.athleteId, [{ op: 'create', kind: s.kind, item }], actor);
      live.set(item.id, 1);
      return;
    }
    const id = ids[s.pick % ids.length]!;
    const revision = live.get(id)!;
    if (s.action === 'delete') {
      await app.records.change(m.athleteId, [{ op: 'delete', kind: s.kind, id, base_revision: revision }], actor);
      live.delete(id);
      if (s.kind === 'workout') m.live.get('feedback')?.delete(id);
      return;
    }
    const item = itemFor(s.kind, id, s.seed, m);
    if (!item || item.id !== id) return;
    await app.records.change(m.athleteId, [{ op: 'update', kind: s.kind, item, base_revision: revision }], actor);
    live.set(id, revision + 1);
  } catch (error) {
    // Random steps may break a rule (a check-in date taken); the refusal writes nothing.
    if (!(error instanceof DomainError)) throw error;
  }
}

test('replay from zero rebuilds exactly the incrementally built read models', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), fc.constantFrom(...ZONES), async (steps, zone) => {
      const t = await openTestApp();
      try {
        const athleteId = await registerAthlete(t.app, { timezone: zone });
        const model: Model = { athleteId, exercises: [], live: new Map() };
        await run(t.app, model, { kind: 'exercise', seed: 0 }, () => undefined);
        for (const s of steps) await run(t.app, model, s, () => t.clock.advance(61_000));
        const incremental = await dumpReadModels(t.app);
        await t.app.runner.replay();
        assert.equal(await dumpReadModels(t.app), incremental);
        // A single projection rebuilt on its own agrees too.
        await t.app.runner.replay(['workouts']);
        assert.equal(await dumpReadModels(t.app), incremental);
      } finally {
        await t.close();
      }
    }),
    { numRuns: 25 },
  );
});

test('an event delivered twice changes nothing', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app);
    const model: Model = { athleteId, exercises: [], live: new Map() };
    await run(t.app, model, { kind: 'exercise', seed: 1 }, () => undefined);
    for (let i = 0; i < 6; i++) await run(t.app, model, { kind: 'workout', action: 'create', pick: 0, seed: i * 977 }, () => t.clock.advance(1000));
    await run(t.app, model, { kind: 'feedback', action: 'create', pick: 0, seed: 5 }, () => undefined);
    const before = await dumpReadModels(t.app);
    const all = await t.app.events.readAll(0, 10_000);
    await t.app.reads.transaction((docs) => t.app.runner.apply(all, docs));
    await t.app.reads.transaction((docs) => t.app.runner.apply(all.slice(3), docs));
    assert.equal(await dumpReadModels(t.app), before);
  } finally {
    await t.close();
  }
});

test('events appended while a replay runs are in the swapped-in read models', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app);
    const model: Model = { athleteId, exercises: [], live: new Map() };
    await run(t.app, model, { kind: 'exercise', seed: 2 }, () => undefined);
    for (let i = 0; i < 30; i++) await run(t.app, model, { kind: 'meal', action: 'create', pick: 0, seed: i * 31 }, () => t.clock.advance(1000));
    let appending: Promise<unknown> | null = null;
    const replay = t.app.runner.replay(undefined, () => {
      // An append started between replay batches lands in the old collections and in the log.
      appending ??= run(t.app, model, { kind: 'meal', action: 'create', pick: 0, seed: 4242 }, () => undefined);
    });
    await replay;
    assert.ok(appending, 'the append started while the replay ran');
    // Waited for, not slept on: whenever it commits, before or after the swap, it must be there.
    await appending;
    const meals = await t.app.reads.count('meals', athleteId);
    assert.is(meals, 31);
    const status = await t.app.runner.status();
    assert.ok(
      status.every((s) => s.lag_events === 0),
      JSON.stringify(status),
    );
  } finally {
    await t.close();
  }
});

test('a timezone change moves local dates of workouts, meals and measurements', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app, { timezone: 'Europe/London' });
    const model: Model = { athleteId, exercises: [], live: new Map() };
    await run(t.app, model, { kind: 'exercise', seed: 3 }, () => undefined);
    const actor = { type: 'athlete' as const, id: athleteId };
    const workout = itemFor('workout', randomUUID(), 11, model) as RecordItem<'workout'>;
    workout.started_at = '2026-03-02T23:30:00.000Z';
    workout.ended_at = '2026-03-03T00:30:00.000Z';
    await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: workout }], actor);
    await t.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'meal',
          item: {
            id: randomUUID(),
            eaten_at: '2026-03-02T23:30:00.000Z',
            name: 'Late snack',
            calories_kcal: 200,
            protein_g: null,
            carbohydrate_g: null,
            fat_g: null,
          },
        },
      ],
      actor,
    );
    const localDates = async () => [
      (await t.app.reads.get<{ id: string; local_date: string }>('workouts', athleteId, workout.id))!.local_date,
      (await t.app.reads.dump('meals')).map((r) => (r.doc as ItemDoc & { local_date: string }).local_date)[0],
    ];
    assert.equal(await localDates(), ['2026-03-02', '2026-03-02']);
    await t.app.athletes.updateProfile('ada@example.com', { ...(await t.app.athletes.get(athleteId))!.profile, timezone: 'Europe/Berlin' }, actor);
    assert.equal(await localDates(), ['2026-03-03', '2026-03-03']);
  } finally {
    await t.close();
  }
});

test('exercise history puts each workout on the same local date as the workouts list', async () => {
  const t = await openTestApp({ now: '2026-03-01T10:00:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app);
    const model: Model = { athleteId, exercises: [], live: new Map() };
    await run(t.app, model, { kind: 'exercise', seed: 4 }, () => undefined);
    const actor = { type: 'athlete' as const, id: athleteId };
    const full = itemFor('workout', randomUUID(), 12, model) as RecordItem<'workout'>;
    // Created without a start and without exercises; exercises added two days later.
    const bare = { ...full, started_at: null, ended_at: '2026-03-01T09:00:00.000Z', exercises: [] };
    await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: bare }], actor);
    t.clock.set('2026-03-03T10:00:00.000Z');
    await t.app.records.change(
      athleteId,
      [{ op: 'update', kind: 'workout', item: { ...full, started_at: null, ended_at: '2026-03-01T09:00:00.000Z' }, base_revision: 1 }],
      actor,
    );
    // A workout that had a start and loses it falls back to its creation time in both.
    const started = { ...full, id: randomUUID(), started_at: '2026-02-20T08:00:00.000Z', ended_at: '2026-02-20T09:00:00.000Z' };
    await t.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: started }], actor);
    await t.app.records.change(athleteId, [{ op: 'update', kind: 'workout', item: { ...started, started_at: null }, base_revision: 1 }], actor);

    const summaries = new Map((await t.app.reads.dump('workouts')).map((r) => [r.doc.id, (r.doc as ItemDoc & { local_date: string }).local_date]));
    const history = (await t.app.reads.dump(RECORD_INDICATORS)).map((r) => r.doc as RecordEntryDoc);
    assert.equal(summaries.get(full.id), '2026-03-01');
    assert.equal(summaries.get(started.id), '2026-03-03');
    assert.is(history.length, 2);
    for (const h of history) assert.is(h.local_date, summaries.get(h.workout_id), h.workout_id);
  } finally {
    await t.close();
  }
});

test('a projection whose version changed is replayed when the store is next opened', async () => {
  const dataDir = tempDir();
  let t = await openTestApp({ dataDir });
  const athleteId = await registerAthlete(t.app);
  const workout = (id: string, day: number): RecordItem<'workout'> => ({
    id,
    title: 'S',
    started_at: `2026-05-${String(day).padStart(2, '0')}T08:00:00.000Z`,
    ended_at: `2026-05-${String(day).padStart(2, '0')}T09:00:00.000Z`,
    notes: null,
    source: null,
    exercises: [],
  });
  await t.app.records.change(
    athleteId,
    [4, 12, 26].map((d) => ({ op: 'create' as const, kind: 'workout' as const, item: workout(randomUUID(), d) })),
    { type: 'athlete', id: athleteId },
  );
  const built = await dumpReadModels(t.app);
  // As an older build left it: version 1 of the activity projection, which kept no runs.
  await t.app.reads.upsert(CHECKPOINTS, 'projections', { ...(await t.app.reads.get(CHECKPOINTS, 'projections', 'activity'))!, version: 1 });
  await t.app.reads.deleteWhere(ACTIVITY_RUNS, athleteId, 'by_id', []);
  assert.equal(await t.app.runner.outdated(), ['activity']);
  await t.close();

  t = await openTestApp({ dataDir });
  try {
    assert.equal(await t.app.runner.outdated(), []);
    assert.equal(await dumpReadModels(t.app), built);
  } finally {
    await t.close();
  }
});

test.run();
