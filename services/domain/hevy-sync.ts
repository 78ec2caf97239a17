// The Hevy sync's decider: given the record and what Hevy's workout events feed said since the
// last run, the record events of one run (services/sync/hevy-sync.ts fetches and appends them).
// Pure: the record's state and the bodies of the workouts it may touch in, events out.
//
// How a Hevy workout finds its RepLedger workout (docs/decisions.md, "Hevy sync"):
//   1. by Hevy's id: every workout the sync wrote or adopted carries it (`source.id`), and the
//      record keeps it under `hevy#id:<id>` whatever the workout's title or start became;
//   2. else by the reference a CSV import keeps (start time to the minute + title): a workout
//      imported from a file is adopted (its source gains Hevy's id), never duplicated;
//   3. else, for a title edited in Hevy before the first sync, by start minute alone: adopted when
//      exactly one file-imported Hevy workout not yet linked starts in that minute.
// A new Hevy workout gets an id derived from Hevy's, and the reference a CSV import would compute,
// so a file imported later skips it. Each workout keeps every reference it ever had (the record
// never forgets one), so an export taken before an edit in Hevy is skipped too.
import { isDeepStrictEqual } from 'node:util';
import type { HevyExerciseTemplate, HevyWorkout, HevyWorkoutEvent } from '../../contracts/hevy.ts';
import type { HevySyncedEvent, RecordEvent } from '../../contracts/events.ts';
import { recordItemSchemas, type RecordItem, type WorkoutSet } from '../../contracts/record.ts';
import { CLOCK_SKEW_MS } from './clock.ts';
import { DomainError } from './errors.ts';
import { nameUuid } from './ids.ts';
import { decideChanges, exerciseNameKey, itemKey, live, sourceIdKey, type ItemImage, type RecordChange, type RecordState } from './record.ts';

/** Where a sync of a record that never synced reads from: the feed's beginning (Hevy's default `since`). */
export const HEVY_BEGINNING = '1970-01-01T00:00:00.000Z';
/**
 * The next run reads again this far back from the latest event it saw: a change Hevy stamped a
 * moment before another it had already listed is not missed. What is read twice is unchanged (its
 * `updated_at` is no later than the version applied), so it writes nothing.
 */
export const HEVY_OVERLAP_MS = 5 * 60_000;
/** Skipped workouts named in the run's event (all are counted). */
const SKIPPED_NAMED = 20;

export interface HevySyncCommand {
  /** Where this run read the feed from (the record's position, or HEVY_BEGINNING). */
  since: string;
  /** Every event the feed listed since then, as Hevy lists them (newest first). */
  events: readonly HevyWorkoutEvent[];
  /** The exercise templates of the exercises new to the record, by Hevy's template id. */
  templates: ReadonlyMap<string, HevyExerciseTemplate>;
  now: Date;
}

export type HevySyncSummary = HevySyncedEvent['data'];

export interface HevySyncDecision {
  /** The record events and the run's `hevy.synced`; none when nothing changed and the position stays. */
  events: RecordEvent[];
  summary: HevySyncSummary;
}

/** Each workout's latest event, oldest first: a workout edited twice, or edited then deleted, is what it is now. */
export function latestEvents(events: readonly HevyWorkoutEvent[]): HevyWorkoutEvent[] {
  const seen = new Set<string>();
  const latest: HevyWorkoutEvent[] = [];
  // Hevy lists the newest first; events of one workout whose times say otherwise are ordered by time.
  const ordered = [...events].map((e, i) => ({ e, i, at: eventTime(e) })).sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity) || a.i - b.i);
  for (const { e } of ordered) {
    const id = hevyIdOf(e);
    if (seen.has(id)) continue;
    seen.add(id);
    latest.push(e);
  }
  return latest.reverse();
}

const hevyIdOf = (e: HevyWorkoutEvent) => (e.type === 'updated' ? e.workout.id : e.id);

function eventTime(e: HevyWorkoutEvent): number | null {
  const text = e.type === 'updated' ? (e.workout.updated_at ?? e.workout.created_at) : e.deleted_at;
  const t = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(t) ? null : t;
}

/** The instant to the minute, as a CSV import writes a Hevy start (exports have minutes). */
function minuteOf(iso: string): string {
  const t = Date.parse(iso);
  return new Date(t - (((t % 60_000) + 60_000) % 60_000)).toISOString();
}

/** The reference a Hevy CSV import keeps for a workout (services/import/hevy.ts), as the record keys it. */
const csvRefKey = (startMinute: string, title: string) => `hevy:hevy:${startMinute}:${title}`;

/** The workouts a Hevy workout may be, by the three ways above, in order of preference. */
function candidatesFor(w: HevyWorkout, state: RecordState, byStart: () => Map<string, string[]>): { linked: string | null; others: string[]; byRef: boolean } {
  const linked = state.workoutIdBySourceRef.get(sourceIdKey('hevy', w.id)) ?? null;
  if (linked) return { linked, others: [], byRef: false };
  const start = Date.parse(w.start_time);
  if (Number.isNaN(start)) return { linked: null, others: [], byRef: false };
  const minute = minuteOf(w.start_time);
  const byRef = state.workoutIdBySourceRef.get(csvRefKey(minute, w.title.trim()));
  if (byRef) return { linked: null, others: [byRef], byRef: true };
  return { linked: null, others: byStart().get(minute) ?? [], byRef: false };
}

/**
 * File-imported Hevy workouts by the minute they start, from every reference the record keeps
 * (reading them all: a fold read from a snapshot loads that section whole, once).
 */
function workoutsByStart(state: RecordState): Map<string, string[]> {
  const byStart = new Map<string, string[]>();
  for (const [key, id] of state.workoutIdBySourceRef) {
    const m = /^hevy:hevy:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z):/.exec(key);
    if (!m) continue;
    const list = byStart.get(m[1]!) ?? [];
    if (!list.includes(id)) list.push(id);
    byStart.set(m[1]!, list);
  }
  return byStart;
}

/** The item keys (`workout/<id>`) whose bodies `decideHevySync` reads: each Hevy workout's candidates. */
export function hevySyncKeys(command: HevySyncCommand, state: RecordState): Set<string> {
  const keys = new Set<string>();
  let byStart: Map<string, string[]> | null = null;
  const starts = () => (byStart ??= workoutsByStart(state));
  for (const e of latestEvents(command.events)) {
    if (e.type === 'deleted') {
      const linked = state.workoutIdBySourceRef.get(sourceIdKey('hevy', e.id));
      if (linked) keys.add(itemKey('workout', linked));
      continue;
    }
    const { linked, others } = candidatesFor(e.workout, state, starts);
    for (const id of linked ? [linked] : others) keys.add(itemKey('workout', id));
  }
  return keys;
}

/**
 * One run's decision. `images` holds the current bodies of `hevySyncKeys`' items. A Hevy workout
 * the record cannot hold (over a bound, an empty title, ending in the future) is skipped and
 * named, not allowed to hold up the rest: the run goes on, and its position with it.
 */
export function decideHevySync(command: HevySyncCommand, state: RecordState, images: ReadonlyMap<string, ItemImage>): HevySyncDecision {
  const skipped = new Map<string, string>();
  for (let attempt = 0; ; attempt++) {
    const plan = planRun(command, state, images, skipped);
    try {
      const events = plan.changes.length > 0 ? decideChanges(plan.changes, state) : [];
      return finish(command, plan, events, skipped);
    } catch (error) {
      // The record's own rules refused one workout's change: that workout is skipped, the rest decided again.
      const owner = error instanceof DomainError ? ownerOf(error, plan.owners) : null;
      if (owner === null || attempt > plan.owners.length) throw error;
      skipped.set(owner, `refused by the record: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300));
    }
  }
}

function ownerOf(error: DomainError, owners: readonly string[]): string | null {
  const m = /^changes\[(\d+)\]/.exec(error.issues[0]?.path ?? '');
  if (m) return owners[Number(m[1])] ?? null;
  // A batch of one change names no index.
  return owners.length === 1 ? owners[0]! : null;
}

interface Plan {
  changes: RecordChange[];
  /** The Hevy workout each change is for, by index. */
  owners: string[];
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  exercisesAdded: number;
}

function planRun(command: HevySyncCommand, state: RecordState, images: ReadonlyMap<string, ItemImage>, skipped: Map<string, string>): Plan {
  const plan: Plan = { changes: [], owners: [], created: 0, updated: 0, deleted: 0, unchanged: 0, exercisesAdded: 0 };
  const newExercises = new Map<string, string>();
  /** Workouts adopted in this run: one Hevy workout each. */
  const claimed = new Set<string>();
  let byStart: Map<string, string[]> | null = null;
  const starts = () => (byStart ??= workoutsByStart(state));

  for (const e of latestEvents(command.events)) {
    const hevyId = hevyIdOf(e);
    if (skipped.has(hevyId)) continue;
    if (e.type === 'deleted') {
      const linked = state.workoutIdBySourceRef.get(sourceIdKey('hevy', e.id));
      const current = linked ? live(state, 'workout', linked) : null;
      if (linked && current) {
        plan.changes.push({ op: 'delete', kind: 'workout', id: linked, base_revision: current.revision });
        plan.owners.push(hevyId);
        plan.deleted++;
      }
      continue;
    }
    const w = e.workout;
    const { linked, others, byRef } = candidatesFor(w, state, starts);
    // The very workout a file brought (its start and title), deleted in RepLedger since: as for a
    // synced one the athlete deleted, the sync does not bring it back.
    if (!linked && byRef && state.items.get(itemKey('workout', others[0]!))?.deleted) {
      skipped.set(hevyId, 'deleted in RepLedger: not brought back');
      continue;
    }
    let target = linked;
    if (!target) {
      // An adoptable workout: live, imported from Hevy, not yet any Hevy workout's.
      const free = others.filter((id) => {
        const body = images.get(itemKey('workout', id))?.item as RecordItem<'workout'> | null | undefined;
        return body && body.source?.app === 'hevy' && !body.source.id && !claimed.has(id);
      });
      // By reference there is one; by start minute alone, one is taken only when it is the only one.
      if (free.length === 1) target = free[0]!;
    }
    const exists = target ? state.items.get(itemKey('workout', target)) : undefined;
    if (target && exists?.deleted) {
      skipped.set(hevyId, 'deleted in RepLedger: not brought back');
      continue;
    }
    const current = target ? (images.get(itemKey('workout', target))?.item as RecordItem<'workout'> | null | undefined) : null;
    const version = current?.source?.id === w.id ? current.source.version : undefined;
    if (current && version !== undefined && w.updated_at !== undefined && !(Date.parse(w.updated_at) > Date.parse(version))) {
      plan.unchanged++;
      continue;
    }
    const workoutId = target ?? nameUuid(`${state.athleteId}/workout/${sourceIdKey('hevy', w.id)}`);
    const refused = refusalOf(w, command.now);
    if (refused) {
      skipped.set(hevyId, refused);
      continue;
    }
    const exerciseChanges: Array<{ op: 'create'; kind: 'exercise'; item: RecordItem<'exercise'> }> = [];
    const exerciseIdOf = (title: string, template: HevyExerciseTemplate | undefined, sets: WorkoutSet[]) => {
      const key = exerciseNameKey(title);
      const known = state.exerciseIdByName.get(key) ?? newExercises.get(key);
      if (known) return known;
      const id = nameUuid(`${state.athleteId}/exercise/${key}`);
      newExercises.set(key, id);
      exerciseChanges.push({
        op: 'create',
        kind: 'exercise',
        item: { id, name: title.trim(), muscle_group: template?.primary_muscle_group?.slice(0, 50) || null, tracking_type: trackingTypeOf(template, sets) },
      });
      return id;
    };
    const before = new Map(newExercises);
    const item = workoutItem(w, workoutId, (ex, sets) => exerciseIdOf(ex.title, command.templates.get(ex.exercise_template_id ?? ''), sets));
    const invalid = invalidItem(item) ?? exerciseChanges.map((c) => invalidExercise(c.item)).find((x) => x !== null) ?? null;
    if (invalid) {
      // Its new exercises go with it.
      newExercises.clear();
      for (const [k, v] of before) newExercises.set(k, v);
      skipped.set(hevyId, invalid);
      continue;
    }
    if (current && isDeepStrictEqual(item, current)) {
      plan.unchanged++;
      continue;
    }
    for (const change of exerciseChanges) {
      plan.changes.push(change);
      plan.owners.push(hevyId);
      plan.exercisesAdded++;
    }
    if (target) {
      claimed.add(target);
      plan.changes.push({ op: 'update', kind: 'workout', item, base_revision: exists!.revision });
      plan.updated++;
    } else {
      plan.changes.push({ op: 'create', kind: 'workout', item });
      plan.created++;
    }
    plan.owners.push(hevyId);
  }
  return plan;
}

function finish(command: HevySyncCommand, plan: Plan, events: RecordEvent[], skipped: ReadonlyMap<string, string>): HevySyncDecision {
  const times = command.events.map(eventTime).filter((t): t is number => t !== null);
  const latest = times.length ? Math.max(...times) - HEVY_OVERLAP_MS : -Infinity;
  const since = Date.parse(command.since);
  const nextSince = latest > since ? new Date(latest).toISOString() : new Date(since).toISOString();
  const summary: HevySyncSummary = {
    since: new Date(since).toISOString(),
    next_since: nextSince,
    events_read: command.events.length,
    workouts_created: plan.created,
    workouts_updated: plan.updated,
    workouts_deleted: plan.deleted,
    workouts_unchanged: plan.unchanged,
    exercises_added: plan.exercisesAdded,
    skipped: [...skipped].slice(0, SKIPPED_NAMED).map(([hevy_id, reason]) => ({ hevy_id: hevy_id.slice(0, 100), reason })),
    skipped_count: skipped.size,
  };
  if (events.length === 0 && nextSince === summary.since) return { events: [], summary };
  return { events: [...events, { type: 'hevy.synced', data: summary }], summary };
}

/** Why the record cannot take this Hevy workout at all, before it is built; null when it can. */
function refusalOf(w: HevyWorkout, now: Date): string | null {
  const start = Date.parse(w.start_time);
  const end = Date.parse(w.end_time);
  if (Number.isNaN(start) || Number.isNaN(end)) return 'its start or end is not a time';
  if (end < start) return 'it ends before it starts';
  if (end > now.getTime() + CLOCK_SKEW_MS) return 'it ends in the future';
  return null;
}

function invalidItem(item: RecordItem<'workout'>): string | null {
  const parsed = recordItemSchemas.workout.safeParse(item);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return `not a workout the record can hold: ${issue.path.join('.')}: ${issue.message}`.slice(0, 300);
}

function invalidExercise(item: unknown): string | null {
  const parsed = recordItemSchemas.exercise.safeParse(item);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return `an exercise the record cannot hold: ${issue.path.join('.')}: ${issue.message}`.slice(0, 300);
}

/** The record's workout for a Hevy workout: canonical units already (Hevy's API speaks kilograms, metres, seconds). */
function workoutItem(
  w: HevyWorkout,
  id: string,
  exerciseIdOf: (exercise: HevyWorkout['exercises'][number], sets: WorkoutSet[]) => string,
): RecordItem<'workout'> {
  const title = w.title.trim();
  const startedAt = new Date(w.start_time).toISOString();
  const source: NonNullable<RecordItem<'workout'>['source']> = { app: 'hevy', ref: `hevy:${minuteOf(w.start_time)}:${title}`, id: w.id };
  if (w.updated_at !== undefined && !Number.isNaN(Date.parse(w.updated_at))) source.version = new Date(w.updated_at).toISOString();
  return {
    id,
    title,
    started_at: startedAt,
    ended_at: new Date(w.end_time).toISOString(),
    notes: textOrNull(w.description),
    exercises: [...w.exercises]
      .map((e, i) => ({ e, i }))
      .sort((a, b) => (a.e.index ?? a.i) - (b.e.index ?? b.i) || a.i - b.i)
      .map(({ e }, order) => {
        const sets = setsOf(e.sets);
        return {
          exercise_id: exerciseIdOf(e, sets),
          exercise_order: order,
          superset_id: e.supersets_id === null || e.supersets_id === undefined ? null : nameUuid(`${id}/superset/${e.supersets_id}`),
          notes: textOrNull(e.notes),
          sets,
        };
      }),
    source,
  };
}

const textOrNull = (text: string | null | undefined) => (text === null || text === undefined || text.trim() === '' ? null : text);

const SET_TYPES: Record<string, WorkoutSet['set_type']> = { normal: 'normal', warmup: 'warmup', failure: 'failure', dropset: 'drop_set' };

/** Sets in Hevy's order; drop sets hang off the nearest earlier set that is not one (as the CSV import does). */
function setsOf(sets: HevyWorkout['exercises'][number]['sets']): WorkoutSet[] {
  let parent: number | null = null;
  return [...sets]
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (a.s.index ?? a.i) - (b.s.index ?? b.i) || a.i - b.i)
    .map(({ s }, i) => {
      const type = SET_TYPES[(s.type ?? 'normal').toLowerCase()] ?? 'normal';
      const set: WorkoutSet = {
        position: i,
        set_number: i + 1,
        set_type: type,
        parent_position: type === 'drop_set' ? parent : null,
        weight_kg: s.weight_kg ?? null,
        reps: s.reps ?? null,
        rpe: s.rpe ?? null,
        target_rpe: null,
        // Hevy's 0 in these means "not tracked" (as in its CSV export).
        duration_seconds: s.duration_seconds ? Math.round(s.duration_seconds) : null,
        distance_metres: s.distance_meters ? s.distance_meters : null,
        incline_percent: null,
        // A saved Hevy workout holds the sets logged as done.
        completed: true,
      };
      if (type !== 'drop_set') parent = i;
      return set;
    });
}

/** Hevy's exercise types (its templates' `type`) as the record's tracking types; unknown ones from the sets, as an import does. */
const TRACKING: Record<string, RecordItem<'exercise'>['tracking_type']> = {
  weight_reps: 'weight_reps',
  reps_only: 'bodyweight',
  bodyweight_reps: 'bodyweight',
  bodyweight_assisted_reps: 'bodyweight',
  weighted_bodyweight: 'weight_reps',
  duration: 'duration',
  weight_duration: 'weight_reps',
  distance_duration: 'distance',
  short_distance_weight: 'weight_distance',
};

function trackingTypeOf(template: HevyExerciseTemplate | undefined, sets: readonly WorkoutSet[]): RecordItem<'exercise'>['tracking_type'] {
  const known = template?.type ? TRACKING[template.type] : undefined;
  if (known) return known;
  const has = (f: (s: WorkoutSet) => number | null) => sets.some((s) => f(s) !== null && f(s) !== 0);
  if (has((s) => s.distance_metres)) return has((s) => s.weight_kg) ? 'weight_distance' : 'distance';
  if (has((s) => s.weight_kg)) return 'weight_reps';
  if (has((s) => s.reps)) return 'bodyweight';
  return has((s) => s.duration_seconds) ? 'duration' : 'weight_reps';
}

/** The exercise templates a run must read: those of exercises the record does not know by name. */
export function templatesNeeded(events: readonly HevyWorkoutEvent[], state: RecordState): string[] {
  const needed = new Set<string>();
  for (const e of events) {
    if (e.type !== 'updated') continue;
    for (const x of e.workout.exercises) {
      if (x.exercise_template_id && !state.exerciseIdByName.has(exerciseNameKey(x.title))) needed.add(x.exercise_template_id);
    }
  }
  return [...needed];
}
