// A record item as a person reads it: labelled fields, in the athlete's units, values as text.
// Pure: the review pages (and later the athlete's own record pages) turn these into markup, which
// escapes every value, so record text is never markup.
import { KG_PER_LB, KG_PER_STONE } from '../../contracts/common.ts';
import type { Profile } from '../../contracts/record.ts';
import type { WriteKind } from '../../contracts/write.ts';

export interface Field {
  label: string;
  value: string;
}

export interface ViewContext {
  profile: Profile;
  /** Names of the exercises a record may use, by id: the catalog's and those the batch creates. */
  exerciseName(id: string): string;
}

const LABELS: Record<string, string> = {
  name: 'Name',
  title: 'Title',
  muscle_group: 'Muscle group',
  tracking_type: 'Tracked by',
  started_at: 'Started',
  ended_at: 'Ended',
  notes: 'Notes',
  exercises: 'Exercises',
  scheduled_dates: 'Scheduled on',
  eaten_at: 'Eaten',
  calories_kcal: 'Energy',
  protein_g: 'Protein',
  carbohydrate_g: 'Carbohydrate',
  fat_g: 'Fat',
  date: 'Date',
  sleep_quality: 'Sleep quality',
  energy: 'Energy',
  soreness: 'Soreness (5 = none)',
  stress: 'Stress (5 = calmest)',
  measured_at: 'Measured',
  metric: 'Measurement',
  value: 'Value',
  goal_type: 'Goal',
  status: 'Status',
  exercise_id: 'Exercise',
  target_value: 'Target',
  target_unit: 'Unit',
  achieved_at: 'Achieved',
  equipment: 'Equipment',
  experience_level: 'Experience',
  training_days_per_week: 'Training days a week',
  session_minutes: 'Session length',
  focus: 'Focus',
};

export function labelOf(field: string): string {
  return LABELS[field] ?? field.replace(/_/g, ' ');
}

const words = (s: string) => s.replace(/_/g, ' ');

export function weight(kg: number, profile: Profile): string {
  return profile.unit_preference === 'lbs' ? `${round(kg / KG_PER_LB)} lb` : `${round(kg)} kg`;
}

function round(n: number, places = 1): string {
  return String(Math.round(n * 10 ** places) / 10 ** places);
}

function dateTime(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(new Date(iso));
}

function duration(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : s ? `${m} min ${s} s` : `${m} min`;
}

type WorkoutSetLike = {
  set_type: string;
  completed?: boolean;
  weight_kg: number | null;
  reps: number | null;
  duration_seconds: number | null;
  distance_metres: number | null;
};

function setText(s: WorkoutSetLike, profile: Profile): string {
  const parts = [
    s.weight_kg !== null ? weight(s.weight_kg, profile) : null,
    s.reps !== null ? `${s.reps} reps` : null,
    s.duration_seconds !== null ? duration(s.duration_seconds) : null,
    s.distance_metres !== null ? (s.distance_metres >= 1000 ? `${round(s.distance_metres / 1000, 2)} km` : `${round(s.distance_metres)} m`) : null,
  ].filter(Boolean);
  const kind = s.set_type === 'normal' ? '' : ` (${words(s.set_type)})`;
  return `${parts.join(' × ') || 'no figures'}${kind}${s.completed === false ? ', not completed' : ''}`;
}

/** One field's value as text. */
export function valueText(kind: WriteKind, field: string, value: unknown, ctx: ViewContext, record: Record<string, unknown> = {}): string {
  if (value === null || value === undefined) return '—';
  const tz = ctx.profile.timezone;
  switch (field) {
    case 'started_at':
    case 'ended_at':
    case 'eaten_at':
    case 'measured_at':
    case 'achieved_at':
      return dateTime(String(value), tz);
    case 'calories_kcal':
      return `${round(Number(value), 0)} kcal`;
    case 'protein_g':
    case 'carbohydrate_g':
    case 'fat_g':
      return `${round(Number(value))} g`;
    case 'session_minutes':
      return `${String(value)} min`;
    case 'exercise_id':
      return ctx.exerciseName(String(value));
    case 'scheduled_dates':
    case 'focus':
    case 'equipment':
      return (value as string[]).length ? (value as string[]).join(', ') : 'none';
    case 'value':
      return kind === 'body_measurement' ? measurement(String(record.metric), Number(value), ctx.profile) : String(value);
    case 'target_value':
      return record.target_unit === 'kg' || record.target_unit === 'lbs' ? `${round(Number(value))} ${String(record.target_unit)}` : String(value);
    case 'exercises':
      return (value as Array<Record<string, unknown>>)
        .map((e) =>
          kind === 'completed_workout'
            ? `${ctx.exerciseName(String(e.exercise_id))}: ${(e.sets as WorkoutSetLike[]).map((s) => setText(s, ctx.profile)).join('; ') || 'no sets'}`
            : `${ctx.exerciseName(String(e.exercise_id))}: ${String(e.sets)} × ${String(e.reps)}${e.rest_seconds !== null ? `, rest ${duration(Number(e.rest_seconds))}` : ''}`,
        )
        .join(' · ');
    default:
      return typeof value === 'string'
        ? ['goal_type', 'status', 'tracking_type', 'metric', 'experience_level', 'target_unit'].includes(field)
          ? words(value)
          : value
        : String(value);
  }
}

function measurement(metric: string, value: number, profile: Profile): string {
  if (metric === 'body_fat') return `${round(value)} %`;
  if (metric === 'bodyweight')
    return profile.bodyweight_unit_preference === 'kg'
      ? `${round(value)} kg`
      : profile.bodyweight_unit_preference === 'lbs'
        ? `${round(value / KG_PER_LB)} lb`
        : `${round(value / KG_PER_STONE)} st`;
  // Lengths are kept in metres.
  return profile.height_unit_preference === 'cm' ? `${round(value * 100)} cm` : `${round(value / 0.0254)} in`;
}

/** Every field of a record, labelled. */
export function fieldsOf(kind: WriteKind, record: Record<string, unknown>, ctx: ViewContext): Field[] {
  return Object.entries(record).map(([field, value]) => ({ label: labelOf(field), value: valueText(kind, field, value, ctx, record) }));
}

/** The fields an update changes, each before and after. */
export function changedFields(
  kind: WriteKind,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  ctx: ViewContext,
): Array<{ label: string; before: string; after: string }> {
  return Object.keys(after)
    .filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
    .map((f) => ({ label: labelOf(f), before: valueText(kind, f, before[f], ctx, before), after: valueText(kind, f, after[f], ctx, after) }));
}

const KIND_TITLES: Record<WriteKind, string> = {
  exercise: 'Custom exercise',
  completed_workout: 'Workout',
  saved_routine: 'Routine',
  meal: 'Meal',
  recovery_checkin: 'Recovery check-in',
  body_measurement: 'Body measurement',
  goal: 'Goal',
  equipment_setup: 'Equipment setup',
  fitness_preferences: 'Fitness preferences',
};

export function kindTitle(kind: WriteKind): string {
  return KIND_TITLES[kind];
}
