// The athlete's record as it is stored: the items that events carry. Canonical units only
// (kg, metres, seconds). These are inputs to the domain, not the Agent Access wire shapes.
import { z } from 'zod';
import { RECORD_BOUNDS, WRITE_POLICY } from './policy.ts';
import {
  KG_PER_LB,
  LIMITS,
  bodyweightUnitPreference,
  checkinScaleValue,
  dateTime,
  difficulty,
  goalStatus,
  goalTargetUnit,
  goalType,
  heightUnitPreference,
  isVisibleText,
  localDate,
  muscleGroup,
  nextTimeIntent,
  recordText,
  setType,
  subscriptionTier,
  timezone,
  trackingType,
  unitPreference,
  uuid,
} from './common.ts';

const nonNegative = z.number().finite().nonnegative();
const nonNegativeInt = z.number().int().nonnegative();
const rpe = z.number().min(0).max(10);
const nullableNote = z.string().max(2000).nullable();

export const profile = z.strictObject({
  display_name: z.string().min(1).max(100).refine(isVisibleText, 'a name needs a visible character'),
  timezone,
  unit_preference: unitPreference,
  height_unit_preference: heightUnitPreference,
  bodyweight_unit_preference: bodyweightUnitPreference,
});
export type Profile = z.infer<typeof profile>;

export const exercise = z.strictObject({
  id: uuid,
  name: recordText,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType,
});
export type Exercise = z.infer<typeof exercise>;

export const workoutSet = z.strictObject({
  position: nonNegativeInt,
  set_number: z.number().int().positive(),
  set_type: setType,
  /** For a drop set, the position of the set it drops from. */
  parent_position: nonNegativeInt.nullable(),
  weight_kg: nonNegative.max(RECORD_BOUNDS.weightKg).nullable(),
  reps: nonNegativeInt.max(RECORD_BOUNDS.reps).nullable(),
  rpe: rpe.nullable(),
  target_rpe: rpe.nullable(),
  duration_seconds: nonNegativeInt.max(RECORD_BOUNDS.durationSeconds).nullable(),
  distance_metres: nonNegative.max(RECORD_BOUNDS.distanceMetres).nullable(),
  incline_percent: z.number().min(-100).max(100).nullable(),
  completed: z.boolean(),
});
export type WorkoutSet = z.infer<typeof workoutSet>;

export const workoutExercise = z.strictObject({
  exercise_id: uuid,
  exercise_order: nonNegativeInt,
  superset_id: uuid.nullable(),
  notes: nullableNote,
  sets: z.array(workoutSet).max(LIMITS.setsPerWorkoutExercise),
});
export type WorkoutExercise = z.infer<typeof workoutExercise>;

/** The apps whose exports RepLedger imports. */
export const importApp = z.enum(['hevy', 'strong', 'apple_health', 'garmin']);
export type ImportApp = z.infer<typeof importApp>;

export const workoutSource = z.strictObject({
  app: importApp,
  /** Stable key of the workout in the source app's export; re-imports skip a known key. */
  ref: z.string().min(1).max(300),
  /**
   * The workout's own id in the source app, where its API gives one (Hevy's sync): how a later
   * edit or deletion there finds it, whatever its title has become (docs/decisions.md, Hevy sync).
   */
  id: z.string().min(1).max(100).optional(),
  /** When the source app last changed it, as that app said (Hevy's `updated_at`): a sync applies only a later change. */
  version: z.string().min(1).max(100).optional(),
});

export const workout = z
  .strictObject({
    id: uuid,
    title: recordText,
    started_at: dateTime.nullable(),
    ended_at: dateTime,
    notes: nullableNote,
    exercises: z.array(workoutExercise).max(100),
    source: workoutSource.nullable(),
  })
  .refine((w) => w.started_at === null || Date.parse(w.started_at) <= Date.parse(w.ended_at), {
    message: 'started_at must not be after ended_at',
    path: ['started_at'],
  })
  .refine((w) => new Set(w.exercises.map((e) => e.exercise_order)).size === w.exercises.length, {
    message: 'exercise_order values must be unique',
    path: ['exercises'],
  })
  .refine((w) => w.exercises.every((e) => new Set(e.sets.map((s) => s.position)).size === e.sets.length), {
    message: 'set positions must be unique within an exercise',
    path: ['exercises'],
  })
  // A workout's achieved set count is 0-200 on the wire (spec 8): a workout holds at most 200 sets.
  .refine((w) => w.exercises.reduce((n, e) => n + e.sets.length, 0) <= LIMITS.achievedSetCountMax, {
    message: `a workout holds at most ${LIMITS.achievedSetCountMax} sets`,
    path: ['exercises'],
  });
export type Workout = z.infer<typeof workout>;

export const feedback = z.strictObject({
  /** Feedback belongs to one workout and shares its id. */
  id: uuid,
  difficulty,
  next_time_intent: nextTimeIntent,
  recorded_at: dateTime,
});
export type Feedback = z.infer<typeof feedback>;

export const routineExercise = z.strictObject({
  position: nonNegativeInt,
  exercise_id: uuid,
  sets: z.number().int().min(LIMITS.setsPerRoutineExercise.min).max(LIMITS.setsPerRoutineExercise.max),
  reps: z.string().min(LIMITS.repsText.min).max(LIMITS.repsText.max),
  target_rpe: rpe.nullable(),
  rest_seconds: nonNegativeInt.max(3600).nullable(),
});

export const routine = z.strictObject({
  id: uuid,
  title: recordText,
  exercises: z.array(routineExercise).max(LIMITS.exercisesPerRoutine),
  /** Today and up to the scheduling horizon's days after it. */
  scheduled_dates: z.array(localDate).max(WRITE_POLICY.schedulingHorizonDays + 1),
});
export type Routine = z.infer<typeof routine>;

export const goal = z.strictObject({
  id: uuid,
  goal_type: goalType,
  status: goalStatus,
  exercise_id: uuid.nullable(),
  target_value: z.number().positive().max(RECORD_BOUNDS.goalTarget),
  target_unit: goalTargetUnit,
  achieved_at: dateTime.nullable(),
});
export type Goal = z.infer<typeof goal>;

const CANONICAL_GOAL_UNIT = { kg: 'kg', lbs: 'kg', sessions: 'sessions', kcal: 'kcal', g: 'g' } as const;

/** A goal's target in its canonical unit (spec 2.6): pounds as kilograms, any other unit as set. */
export function canonicalGoalTarget(g: Pick<Goal, 'target_value' | 'target_unit'>): { value: number; unit: (typeof CANONICAL_GOAL_UNIT)[Goal['target_unit']] } {
  return { value: g.target_unit === 'lbs' ? g.target_value * KG_PER_LB : g.target_value, unit: CANONICAL_GOAL_UNIT[g.target_unit] };
}

export const checkin = z.strictObject({
  id: uuid,
  date: localDate,
  sleep_quality: checkinScaleValue,
  energy: checkinScaleValue,
  soreness: checkinScaleValue,
  stress: checkinScaleValue,
});

export const meal = z.strictObject({
  id: uuid,
  eaten_at: dateTime,
  name: recordText,
  calories_kcal: nonNegative.max(RECORD_BOUNDS.caloriesKcal).nullable(),
  protein_g: nonNegative.max(RECORD_BOUNDS.macroGrams).nullable(),
  carbohydrate_g: nonNegative.max(RECORD_BOUNDS.macroGrams).nullable(),
  fat_g: nonNegative.max(RECORD_BOUNDS.macroGrams).nullable(),
});
export type Meal = z.infer<typeof meal>;

/** Canonical unit per metric: kilograms, metres, or percent. */
export const bodyMetric = z.enum(['bodyweight', 'body_fat', 'height', 'waist', 'chest', 'hips', 'arm', 'thigh', 'neck']);
export const bodyMeasurement = z.strictObject({
  id: uuid,
  measured_at: dateTime,
  metric: bodyMetric,
  value: z.number().positive().max(RECORD_BOUNDS.measurementValue),
});
export type BodyMeasurement = z.infer<typeof bodyMeasurement>;

export const equipmentSetup = z.strictObject({
  id: uuid,
  name: recordText,
  equipment: z.array(z.string().min(1).max(100)).max(100),
});

export const fitnessPreferences = z.strictObject({
  /** One set of preferences per athlete; it shares the athlete's id. */
  id: uuid,
  experience_level: z.enum(['beginner', 'intermediate', 'advanced']).nullable(),
  training_days_per_week: z.number().int().min(1).max(7).nullable(),
  session_minutes: z.number().int().min(5).max(600).nullable(),
  focus: z.array(z.string().min(1).max(100)).max(20),
});

/** Every kind of item the record holds, with its schema. Each item has an id and a revision. */
export const recordItemSchemas = {
  exercise,
  workout,
  feedback,
  routine,
  goal,
  checkin,
  meal,
  body_measurement: bodyMeasurement,
  equipment_setup: equipmentSetup,
  fitness_preferences: fitnessPreferences,
} as const;
export type RecordKind = keyof typeof recordItemSchemas;
export const recordKinds = Object.keys(recordItemSchemas) as RecordKind[];
export type RecordItem<K extends RecordKind = RecordKind> = z.infer<(typeof recordItemSchemas)[K]>;

export { subscriptionTier };
