// A realistic event log, made once by the real services on the embedded store, and the read
// models its inline build produced: what every other way of projecting it (a worker following
// the log, a worker killed and restarted, a replay, another adapter) must arrive at.
//
// New event types and projections join here (proposals prepared, approved, rejected, undone, with
// their receipts, are, and so are the athletes' own edits, saved and undone), and every suite
// built on this file (test/projections/projection-runner.contract.ts, the worker tests, the
// distributed suites) then checks them on every adapter. New collections need nothing: they come
// from the runner.
import { randomUUID } from 'node:crypto';
import type { RecordItem } from '../../contracts/record.ts';
import type { WriteAction, WriteProposalBody } from '../../contracts/write.ts';
import { projections } from '../../projections/index.ts';
import { CHECKPOINTS } from '../../projections/runner.ts';
import type { EventStore, StoredEvent } from '../../services/store/event-store.ts';
import type { ReadStore } from '../../services/store/read-store.ts';
import { dumpReadModels, openTestApp, registerAthlete } from './app.ts';
import { eventually } from './eventually.ts';
import { workoutSet } from './sets.ts';

export interface ReferenceLog {
  events: StoredEvent[];
  /** Every read-model document of the inline build (checkpoints left out), by collection. */
  readModels: Record<string, unknown>;
}

let cached: Promise<ReferenceLog> | null = null;

/** A workout as a proposal sends it: without its id (the action carries it) or its import source. */
function writeShape({ id: _id, source: _source, ...record }: RecordItem<'workout'>) {
  return record;
}

/** The log (two athletes, every kind of record item, edits, deletes, the athletes' own edits and a timezone change). */
export function recordLog(): Promise<ReferenceLog> {
  return (cached ??= build());
}

async function build(): Promise<ReferenceLog> {
  const t = await openTestApp({ now: '2026-03-01T10:00:00.000Z' });
  try {
    for (const [email, timezone] of [
      ['ada@example.com', 'Europe/London'],
      ['bo@example.com', 'America/New_York'],
    ] as const) {
      const athleteId = await registerAthlete(t.app, { email, timezone });
      const actor = { type: 'athlete' as const, id: athleteId };
      const change = (changes: Parameters<typeof t.app.records.change>[1]) => {
        t.clock.advance(60_000);
        return t.app.records.change(athleteId, changes, actor);
      };
      const exercise = randomUUID();
      await change([{ op: 'create', kind: 'exercise', item: { id: exercise, name: 'Squat', muscle_group: null, tracking_type: 'weight_reps' } }]);
      const workouts: Array<RecordItem<'workout'>> = [];
      for (let day = 1; day <= 12; day++) {
        const date = `2026-02-${String(day).padStart(2, '0')}`;
        const workout: RecordItem<'workout'> = {
          id: randomUUID(),
          title: `Session ${day}`,
          started_at: `${date}T07:00:00.000Z`,
          ended_at: `${date}T08:00:00.000Z`,
          notes: null,
          source: null,
          exercises: [
            {
              exercise_id: exercise,
              exercise_order: 0,
              superset_id: null,
              notes: null,
              sets: [0, 1, 2].map((i) => workoutSet(i, { weight_kg: 60 + day * 2.5 + i * 5, reps: 5 + (day % 3) })),
            },
          ],
        };
        workouts.push(workout);
        const meal = {
          id: randomUUID(),
          eaten_at: `${date}T23:30:00.000Z`,
          name: 'Late meal',
          calories_kcal: 500 + day,
          protein_g: 30,
          carbohydrate_g: null,
          fat_g: 12,
        };
        await change([
          { op: 'create', kind: 'workout', item: workout },
          { op: 'create', kind: 'meal', item: meal },
          {
            op: 'create',
            kind: 'body_measurement',
            item: { id: randomUUID(), measured_at: `${date}T06:00:00.000Z`, metric: 'bodyweight', value: 80 - day / 10 },
          },
        ]);
        if (day % 4 === 0) await change([{ op: 'update', kind: 'meal', item: { ...meal, calories_kcal: 900 }, base_revision: 1 }]);
        if (day % 5 === 0) await change([{ op: 'delete', kind: 'meal', id: meal.id, base_revision: 1 }]);
      }
      await change([{ op: 'update', kind: 'workout', item: { ...workouts[3]!, title: 'Renamed' }, base_revision: 1 }]);
      await change([{ op: 'delete', kind: 'workout', id: workouts[7]!.id, base_revision: 1 }]);
      const checkin = randomUUID();
      await change([{ op: 'create', kind: 'checkin', item: { id: checkin, date: '2026-02-10', sleep_quality: 4, energy: null, soreness: 3, stress: 2 } }]);
      // An agent's proposal, prepared on the record stream (the review adds its later moves).
      const { password_hash: _hash, ...account } = (await t.app.athletes.get(athleteId))!;
      const agent = {
        athlete: account,
        grantId: randomUUID(),
        clientId: 'https://agent.example/client.json',
        clientName: 'Agent',
        scopes: ['training' as const],
        writePermissions: ['training:write' as const, 'training:delete' as const],
      };
      // Its life cycle: one approved and later undone, one approved and kept, one rejected, one
      // left to expire; so commits, undos (restores included) and receipts are in the log too.
      const propose = async (actions: WriteProposalBody['actions']) => {
        t.clock.advance(60_000);
        const body = { version: 'agent-access-write.v1' as const, command_id: randomUUID(), actions };
        await t.app.proposals.prepare(agent, body);
        return body.command_id;
      };
      const undone = await propose([
        { op: 'create', kind: 'exercise', ref: 'press', record: { name: 'Press', muscle_group: null, tracking_type: 'weight_reps' } },
        { op: 'update', kind: 'completed_workout', id: workouts[2]!.id, base_revision: 1, record: { ...writeShape(workouts[2]!), title: 'Heavier' } },
        { op: 'delete', kind: 'completed_workout', id: workouts[5]!.id, base_revision: 1 },
      ]);
      await t.app.proposals.approve(athleteId, undone);
      t.clock.advance(60_000);
      await t.app.proposals.undo(athleteId, undone);
      await t.app.proposals.approve(
        athleteId,
        await propose([
          { op: 'update', kind: 'completed_workout', id: workouts[4]!.id, base_revision: 1, record: { ...writeShape(workouts[4]!), title: 'Kept' } },
        ]),
      );
      await t.app.proposals.reject(athleteId, await propose([{ op: 'delete', kind: 'completed_workout', id: workouts[6]!.id, base_revision: 1 }]));
      await propose([{ op: 'delete', kind: 'completed_workout', id: workouts[9]!.id, base_revision: 1 }]);
      // The athlete's own edits from the web app: creates, updates and deletes of several kinds
      // (a workout with the custom exercise it uses, by ref), and the last one undone.
      const edit = (actions: WriteAction[]) => {
        t.clock.advance(60_000);
        return t.app.edits.save(athleteId, timezone, actions);
      };
      const dinner = { eaten_at: '2026-02-20T19:00:00.000Z', name: 'Dinner', calories_kcal: 700, protein_g: 45, carbohydrate_g: 80, fat_g: 20 };
      const sledWorkout = {
        title: 'Sled day',
        started_at: '2026-02-21T07:00:00.000Z',
        ended_at: '2026-02-21T07:40:00.000Z',
        notes: null,
        exercises: [
          { exercise_id: { ref: 'sled' }, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 90, distance_metres: 20 })] },
        ],
      };
      const first = await edit([
        { op: 'create', kind: 'exercise', ref: 'sled', record: { name: 'Sled push', muscle_group: null, tracking_type: 'weight_distance' } },
        { op: 'create', kind: 'completed_workout', record: sledWorkout },
        { op: 'create', kind: 'meal', record: dinner },
        { op: 'create', kind: 'recovery_checkin', record: { date: '2026-02-20', sleep_quality: 2, energy: 3, soreness: 4, stress: 3 } },
        { op: 'create', kind: 'body_measurement', record: { measured_at: '2026-02-20T06:00:00.000Z', metric: 'waist', value: 0.82 } },
        {
          op: 'create',
          kind: 'goal',
          record: { goal_type: 'target_1rm', status: 'active', exercise_id: exercise, target_value: 140, target_unit: 'kg', achieved_at: null },
        },
      ]);
      const [, , dinnerId, checkinId, waistId, goalId] = first.created as string[];
      await edit([
        { op: 'update', kind: 'meal', id: dinnerId!, base_revision: 1, record: { ...dinner, calories_kcal: 750 } },
        {
          op: 'update',
          kind: 'recovery_checkin',
          id: checkinId!,
          base_revision: 1,
          record: { date: '2026-02-20', sleep_quality: 3, energy: 3, soreness: 4, stress: 3 },
        },
        { op: 'delete', kind: 'body_measurement', id: waistId!, base_revision: 1 },
        { op: 'delete', kind: 'recovery_checkin', id: checkin, base_revision: 1 },
      ]);
      const last = await edit([
        {
          op: 'update',
          kind: 'goal',
          id: goalId!,
          base_revision: 1,
          record: {
            goal_type: 'target_1rm',
            status: 'achieved',
            exercise_id: exercise,
            target_value: 140,
            target_unit: 'kg',
            achieved_at: '2026-02-25T08:00:00.000Z',
          },
        },
        { op: 'update', kind: 'completed_workout', id: workouts[10]!.id, base_revision: 1, record: { ...writeShape(workouts[10]!), title: 'Edited' } },
        { op: 'delete', kind: 'completed_workout', id: workouts[11]!.id, base_revision: 1 },
        { op: 'delete', kind: 'meal', id: dinnerId!, base_revision: 2 },
      ]);
      t.clock.advance(60_000);
      await t.app.edits.undo(athleteId, last.edit_id);
      const athlete = (await t.app.athletes.get(athleteId))!;
      await t.app.athletes.updateProfile(email, { ...athlete.profile, timezone: 'Asia/Tokyo' }, actor);
    }
    const events = await t.app.events.readAll(0, 100_000);
    // The suites built on this log prove each projection on every adapter only for the events it holds.
    for (const type of [
      'workout.created',
      'workout.updated',
      'workout.deleted',
      'meal.deleted',
      'athlete.profile_updated',
      'proposal.prepared',
      'proposal.committed',
      'proposal.undone',
      'proposal.rejected',
      'edit.saved',
      'edit.undone',
    ]) {
      if (!events.some((e) => e.type === type)) throw new Error(`the reference log holds no ${type}`);
    }
    return { events, readModels: await dumpReadModels(t.app) };
  } finally {
    await t.close();
  }
}

/**
 * The log with every athlete id replaced by a fresh one, so that it can be appended again to a
 * store that already holds it (a shared server), and `expected` to map the reference read models
 * the same way. `ours` tells this copy's documents from others'.
 */
export function freshAthletes(log: StoredEvent[]): {
  events: StoredEvent[];
  expected: (readModels: Record<string, unknown>) => Record<string, unknown>;
  ours: (row: unknown) => boolean;
} {
  const ids = new Set(log.flatMap((e) => (/^(?:athlete|record)-(.+)$/.exec(e.stream)?.[1] ?? []) as string[]));
  const map = new Map([...ids].map((id) => [id, randomUUID()]));
  const rename = <T>(value: T): T => {
    let json = JSON.stringify(value);
    for (const [from, to] of map) json = json.replaceAll(from, to);
    return JSON.parse(json) as T;
  };
  const fresh = [...map.values()];
  return {
    events: log.map(rename),
    expected: rename,
    ours: (row) => fresh.some((id) => JSON.stringify(row).includes(id)),
  };
}

/**
 * Only the rows `ours` accepts (all, without it), collection by collection, in one order that does
 * not depend on the ids (fresh ids sort differently from the reference's).
 */
export function only(readModels: Record<string, unknown>, ours: (row: unknown) => boolean = () => true): Record<string, unknown> {
  const key = (row: unknown) => JSON.stringify(row);
  return Object.fromEntries(
    Object.entries(readModels).map(([name, rows]) => [name, (rows as unknown[]).filter(ours).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))]),
  );
}

/** Appends events to another store as they were appended: one at a time, in global order. */
export async function copyLog(events: StoredEvent[], to: EventStore): Promise<void> {
  for (const e of events) await to.append(e.stream, [{ type: e.type, data: e.data, metadata: e.metadata }], 'any');
}

/** Every read-model document (checkpoints left out), as `dumpReadModels` lists them. */
export async function readModelsOf(reads: ReadStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const spec of projections.flatMap((p) => p.collections)) out[spec.name] = await reads.dump(spec.name);
  return out;
}

/** The log as it stood at `position`: what a process saw before later appends. */
export function upTo(store: EventStore, position: number): EventStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'readAll') {
        return async (after: number, limit: number) => (await target.readAll(after, limit)).filter((e) => e.position <= position);
      }
      if (key === 'headPosition') return async () => Math.min(position, await target.headPosition());
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Waits until every projection's checkpoint has reached `position`. */
export async function untilProjected(reads: ReadStore, position: number, timeoutMs = 20_000): Promise<void> {
  const names = projections.map((p) => p.name);
  await eventually(
    async () => {
      const docs = await reads.getMany<{ id: string; position: number }>(CHECKPOINTS, 'projections', names);
      return { done: docs.length === names.length && docs.every((d) => d.position >= position), value: docs.map((d) => [d.id, d.position]) };
    },
    { what: `projections reach position ${position}`, timeoutMs, intervalMs: 50 },
  );
}
