// The athlete's record: one event stream per athlete. `decide` turns a command into events or
// refuses it; `evolve` folds events into the little state decisions need (revisions, live ids,
// check-in dates, exercise names, imported workouts). Item bodies live in events and read models.
import type { z } from 'zod';
import { recordChangeOf, type RecordEvent } from '../../contracts/events.ts';
import { dateTime } from '../../contracts/common.ts';
import { canonicalGoalTarget, recordItemSchemas, type RecordItem, type RecordKind } from '../../contracts/record.ts';
import { DomainError } from './errors.ts';
import { PartialMap } from './partial-map.ts';

export interface ItemState {
  revision: number;
  deleted: boolean;
}

/**
 * The maps a record may grow without bound in are partial (`PartialMap`): a fold read from a
 * snapshot holds only the buckets its commands have asked for. The section names which snapshot
 * rows carry them: an item's row carries its state and the exercises it uses.
 */
export interface RecordState {
  athleteId: string;
  items: PartialMap<ItemState>;
  checkinIdByDate: Map<string, string>;
  checkinDateById: Map<string, string>;
  exerciseIdByName: Map<string, string>;
  workoutIdBySourceRef: PartialMap<string>;
  importedFiles: Set<string>;
  /** Each sync's position (`hevy` → the `since` of its next run), moved by its `<source>.synced` event. */
  syncPositions: Map<string, string>;
  /** The exercises each live workout, routine and goal uses, by item key: an exercise in use stays. */
  exerciseUses: PartialMap<readonly string[]>;
}

export const itemKey = (kind: RecordKind, id: string) => `${kind}/${id}`;
/**
 * The key under which `workoutIdBySourceRef` also finds a workout by its id in the source app
 * (`hevy#id:<Hevy's id>`): `#` is in no app's name, so it meets no `app:ref` key.
 */
export const sourceIdKey = (app: string, id: string) => `${app}#id:${id}`;
export const exerciseNameKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');

export function initialRecordState(athleteId: string): RecordState {
  return {
    athleteId,
    items: new PartialMap('items'),
    checkinIdByDate: new Map(),
    checkinDateById: new Map(),
    exerciseIdByName: new Map(),
    workoutIdBySourceRef: new PartialMap('source_refs'),
    importedFiles: new Set(),
    syncPositions: new Map(),
    exerciseUses: new PartialMap('items'),
  };
}

export function cloneRecordState(s: RecordState): RecordState {
  return {
    athleteId: s.athleteId,
    // Item states and exercise-use arrays are replaced, never changed, so sharing them is safe.
    items: PartialMap.copyOf(s.items),
    checkinIdByDate: new Map(s.checkinIdByDate),
    checkinDateById: new Map(s.checkinDateById),
    exerciseIdByName: new Map(s.exerciseIdByName),
    workoutIdBySourceRef: PartialMap.copyOf(s.workoutIdBySourceRef),
    importedFiles: new Set(s.importedFiles),
    syncPositions: new Map(s.syncPositions),
    exerciseUses: PartialMap.copyOf(s.exerciseUses),
  };
}

/** What puts back each write `evolve` made, for a decision that tries a batch on the state itself. */
type UndoLog = Array<() => void>;

function put<K, V>(map: Map<K, V>, key: K, value: V, undo: UndoLog | null): void {
  if (undo) undo.push(restorer(map, key));
  map.set(key, value);
}

function remove<K, V>(map: Map<K, V>, key: K, undo: UndoLog | null): void {
  if (undo && map.has(key)) undo.push(restorer(map, key));
  map.delete(key);
}

/** Puts `key` back as it is now. Entry order may change: nothing reads the state's maps in order. */
function restorer<K, V>(map: Map<K, V>, key: K): () => void {
  if (!map.has(key)) return () => map.delete(key);
  const value = map.get(key)!;
  return () => map.set(key, value);
}

/** Applies one event. Updates `state` in place (the fold owns it) and returns it. */
export function evolve(state: RecordState, event: RecordEvent): RecordState {
  return evolveLogged(state, event, null);
}

/** `evolve`, recording in `undo` (when given) how to take each write back. */
function evolveLogged(state: RecordState, event: RecordEvent, undo: UndoLog | null): RecordState {
  if (event.type === 'import.completed') {
    const file = event.data.file_sha256;
    if (undo && !state.importedFiles.has(file)) undo.push(() => state.importedFiles.delete(file));
    state.importedFiles.add(file);
    return state;
  }
  if (event.type === 'hevy.synced') {
    put(state.syncPositions, 'hevy', event.data.next_since, undo);
    return state;
  }
  const change = recordChangeOf(event.type);
  if (!change) return state;
  const { kind, op } = change;
  const id = 'item' in event.data ? (event.data.item as { id: string }).id : event.data.id;
  put(state.items, itemKey(kind, id), { revision: event.data.revision, deleted: op === 'deleted' }, undo);

  if (kind === 'checkin') {
    const previous = state.checkinDateById.get(id);
    if (previous !== undefined) remove(state.checkinIdByDate, previous, undo);
    remove(state.checkinDateById, id, undo);
    if (op !== 'deleted') {
      const date = (event.data as { item: RecordItem<'checkin'> }).item.date;
      put(state.checkinIdByDate, date, id, undo);
      put(state.checkinDateById, id, date, undo);
    }
  }
  if (kind === 'exercise' && op !== 'deleted') {
    put(state.exerciseIdByName, exerciseNameKey((event.data as { item: RecordItem<'exercise'> }).item.name), id, undo);
  }
  if (kind === 'workout') {
    const source = op === 'deleted' ? null : (event.data as { item: RecordItem<'workout'> }).item.source;
    // Every reference a workout was ever known by stays: a file exported before an edit in Hevy
    // (another title) still finds it, as does one exported before it was deleted.
    if (source) put(state.workoutIdBySourceRef, `${source.app}:${source.ref}`, id, undo);
    if (source?.id) put(state.workoutIdBySourceRef, sourceIdKey(source.app, source.id), id, undo);
  }
  if (kind === 'workout' || kind === 'routine' || kind === 'goal') {
    const uses = op === 'deleted' ? [] : exercisesUsedBy(kind, (event.data as { item: RecordItem }).item);
    if (uses.length) put(state.exerciseUses, itemKey(kind, id), uses, undo);
    else remove(state.exerciseUses, itemKey(kind, id), undo);
  }
  return state;
}

function exercisesUsedBy(kind: 'workout' | 'routine' | 'goal', item: RecordItem): string[] {
  if (kind === 'goal') {
    const id = (item as RecordItem<'goal'>).exercise_id;
    return id ? [id] : [];
  }
  return [...new Set((item as RecordItem<'workout' | 'routine'>).exercises.map((e) => e.exercise_id))];
}

/** Whether a live workout, routine or goal uses the exercise. */
function exerciseInUse(state: RecordState, exerciseId: string): boolean {
  for (const uses of state.exerciseUses.values()) if (uses.includes(exerciseId)) return true;
  return false;
}

export function live(state: RecordState, kind: RecordKind, id: string): ItemState | null {
  const item = state.items.get(itemKey(kind, id));
  return item && !item.deleted ? item : null;
}

/**
 * One change to one item. A write proposal is a list of these. `expect` changes nothing: it
 * asserts that an item the batch depends on (an exercise a new workout uses) is still live at
 * `revision`, so that approving a batch prepared against an older record is refused.
 */
export type RecordChange =
  | { op: 'create'; kind: RecordKind; item: unknown }
  | { op: 'update'; kind: RecordKind; item: unknown; base_revision: number }
  | { op: 'delete'; kind: RecordKind; id: string; base_revision: number }
  | { op: 'expect'; kind: RecordKind; id: string; revision: number }
  /**
   * Brings back an item deleted at `base_revision` with `item` as its body (an undo), as a new
   * revision; it keeps `created_at`, the time it was first created (see `itemImages`).
   */
  | { op: 'restore'; kind: RecordKind; item: unknown; base_revision: number; created_at: string }
  /**
   * Brings an item over from a RepLedger export into a record that never held its id, with the
   * revision and the creation and last-change times it had there (`repledger import repledger`).
   */
  | { op: 'carry'; kind: RecordKind; item: unknown; revision: number; created_at: string; updated_at: string };

export interface DecideOptions {
  /**
   * The creates whose collisions with the record as it is are left undecided: an id that exists
   * or existed (`already_exists`, e.g. fitness preferences the athlete has), a check-in's date
   * already used (`date_taken`). A write proposal does this for the areas its connection may not
   * read, so that preparing reveals nothing about what is there; approval decides the batch again
   * without it, where a collision makes the proposal conflicted. A collision with a record made
   * earlier in the same batch is still refused: it says nothing about the record.
   */
  deferCollisions?: (kind: RecordKind, item: RecordItem) => boolean;
}

/**
 * Decides a batch of changes against the state: all are valid together, or the batch is refused.
 * Later changes see the effect of earlier ones (a new exercise, then a workout that uses it).
 */
export function decideChanges(changes: RecordChange[], state: RecordState, options: DecideOptions = {}): RecordEvent[] {
  // Each change is folded into the state itself and taken back at the end, refused or not: a copy
  // would cost the whole record (every item ever made) for a batch of a few changes. Nothing else
  // runs meanwhile, as this is synchronous, so no one sees the state half-decided.
  const undo: UndoLog = [];
  const events: RecordEvent[] = [];
  // With collisions deferred, the items this batch has created or changed so far (`kind/id`): a
  // collision with one of them still counts.
  const written = options.deferCollisions ? new Set<string>() : null;
  const collisions: Collisions = { defer: options.deferCollisions ?? null, written };
  try {
    changes.forEach((change, index) => {
      const prefix = changes.length > 1 ? `changes[${index}]` : '';
      for (const event of decideChange(change, state, prefix, collisions)) {
        evolveLogged(state, event, undo);
        events.push(event);
        const what = written && recordChangeOf(event.type);
        if (what && what.op !== 'deleted') written!.add(itemKey(what.kind, (event.data as { item: { id: string } }).item.id));
      }
    });
  } finally {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
  }
  return events;
}

/** Which collisions of a batch's creates are decided now (see `DecideOptions`). */
interface Collisions {
  defer: DecideOptions['deferCollisions'] | null;
  written: ReadonlySet<string> | null;
}

/** Whether a collision with the item `holder` (`kind/id`) refuses the change: always, unless deferred and not the batch's own. */
type Collides = (holder: string) => boolean;
const ALWAYS: Collides = () => true;

function decideChange(change: RecordChange, state: RecordState, at: string, collisions: Collisions): RecordEvent[] {
  if (change.op === 'expect') {
    requireLive(state, change.kind, change.id, change.revision, at, 'revision');
    return [];
  }
  if (change.op === 'delete') {
    const current = requireLive(state, change.kind, change.id, change.base_revision, at);
    // Workouts, routines and goals refer to exercises: one in use stays in the catalog (an undo
    // removes an exercise its batch created, after the workouts that use it).
    if (change.kind === 'exercise' && exerciseInUse(state, change.id)) {
      throw new DomainError('not_supported', `exercise ${change.id} is used by a workout, routine or goal; rename it instead`, [
        { path: at, message: 'an exercise in use cannot be deleted' },
      ]);
    }
    const events: RecordEvent[] = [{ type: `${change.kind}.deleted`, data: { id: change.id, revision: current.revision + 1 } } as RecordEvent];
    // Feedback belongs to its workout and goes with it.
    const feedback = change.kind === 'workout' ? live(state, 'feedback', change.id) : null;
    if (feedback) events.push({ type: 'feedback.deleted', data: { id: change.id, revision: feedback.revision + 1 } });
    return events;
  }

  const item = parseItem(change.kind, change.item, at);
  if (change.op === 'restore') {
    const deleted = state.items.get(itemKey(change.kind, item.id));
    if (!deleted?.deleted) {
      throw new DomainError(deleted ? 'already_exists' : 'not_found', `${change.kind} ${item.id} is ${deleted ? 'not deleted' : 'unknown'}`, [
        { path: join(at, 'item.id'), message: deleted ? 'only a deleted item can be restored' : 'not found' },
      ]);
    }
    if (deleted.revision !== change.base_revision) {
      throw new DomainError(
        'revision_conflict',
        `${change.kind} ${item.id} is at revision ${deleted.revision}, the restore was made against revision ${change.base_revision}`,
        [{ path: join(at, 'base_revision'), message: `current revision is ${deleted.revision}` }],
      );
    }
    if (!dateTime.safeParse(change.created_at).success) {
      throw new DomainError('invalid_input', 'created_at must be an instant such as 2026-01-05T08:00:00Z', [
        { path: join(at, 'created_at'), message: 'not a date-time' },
      ]);
    }
    checkItemRules(change.kind, item, state, at);
    return [{ type: `${change.kind}.created`, data: { item, revision: deleted.revision + 1, created_at: change.created_at } } as RecordEvent];
  }
  if (change.op === 'carry') {
    if (state.items.has(itemKey(change.kind, item.id))) {
      throw new DomainError('already_exists', `${change.kind} ${item.id} already exists`, [
        { path: join(at, 'item.id'), message: 'an item with this id exists or existed' },
      ]);
    }
    if (!Number.isInteger(change.revision) || change.revision < 1) {
      throw new DomainError('invalid_input', 'revision must be a positive integer', [{ path: join(at, 'revision'), message: 'not a positive integer' }]);
    }
    for (const field of ['created_at', 'updated_at'] as const) {
      if (!dateTime.safeParse(change[field]).success) {
        throw new DomainError('invalid_input', `${field} must be an instant such as 2026-01-05T08:00:00Z`, [
          { path: join(at, field), message: 'not a date-time' },
        ]);
      }
    }
    checkItemRules(change.kind, item, state, at);
    return [
      {
        type: `${change.kind}.created`,
        data: { item, revision: change.revision, created_at: change.created_at, updated_at: change.updated_at },
      } as RecordEvent,
    ];
  }
  const deferred = change.op === 'create' && collisions.defer !== null && collisions.defer!(change.kind, item);
  const collides: Collides = deferred ? (holder) => collisions.written!.has(holder) : ALWAYS;
  // Whether the item exists at that revision comes first: it is the answer that tells the
  // client to re-read, whatever else is wrong with the new body.
  if (change.op === 'create' && state.items.has(itemKey(change.kind, item.id)) && collides(itemKey(change.kind, item.id))) {
    throw new DomainError('already_exists', `${change.kind} ${item.id} already exists`, [
      { path: join(at, 'item.id'), message: 'an item with this id exists or existed' },
    ]);
  }
  const revision = change.op === 'create' ? 1 : requireLive(state, change.kind, item.id, change.base_revision, at).revision + 1;
  checkItemRules(change.kind, item, state, at, collides);
  return [{ type: `${change.kind}.${change.op === 'create' ? 'created' : 'updated'}`, data: { item, revision } } as RecordEvent];
}

function requireLive(state: RecordState, kind: RecordKind, id: string, baseRevision: number, at: string, field = 'base_revision'): ItemState {
  const current = live(state, kind, id);
  if (!current) throw new DomainError('not_found', `${kind} ${id} does not exist`, [{ path: join(at, 'id'), message: 'not found' }]);
  if (current.revision !== baseRevision) {
    throw new DomainError('revision_conflict', `${kind} ${id} is at revision ${current.revision}, the change was made against revision ${baseRevision}`, [
      { path: join(at, field), message: `current revision is ${current.revision}` },
    ]);
  }
  return current;
}

/** An item as the record holds it now: its body, revision, when it was first created and last changed. */
export interface ItemImage {
  kind: RecordKind;
  id: string;
  revision: number;
  /** Null when the item is deleted. */
  item: { id: string } | null;
  created_at: string;
  updated_at: string;
}

/**
 * The current image of each named item (`kind/id`), from the record's events: what undo restores
 * and what a review shows as "before", and (every item, without `keys`) what an export writes.
 * `RecordState` keeps only revisions, so that every decision need not hold every body; this fold
 * keeps bodies for the asked items only.
 */
export function itemImages(events: ReadonlyArray<{ type: string; data: unknown; occurred_at: string }>, keys?: ReadonlySet<string>): Map<string, ItemImage> {
  const images = new Map<string, ItemImage>();
  for (const event of events) {
    const change = recordChangeOf(event.type);
    if (!change) continue;
    const data = event.data as { item?: { id: string }; id?: string; revision: number; created_at?: string; updated_at?: string };
    const id = data.item?.id ?? data.id!;
    const key = itemKey(change.kind, id);
    if (keys && !keys.has(key)) continue;
    const known = images.get(key);
    // A re-created id (restored after a delete) keeps the time it was first created; an item
    // carried over from an export brings the times it had there, as the projections read them.
    images.set(key, {
      kind: change.kind,
      id,
      revision: data.revision,
      item: data.item ?? null,
      created_at: known?.created_at ?? data.created_at ?? event.occurred_at,
      updated_at: data.updated_at ?? event.occurred_at,
    });
  }
  return images;
}

function parseItem<K extends RecordKind>(kind: K, input: unknown, at: string): RecordItem<K> & { id: string } {
  const schema = recordItemSchemas[kind] as unknown as z.ZodType<RecordItem<K> & { id: string }>;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: join(at, ['item', ...i.path].join('.')), message: i.message }));
    throw new DomainError('invalid_input', `the ${kind} is not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  return inUtc(kind, parsed.data);
}

/** The instants of each kind: accepted with any offset, kept in UTC (spec: timestamps are UTC ISO). */
const INSTANTS: { [K in RecordKind]: ReadonlyArray<keyof RecordItem<K>> } = {
  exercise: [],
  workout: ['started_at', 'ended_at'],
  feedback: ['recorded_at'],
  routine: [],
  goal: ['achieved_at'],
  checkin: [],
  meal: ['eaten_at'],
  body_measurement: ['measured_at'],
  equipment_setup: [],
  fitness_preferences: [],
};

/**
 * The item with its instants as `Date.toISOString` writes them, so that every stored instant has
 * one form and read models that order by them as text order them in time (`+02:00` would not).
 */
function inUtc<K extends RecordKind>(kind: K, item: RecordItem<K> & { id: string }): RecordItem<K> & { id: string } {
  const out: Record<string, unknown> = { ...item };
  for (const field of INSTANTS[kind] as readonly string[]) {
    if (typeof out[field] === 'string') out[field] = new Date(out[field]).toISOString();
  }
  return out as RecordItem<K> & { id: string };
}

const massUnits = new Set(['kg', 'lbs']);
const goalUnits: Record<RecordItem<'goal'>['goal_type'], Set<string>> = {
  target_1rm: massUnits,
  target_bodyweight: massUnits,
  weekly_volume: massUnits,
  weekly_session_count: new Set(['sessions']),
  daily_calories: new Set(['kcal']),
  daily_protein: new Set(['g']),
};

/** The rules of one item in the record; `collides` says whether a slot another item holds refuses it. */
function checkItemRules(kind: RecordKind, item: RecordItem, state: RecordState, at: string, collides: Collides = ALWAYS): void {
  const refuse = (code: 'invalid_input' | 'unknown_reference' | 'date_taken', path: string, message: string): never => {
    throw new DomainError(code, message, [{ path: join(at, `item.${path}`), message }]);
  };
  const requireExercise = (id: string, path: string) => {
    if (!live(state, 'exercise', id)) refuse('unknown_reference', path, `exercise ${id} is not in the athlete's catalog`);
  };
  switch (kind) {
    case 'workout': {
      const w = item as RecordItem<'workout'>;
      w.exercises.forEach((e, i) => {
        requireExercise(e.exercise_id, `exercises.${i}.exercise_id`);
        const parentOf = new Map(e.sets.map((s) => [s.position, s.parent_position]));
        e.sets.forEach((s, j) => {
          const parentIsAnotherSet = s.parent_position !== s.position && parentOf.has(s.parent_position!);
          if (s.parent_position !== null && (s.set_type !== 'drop_set' || !parentIsAnotherSet)) {
            refuse('invalid_input', `exercises.${i}.sets.${j}.parent_position`, 'parent_position must name another set of the exercise, on a drop set only');
          }
        });
        e.sets.forEach((s, j) => {
          // Following the parents from any set ends at a set without one, or it is a loop.
          let at: number | null | undefined = s.parent_position;
          for (let steps = 0; at !== null && at !== undefined; steps++) {
            if (steps === e.sets.length)
              refuse(
                'invalid_input',
                `exercises.${i}.sets.${j}.parent_position`,
                'drop sets name each other as parents in a loop; a drop set drops from a set done before it',
              );
            at = parentOf.get(at);
          }
        });
      });
      break;
    }
    case 'feedback':
      if (!live(state, 'workout', item.id)) refuse('unknown_reference', 'id', `workout ${item.id} does not exist`);
      break;
    case 'routine':
      (item as RecordItem<'routine'>).exercises.forEach((e, i) => requireExercise(e.exercise_id, `exercises.${i}.exercise_id`));
      break;
    case 'goal': {
      const g = item as RecordItem<'goal'>;
      if (!goalUnits[g.goal_type].has(g.target_unit)) {
        refuse('invalid_input', 'target_unit', `a ${g.goal_type} goal is measured in ${[...goalUnits[g.goal_type]].join(' or ')}`);
      }
      if (g.goal_type === 'target_1rm' && g.exercise_id === null) refuse('invalid_input', 'exercise_id', 'a target_1rm goal names its exercise');
      if (g.exercise_id !== null) requireExercise(g.exercise_id, 'exercise_id');
      if ((g.status === 'achieved') !== (g.achieved_at !== null)) {
        refuse('invalid_input', 'achieved_at', 'achieved_at is set exactly when the status is achieved');
      }
      // Spec 2.6: the canonical target is > 0 too; a value that vanishes in kilograms (5e-324 lbs) is no target.
      if (!(canonicalGoalTarget(g).value > 0)) refuse('invalid_input', 'target_value', 'target_value is too small to be a target');
      break;
    }
    case 'body_measurement': {
      const m = item as RecordItem<'body_measurement'>;
      if (m.metric === 'body_fat' && m.value > 100) refuse('invalid_input', 'value', 'body_fat is a percentage: at most 100');
      break;
    }
    case 'checkin': {
      const c = item as RecordItem<'checkin'>;
      const holder = state.checkinIdByDate.get(c.date);
      if (holder !== undefined && holder !== c.id && collides(itemKey('checkin', holder)))
        refuse('date_taken', 'date', `there is already a check-in for ${c.date}`);
      break;
    }
    case 'fitness_preferences':
      if (item.id !== state.athleteId) refuse('invalid_input', 'id', "fitness preferences share the athlete's id");
      break;
    default:
      break;
  }
}

function join(prefix: string, path: string): string {
  return prefix ? `${prefix}.${path}` : path;
}
