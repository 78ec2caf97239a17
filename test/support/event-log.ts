// A realistic event log, made once by the real services on the embedded store, and the read
// models its inline build produced: what every other way of projecting it (a worker following
// the log, a worker killed and restarted, a replay, another adapter) must arrive at.
//
// New event types and projections join here (proposals prepared, approved, rejected, undone, with
// their receipts, are), and every suite built on this file
// (test/projections/projection-runner.contract.ts, the worker tests, the distributed suites)
// then checks them on every adapter. New collections need nothing: they come from the runner.
import { randomUUID } from 'node:crypto';
import type { RecordItem } from '../../contracts/record.ts';
import type { WriteProposalBody } from '../../contracts/write.ts';
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

/** The log (two athletes, every kind of record item, edits, deletes and a timezone change). */
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
      await change([{ op: 'create', kind: 'checkin', item: { id: randomUUID(), date: '2026-02-10', sleep_quality: 4, energy: null, soreness: 3, stress: 2 } }]);
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
