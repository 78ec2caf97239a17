// Every field of every write kind as a person reads it: one table of labels and formats, typed so
// that a field added to a write shape (contracts/write.ts) does not compile until it has a row here,
// and a walk that shows each field of a record, or compares two bodies of the same item field by
// field, from that table alone. Pages and sentences are made from what this returns, never from
// field names or stored units.
import type { Profile, RecordItem } from '../../contracts/record.ts';
import type { WriteKind, WriteRecord } from '../../contracts/write.ts';
import { bodyweight, clock, dateTime, distance, length, localDate, trim, weight } from './units.ts';

/** How one field's value reads. Formats that need a sibling field (a measurement's metric) get the whole object. */
export type Format =
  /** Text the client wrote (titles, names, notes): shown as written, marked as theirs. */
  | 'text'
  | 'instant'
  | 'local_date'
  /** A lifted weight, in the athlete's weight unit. */
  | 'mass'
  | 'distance'
  /** A length of time in seconds: 45 s, 3:05. */
  | 'seconds'
  | 'minutes'
  | 'kcal'
  | 'grams'
  | 'count'
  | 'rpe'
  | 'percent'
  | 'yes_no'
  | 'check_in_scale'
  | 'exercise'
  | 'superset'
  /** A place in a list (exercise order, set position): shown by where the item stands, not as a number. */
  | 'order'
  /** A drop set's parent: the set it drops from, by its set number. */
  | 'parent_set'
  | 'training_days'
  | 'body_value'
  | 'goal_target'
  /** Shown as part of another field of the same object (a goal's unit, inside its target). */
  | { within: string }
  | { words: Readonly<Record<string, string>> };

export interface FieldRow {
  label: string;
  format: Format;
  /** The value most items of a list have (a normal set, a set done): a table may leave out a column of only this, and of nulls. */
  usual?: string | boolean;
}

/** A list of objects (a workout's exercises, their sets): each item is told apart by `key`. */
export interface ListRow<E> {
  label: string;
  /** What one item is called: "exercise", "set". */
  noun: string;
  key: keyof E & string;
  fields: Rows<E>;
}

/** A row for every field of T: a list of objects gets a ListRow, anything else (a scalar, a list of texts or dates) a FieldRow. */
export type Rows<T> = {
  [F in keyof T]-?: NonNullable<T[F]> extends ReadonlyArray<infer E> ? (E extends object ? ListRow<E> : FieldRow) : FieldRow;
};

export const SET_TYPES = { normal: 'Normal', warmup: 'Warm-up', failure: 'To failure', drop_set: 'Drop set' } as const;
export const TRACKING_TYPES = {
  weight_reps: 'Weight and reps',
  bodyweight: 'Bodyweight reps',
  duration: 'Time',
  distance: 'Distance',
  weight_distance: 'Weight and distance',
} as const;
export const GOAL_TYPES = {
  target_1rm: 'One-rep max',
  target_bodyweight: 'Bodyweight',
  weekly_session_count: 'Workouts a week',
  weekly_volume: 'Weekly volume',
  daily_calories: 'Daily calories',
  daily_protein: 'Daily protein',
} as const;
const GOAL_STATUSES = { active: 'Active', achieved: 'Achieved', archived: 'Archived' } as const;
export const BODY_METRICS = {
  bodyweight: 'Bodyweight',
  body_fat: 'Body fat',
  height: 'Height',
  waist: 'Waist',
  chest: 'Chest',
  hips: 'Hips',
  arm: 'Arm',
  thigh: 'Thigh',
  neck: 'Neck',
} as const satisfies Record<RecordItem<'body_measurement'>['metric'], string>;
const EXPERIENCE = { beginner: 'Beginner', intermediate: 'Intermediate', advanced: 'Advanced' } as const;

const field = (label: string, format: Format, usual?: string | boolean): FieldRow => (usual === undefined ? { label, format } : { label, format, usual });

/** The one table: every field of every write kind, its label and how its value reads. */
export const RECORD_FIELDS = {
  exercise: {
    name: field('Name', 'text'),
    muscle_group: field('Muscle group', 'text'),
    tracking_type: field('Tracked by', { words: TRACKING_TYPES }),
  },
  completed_workout: {
    title: field('Title', 'text'),
    started_at: field('Started', 'instant'),
    ended_at: field('Ended', 'instant'),
    notes: field('Notes', 'text'),
    exercises: {
      label: 'Exercises',
      noun: 'exercise',
      key: 'exercise_order',
      fields: {
        exercise_order: field('Order', 'order'),
        exercise_id: field('Exercise', 'exercise'),
        superset_id: field('Superset', 'superset'),
        notes: field('Notes', 'text'),
        sets: {
          label: 'Sets',
          noun: 'set',
          key: 'position',
          fields: {
            position: field('Order', 'order'),
            set_number: field('Set', 'count'),
            set_type: field('Type', { words: SET_TYPES }, 'normal'),
            parent_position: field('Drops from', 'parent_set'),
            weight_kg: field('Weight', 'mass'),
            reps: field('Reps', 'count'),
            rpe: field('RPE', 'rpe'),
            target_rpe: field('Target RPE', 'rpe'),
            duration_seconds: field('Time', 'seconds'),
            distance_metres: field('Distance', 'distance'),
            incline_percent: field('Incline', 'percent'),
            completed: field('Done', 'yes_no', true),
          },
        },
      },
    },
  },
  saved_routine: {
    title: field('Title', 'text'),
    exercises: {
      label: 'Exercises',
      noun: 'exercise',
      key: 'position',
      fields: {
        position: field('Order', 'order'),
        exercise_id: field('Exercise', 'exercise'),
        sets: field('Sets', 'count'),
        reps: field('Reps', 'text'),
        target_rpe: field('Target RPE', 'rpe'),
        rest_seconds: field('Rest', 'seconds'),
      },
    },
    scheduled_dates: field('Scheduled on', 'local_date'),
  },
  meal: {
    eaten_at: field('Eaten', 'instant'),
    name: field('Name', 'text'),
    calories_kcal: field('Energy', 'kcal'),
    protein_g: field('Protein', 'grams'),
    carbohydrate_g: field('Carbohydrate', 'grams'),
    fat_g: field('Fat', 'grams'),
  },
  recovery_checkin: {
    date: field('Day', 'local_date'),
    sleep_quality: field('Sleep quality', 'check_in_scale'),
    energy: field('Energy', 'check_in_scale'),
    soreness: field('Soreness (5 means none)', 'check_in_scale'),
    stress: field('Stress (5 means calm)', 'check_in_scale'),
  },
  body_measurement: {
    measured_at: field('Measured', 'instant'),
    metric: field('Measurement', { words: BODY_METRICS }),
    value: field('Value', 'body_value'),
  },
  goal: {
    goal_type: field('Goal', { words: GOAL_TYPES }),
    status: field('Status', { words: GOAL_STATUSES }),
    exercise_id: field('Exercise', 'exercise'),
    target_value: field('Target', 'goal_target'),
    target_unit: field('Unit', { within: 'target_value' }),
    achieved_at: field('Achieved', 'instant'),
  },
  equipment_setup: {
    name: field('Name', 'text'),
    equipment: field('Equipment', 'text'),
  },
  fitness_preferences: {
    experience_level: field('Experience', { words: EXPERIENCE }),
    training_days_per_week: field('Training days', 'training_days'),
    session_minutes: field('Session length', 'minutes'),
    focus: field('Focus', 'text'),
  },
} as const satisfies { [K in WriteKind]: Rows<WriteRecord<K>> };

// ---------------------------------------------------------------------------------------------
// Values

/** What the words need besides the record: the athlete's units and zone, and the names of exercises. */
export interface WordsContext {
  profile: Profile;
  /** An exercise's name by id, or null when it is in neither the catalog nor the batch. */
  exerciseName(id: string): string | null;
}

/** What a missing value reads as. */
export const NONE = '—';
export const UNKNOWN_EXERCISE = 'an exercise not in your catalog';

const KG_PER_LB = 0.45359237;

/** A goal's target in the athlete's unit: kilograms and pounds follow their preference, other units as set. */
function goalTarget(value: number, record: Record<string, unknown>, profile: Profile): string {
  const unit = record.target_unit;
  const type = record.goal_type;
  if (unit === 'kg' || unit === 'lbs') {
    const kg = unit === 'lbs' ? value * KG_PER_LB : value;
    const amount = type === 'target_bodyweight' ? bodyweight(kg, profile.bodyweight_unit_preference) : weight(kg, profile.unit_preference);
    return type === 'weekly_volume' ? `${amount} lifted a week` : amount;
  }
  if (unit === 'sessions') return `${trim(value, 2)} ${value === 1 ? 'workout' : 'workouts'} a week`;
  if (unit === 'kcal') return `${trim(value, 0)} kcal a day`;
  return `${trim(value, 1)} g of protein a day`;
}

/** A body measurement in the athlete's units: bodyweight by their bodyweight unit, lengths by their height unit. */
function bodyValue(value: number, metric: unknown, profile: Profile): string {
  if (metric === 'body_fat') return `${trim(value, 1)} %`;
  if (metric === 'bodyweight') return bodyweight(value, profile.bodyweight_unit_preference);
  return length(value, profile.height_unit_preference, metric === 'height');
}

/**
 * One scalar as text. `siblings` is the object the field is in (a goal's unit, a set's siblings);
 * `place` is what `order`, `superset` and `parent_set` need from the list around it.
 */
export function valueText(format: Format, value: unknown, siblings: Record<string, unknown>, ctx: WordsContext, place: Place = NO_PLACE): string {
  if (typeof format === 'object' && 'within' in format) return '';
  if (format === 'order') return place.rank === null ? NONE : `${place.rank}`;
  if (value === null || value === undefined) return format === 'superset' ? 'None' : NONE;
  if (typeof format === 'object') return format.words[String(value)] ?? String(value);
  const tz = ctx.profile.timezone;
  const n = value as number;
  switch (format) {
    case 'text':
      return String(value);
    case 'instant':
      return dateTime(String(value), tz);
    case 'local_date':
      return localDate(String(value));
    case 'mass':
      return weight(n, ctx.profile.unit_preference);
    case 'distance':
      return distance(n, ctx.profile.unit_preference);
    case 'seconds':
      return clock(n);
    case 'minutes':
      return `${n} min`;
    case 'kcal':
      return `${trim(n, 0)} kcal`;
    case 'grams':
      return `${trim(n, 1)} g`;
    case 'count':
      return String(n);
    case 'rpe':
      return trim(n, 1);
    case 'percent':
      return `${trim(n, 1)} %`;
    case 'yes_no':
      return value ? 'Yes' : 'No';
    case 'check_in_scale':
      return `${n} of 5`;
    case 'training_days':
      return `${n} ${n === 1 ? 'day' : 'days'} a week`;
    case 'exercise':
      return ctx.exerciseName(String(value)) ?? UNKNOWN_EXERCISE;
    case 'superset':
      return place.superset ?? 'None';
    case 'parent_set':
      return place.parent === null ? `a set not in this exercise` : `Set ${place.parent}`;
    case 'body_value':
      return bodyValue(n, siblings.metric, ctx.profile);
    case 'goal_target':
      return goalTarget(n, siblings, ctx.profile);
  }
}

/** What a field in a list needs from the items around it. */
export interface Place {
  /** 1-based place of the item in its list's order. */
  rank: number | null;
  /** "Superset A": supersets lettered by the order of their first exercise. */
  superset: string | null;
  /** The set number of the set a drop set drops from. */
  parent: number | null;
}
const NO_PLACE: Place = { rank: null, superset: null, parent: null };

// ---------------------------------------------------------------------------------------------
// A record, or two bodies of one item, field by field

/** One field of the compared bodies: its text before and after (null: the side has no such body). */
export interface FieldWords {
  /** Where in the record: `exercises.0.sets.2.weight_kg`, with the indexes of the new body (of the old one for a removed item). */
  path: string;
  /** Where in the old body, whose indexes may differ (an exercise inserted before this one). */
  beforePath: string;
  name: string;
  label: string;
  before: string | null;
  after: string | null;
  changed: boolean;
  /** Text the client wrote. */
  written: boolean;
  /** A place in a list: shown by where its item stands rather than as a value of its own. */
  order: boolean;
  /** Shown inside another field of the same object (a goal's unit, in its target). */
  within: string | null;
  /** Empty or at its usual value on every side: a table column of only such values may be left out. */
  plain: boolean;
}

/** One item of a list (an exercise, a set), in both bodies. */
export interface ItemWords {
  /** The item's key value (an exercise's order, a set's position). */
  key: unknown;
  status: 'same' | 'changed' | 'added' | 'removed';
  fields: FieldWords[];
  lists: ListWords[];
}

export interface ListWords {
  path: string;
  name: string;
  label: string;
  noun: string;
  items: ItemWords[];
}

/** A record (or an item of a list) compared: its scalar fields and its lists. */
export interface RecordWords {
  fields: FieldWords[];
  lists: ListWords[];
  changed: boolean;
}

type AnyRows = Record<string, FieldRow | ListRow<Record<string, unknown>>>;
type Body = Record<string, unknown>;

const isList = (row: FieldRow | ListRow<Body>): row is ListRow<Body> => 'fields' in row;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Compares two bodies of a record of `kind`, field by field: a create has no `before`, a delete
 * no `after`, an update both. Every field of the table is in the answer, changed or not.
 */
export function compareRecords(kind: WriteKind, before: Body | null, after: Body | null, ctx: WordsContext): RecordWords {
  return compareObjects(RECORD_FIELDS[kind] as unknown as AnyRows, before, after, ctx, '', { before: null, after: null });
}

interface Places {
  before: Place | null;
  after: Place | null;
}

function compareObjects(
  rows: AnyRows,
  before: Body | null,
  after: Body | null,
  ctx: WordsContext,
  prefix: string,
  places: Places,
  paths?: { before: string; after: string },
): RecordWords {
  const fields: FieldWords[] = [];
  const lists: ListWords[] = [];
  const pathOf = (name: string) => `${prefix}${name}`;
  const beforePathOf = (name: string) => `${paths ? paths.before || paths.after : prefix}${name}`;
  for (const [name, row] of Object.entries(rows)) {
    if (isList(row)) {
      lists.push(
        compareLists(
          row,
          name,
          (before?.[name] as Body[] | undefined) ?? null,
          (after?.[name] as Body[] | undefined) ?? null,
          ctx,
          paths ? paths : { before: prefix, after: prefix },
        ),
      );
      continue;
    }
    const text = (body: Body | null, place: Place | null) => {
      if (!body) return null;
      const value = body[name];
      if (Array.isArray(value)) return value.length ? value.map((v) => valueText(row.format, v, body, ctx)).join(', ') : 'None';
      return valueText(row.format, value, body, ctx, place ?? NO_PLACE);
    };
    const b = text(before, places.before);
    let a = text(after, places.after);
    const format = row.format;
    const within = typeof format === 'object' && 'within' in format ? format.within : null;
    // What the athlete reads decides: a place changes only if the item moved among the others, a
    // superset only if the grouping did; a value changes if it reads otherwise (a measurement's
    // value when its metric changed) or is otherwise, even where it reads the same, which is said.
    const both = before !== null && after !== null;
    const reads = format === 'order' || format === 'superset';
    const changed = both && (b !== a || (!reads && !same(before[name], after[name])));
    if (changed && b === a && within === null) a = `${a} (${format === 'exercise' ? 'another exercise of this name' : 'changed by less than is shown'})`;
    const plain = [before, after].every((body) => body === null || body[name] === null || (row.usual !== undefined && body[name] === row.usual));
    fields.push({
      path: pathOf(name),
      beforePath: beforePathOf(name),
      name,
      label: row.label,
      before: b,
      after: a,
      changed,
      written: format === 'text',
      order: format === 'order',
      within,
      plain,
    });
  }
  const changed = fields.some((f) => f.changed) || lists.some((l) => l.items.some((i) => i.status !== 'same'));
  return { fields, lists, changed };
}

/**
 * Two lists of items matched by key. Items are in key order (a workout's exercises by their order,
 * sets by position); each side's path keeps the index the item has in its own body.
 */
function compareLists(
  row: ListRow<Body>,
  name: string,
  before: Body[] | null,
  after: Body[] | null,
  ctx: WordsContext,
  prefixes: { before: string; after: string },
): ListWords {
  const key = row.key;
  const keyed = (items: Body[] | null) => new Map((items ?? []).map((item, index) => [JSON.stringify(item[key]), { item, index }]));
  const b = keyed(before);
  const a = keyed(after);
  const keys = [...new Set([...b.keys(), ...a.keys()])].sort((x, y) => compareKeys(JSON.parse(x), JSON.parse(y)));
  const placesIn = (items: Body[] | null) => placesOf(row, items);
  const beforePlaces = placesIn(before);
  const afterPlaces = placesIn(after);
  const items = keys.map((k): ItemWords => {
    const was = b.get(k) ?? null;
    const now = a.get(k) ?? null;
    const paths = { before: was ? `${prefixes.before}${name}.${was.index}.` : '', after: now ? `${prefixes.after}${name}.${now.index}.` : '' };
    const words = compareObjects(
      row.fields as AnyRows,
      was?.item ?? null,
      now?.item ?? null,
      ctx,
      paths.after || paths.before,
      {
        before: was ? beforePlaces[was.index]! : null,
        after: now ? afterPlaces[now.index]! : null,
      },
      paths,
    );
    // Fields carry the path of the body they show: the new one, or the old one for a removed item.
    const status = !was ? 'added' : !now ? 'removed' : words.changed ? 'changed' : 'same';
    return { key: JSON.parse(k) as unknown, status, fields: words.fields, lists: words.lists };
  });
  return { path: `${prefixes.after}${name}`, name, label: row.label, noun: row.noun, items };
}

function compareKeys(x: unknown, y: unknown): number {
  return typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
}

/** Each item's place in its list: rank by key, superset letters, drop-set parents. */
function placesOf(row: ListRow<Body>, items: Body[] | null): Place[] {
  if (!items) return [];
  const order = items.map((item, index) => ({ item, index })).sort((x, y) => compareKeys(x.item[row.key], y.item[row.key]));
  const rank = new Map(order.map((x, i) => [x.index, i + 1]));
  const letters = new Map<string, string>();
  for (const { item } of order) {
    const id = item.superset_id;
    if (typeof id === 'string' && !letters.has(id)) letters.set(id, `Superset ${supersetLetter(letters.size)}`);
  }
  const setNumberAt = new Map(items.map((item) => [item.position, item.set_number as number]));
  return items.map((item, index) => ({
    rank: rank.get(index)!,
    superset: typeof item.superset_id === 'string' ? letters.get(item.superset_id)! : null,
    parent: item.parent_position === null || item.parent_position === undefined ? null : (setNumberAt.get(item.parent_position) ?? null),
  }));
}

/** A, B, … Z, AA, AB: a workout holds at most 100 exercises. */
export function supersetLetter(n: number): string {
  const letter = String.fromCharCode(65 + (n % 26));
  return n < 26 ? letter : `${supersetLetter(Math.floor(n / 26) - 1)}${letter}`;
}

/** The fields of a compared record that changed, the lists' changed items included, as a flat list. */
export function changedFields(words: RecordWords): FieldWords[] {
  return [
    ...words.fields.filter((f) => f.changed),
    ...words.lists.flatMap((l) => l.items.flatMap((i) => changedFields({ fields: i.fields, lists: i.lists, changed: true }))),
  ];
}
