// Agent Access wire shapes (spec sections 2.1-2.10, 4.1, 4.2, 7). These are what an AI client
// receives, so they are strict: an unexpected field is a leak or a bug, never tolerated.
// Nutrition and body-measurement reads are "not shown" in the spec; their operations and
// resources below are our design, built in the same style as the specified ones.
import { z } from 'zod';
import { withToolJsonSchema } from './json-schema.ts';
import { proposal, writeContext, writeRecord } from './write.ts';
import {
  LIMITS,
  bodyweightUnitPreference,
  dateTime,
  checkinScaleValue,
  difficulty,
  goalCanonicalUnit,
  goalStatus,
  goalTargetUnit,
  goalType,
  heightUnitPreference,
  localDate,
  muscleGroup,
  pageLimit,
  nextTimeIntent,
  readScope,
  recordIndicator,
  recordText,
  requestedId,
  setType,
  timezone,
  trackingType,
  unitPreference,
  uuid,
  type ReadScope,
} from './common.ts';

export const SCHEMA_VERSION = 'agent-access.v1';

const nonNegativeInt = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();
const revision = positiveInt;
const cursor = z.string().min(LIMITS.cursorLength.min).max(LIMITS.cursorLength.max);
const nextCursor = cursor.nullable();

// ---------------------------------------------------------------------------------------------
// 2.2 units

export const units = z.strictObject({
  canonical: z.strictObject({
    mass: z.literal('kg'),
    length: z.literal('metres'),
    duration: z.literal('seconds'),
  }),
  unit_preference: unitPreference,
  height_unit_preference: heightUnitPreference,
  bodyweight_unit_preference: bodyweightUnitPreference,
});
export type Units = z.infer<typeof units>;

// ---------------------------------------------------------------------------------------------
// 2.3 shared wrappers

/** Athlete-written text, marked so that a client treats it as data and never as instructions. */
export const textWrapper = z.strictObject({
  value: recordText,
  handling: z.literal('untrusted_record_text'),
});
export type TextWrapper = z.infer<typeof textWrapper>;

export const provenance = z.enum(['derived', 'recorded', 'prescribed', 'self_reported']);

const calculationVersion = z.string().min(LIMITS.calculationVersion.min).max(LIMITS.calculationVersion.max);

export const derivedMetricMetadata = z.strictObject({
  provenance: z.literal('derived'),
  calculation_version: calculationVersion,
  computed_at: dateTime,
  // The spec lets each bound be an instant or a local date independently.
  window: z.strictObject({
    from: z.union([dateTime, localDate]),
    to: z.union([dateTime, localDate]),
  }),
  sample_count: nonNegativeInt,
});
export type DerivedMetricMetadata = z.infer<typeof derivedMetricMetadata>;

export const derivedCount = z.strictObject({ value: nonNegativeInt, metadata: derivedMetricMetadata });

export const derivedBoolean = z.strictObject({ value: z.boolean(), metadata: derivedMetricMetadata });

// ---------------------------------------------------------------------------------------------
// 4.1 list query parameters and the resolved date window

/** Inclusive count of local days from `from` to `to`: a single-day window is 1 day. */
export function windowDays(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
}

/** Check shared by query windows and response windows, so a response never exceeds what a request may ask. */
export function checkWindow(w: { from: string | null; to: string | null }, ctx: z.RefinementCtx): void {
  if ((w.from === null) !== (w.to === null)) {
    ctx.addIssue({
      code: 'custom',
      message: 'from and to must be given together, or both omitted',
      path: [w.from === null ? 'from' : 'to'],
    });
    return;
  }
  // A date that is not one is refused by its own field; comparing it would only add a wrong reason.
  if (w.from === null || w.to === null || !localDate.safeParse(w.from).success || !localDate.safeParse(w.to).success) return;
  if (w.from > w.to) {
    ctx.addIssue({ code: 'custom', message: 'from must not be after to', path: ['from'] });
    return;
  }
  if (windowDays(w.from, w.to) > LIMITS.rangeDaysMax) {
    ctx.addIssue({
      code: 'custom',
      message: `the range from..to must span at most ${LIMITS.rangeDaysMax} days (both dates included)`,
      path: ['to'],
    });
  }
}

/** Resolved window of a response: local dates in the record timezone, both included. */
export const dateWindow = z.strictObject({ from: localDate, to: localDate }).superRefine(checkWindow);

/** `data` of a list over a date window: the resolved window, a page of items, the next cursor. */
function windowedList<I extends z.ZodType>(item: I) {
  return z.strictObject({
    window: dateWindow,
    items: z.array(item).max(LIMITS.pageSizeMax),
    next_cursor: nextCursor,
  });
}

// Query strings arrive as text while MCP tool arguments arrive as JSON: `pageLimit` reads both.
/**
 * What a model is told of `limit`: the JSON value a tool call sends. The digits-only text form
 * exists for query strings, where every value is text; a tool schema that offered it would only
 * invite models to send strings.
 */
export const LIMIT_JSON_SCHEMA = {
  type: 'integer',
  minimum: 1,
  maximum: LIMITS.pageSizeMax,
  default: LIMITS.pageSizeDefault,
  description: `Items a page, 1-${LIMITS.pageSizeMax}.`,
} as const;
const limit = withToolJsonSchema(pageLimit.default(LIMITS.pageSizeDefault), LIMIT_JSON_SCHEMA);
const pageCursor = cursor.nullable().default(null).describe('next_cursor of the previous page, unchanged.');

const pageFields = {
  limit,
  cursor: pageCursor,
};

/** Query of list operations without a date window (`list_saved_routines`). */
export const pageQuery = z.strictObject(pageFields);
export type PageQuery = z.infer<typeof pageQuery>;

/** Query of list operations that take a window: limit, cursor, from, to (4.1). */
export const listQuery = z
  .strictObject({
    ...pageFields,
    from: localDate.nullable().default(null).describe(`Window start, with to; at most ${LIMITS.rangeDaysMax} days. Default: the last 30 days.`),
    to: localDate.nullable().default(null).describe('Window end (local date), with from.'),
  })
  .superRefine(checkWindow);
export type ListQuery = z.infer<typeof listQuery>;

export const workoutPathParams = z.strictObject({ workout_id: requestedId.describe('A workout id from list_completed_workouts.') });
export const exercisePathParams = z.strictObject({ exercise_id: requestedId.describe('An exercise id from list_exercises (or a workout, or the snapshot).') });
export const routinePathParams = z.strictObject({ routine_id: requestedId.describe('A routine id from list_saved_routines.') });

/** Longest exercise-name query: room for any name's words (names are at most 200 characters). */
export const EXERCISE_QUERY_MAX = 100;
const exerciseQuery = z
  .string()
  .trim()
  .min(1)
  .max(EXERCISE_QUERY_MAX)
  .nullable()
  .default(null)
  .describe('Words beginning words of the name, any order ("bench barbell").');

/** Query of `list_exercises`: an optional name search, paged. */
export const exerciseListQuery = z.strictObject({ query: exerciseQuery, ...pageFields });
export type ExerciseListQuery = z.infer<typeof exerciseListQuery>;

/**
 * Query of `get_personal_records`: one exercise by id, or the page of exercises that
 * `list_exercises` gives for the same query, limit and cursor (its cursors work here too).
 */
export const personalRecordsQuery = z
  .strictObject({
    exercise_id: requestedId.nullable().default(null).describe('One exercise (from list_exercises), alone.'),
    query: exerciseQuery,
    limit: withToolJsonSchema(pageLimit.optional(), LIMIT_JSON_SCHEMA),
    cursor: pageCursor.describe('next_cursor of this or list_exercises (same query), unchanged.'),
  })
  .superRefine((q, ctx) => {
    if (q.exercise_id === null) return;
    for (const key of ['query', 'limit', 'cursor'] as const) {
      if (q[key] !== null && q[key] !== undefined)
        ctx.addIssue({ code: 'custom', message: 'give exercise_id alone, or query, limit and cursor without it', path: [key] });
    }
  });
export type PersonalRecordsQuery = z.infer<typeof personalRecordsQuery>;

// ---------------------------------------------------------------------------------------------
// 2.4 access context

export const accessContext = z.strictObject({
  grant_id: uuid,
  scopes: z
    .array(readScope)
    .min(1)
    .refine((s) => new Set(s).size === s.length, { message: 'scopes must not repeat' }),
  record: z.strictObject({ timezone, units }),
  constraints: z.strictObject({
    read_only: z.literal(true),
    background_sync: z.literal(false),
    maximum_page_size: z.literal(LIMITS.pageSizeMax),
    maximum_range_days: z.literal(LIMITS.rangeDaysMax),
  }),
});

// ---------------------------------------------------------------------------------------------
// 2.6 goal

// All stored measurements are canonical (2.2), so the canonical unit follows from the target unit.
const canonicalUnitOf = { kg: 'kg', lbs: 'kg', sessions: 'sessions', kcal: 'kcal', g: 'g' } as const;

export const goal = z
  .strictObject({
    id: uuid,
    goal_type: goalType,
    status: goalStatus,
    exercise_id: uuid.nullable(),
    target_value: z.number().positive(),
    target_unit: goalTargetUnit,
    canonical_target_value: z.number().positive(),
    canonical_target_unit: goalCanonicalUnit,
    achieved_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
    provenance: z.literal('prescribed'),
  })
  .refine((g) => canonicalUnitOf[g.target_unit] === g.canonical_target_unit, {
    message: 'canonical_target_unit must be the canonical unit of target_unit',
    path: ['canonical_target_unit'],
  });
export type Goal = z.infer<typeof goal>;

// ---------------------------------------------------------------------------------------------
// 2.5 training snapshot

export const feedbackEntry = z.strictObject({
  difficulty,
  next_time_intent: nextTimeIntent,
  recorded_at: dateTime,
  provenance: z.literal('self_reported'),
});

export const recentFeedback = z.strictObject({ workout_id: uuid, ...feedbackEntry.shape });

export const exerciseFrequency = z.strictObject({
  exercise_id: uuid,
  name: textWrapper,
  completed_sessions: nonNegativeInt,
  achieved_sets: nonNegativeInt,
  metadata: derivedMetricMetadata,
});

export const trainingSnapshot = z.strictObject({
  summary: z.strictObject({
    workouts_this_week: derivedCount,
    workouts_last_30_days: derivedCount,
    consecutive_active_weeks: derivedCount,
    streak_is_current: derivedBoolean,
  }),
  exercise_frequency: z.array(exerciseFrequency),
  goals: z.array(goal),
  recent_feedback: z.array(recentFeedback),
});
export type TrainingSnapshot = z.infer<typeof trainingSnapshot>;

// ---------------------------------------------------------------------------------------------
// 2.7 completed workout

export const workoutDuration = z
  .strictObject({
    seconds: nonNegativeInt.nullable(),
    basis: z.enum(['recorded_start', 'unknown']),
    provenance: z.literal('derived'),
    calculation_version: z.literal('duration.v1'),
    computed_at: dateTime,
    baseline: z.literal('recorded_start_to_end'),
    // Two samples (start and end) give a duration; without a recorded start there is none.
    sample_count: z.literal([0, 2]),
  })
  .refine((d) => (d.basis === 'recorded_start') === (d.seconds !== null), {
    message: 'seconds is null exactly when basis is unknown',
    path: ['seconds'],
  })
  .refine((d) => d.sample_count === (d.seconds === null ? 0 : 2), {
    message: 'sample_count is 2 with a duration and 0 without',
    path: ['sample_count'],
  });
export type WorkoutDuration = z.infer<typeof workoutDuration>;

const workoutSummaryShape = {
  id: uuid,
  title: textWrapper,
  started_at: dateTime.nullable(),
  ended_at: dateTime,
  created_at: dateTime,
  updated_at: dateTime,
  revision,
  duration: workoutDuration,
  provenance: z.literal('recorded'),
};

function durationMatchesStart(w: { started_at: string | null; duration: WorkoutDuration }): boolean {
  return (w.started_at !== null) === (w.duration.basis === 'recorded_start');
}
const durationMatchesStartIssue = {
  message: 'duration.basis is recorded_start exactly when started_at is recorded',
  path: ['duration', 'basis'],
};

export const workoutSummary = z.strictObject(workoutSummaryShape).refine(durationMatchesStart, durationMatchesStartIssue);
export type WorkoutSummary = z.infer<typeof workoutSummary>;

export const historicalRecordAtCompletion = z.strictObject({
  indicators: z.array(recordIndicator).refine((i) => new Set(i).size === i.length, { message: 'indicators must not repeat' }),
  metadata: z.strictObject({
    provenance: z.literal('derived'),
    calculation_version: z.literal('historical-record-at-completion.v1'),
    computed_at: dateTime,
    baseline: z.literal('eligible_prior_sets_before_workout_completion'),
    sample_count: nonNegativeInt,
  }),
});

// Performance fields are "number or null" in the spec with no range; we do not invent one.
const performanceShape = {
  weight_kg: z.number().nullable(),
  reps: z.number().int().nullable(),
  rpe: z.number().nullable(),
  rpe_provenance: z.literal('self_reported'),
  duration_seconds: z.number().int().nullable(),
  distance_metres: z.number().nullable(),
  incline_percent: z.number().nullable(),
};

export const workoutSetEntry = z.strictObject({
  position: nonNegativeInt,
  set_number: positiveInt,
  set_type: setType,
  parent_position: nonNegativeInt.nullable(),
  structure_version: positiveInt,
  ...performanceShape,
  target_rpe: z.number().nullable(),
  target_rpe_provenance: z.literal('prescribed'),
  historical_record_at_completion: historicalRecordAtCompletion,
  provenance: z.literal('recorded'),
});

export const workoutExerciseEntry = z.strictObject({
  exercise_id: uuid,
  name: textWrapper,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType,
  exercise_order: nonNegativeInt,
  superset_id: uuid.nullable(),
  sets: z.array(workoutSetEntry).max(LIMITS.setsPerWorkoutExercise),
});

export const workoutDetail = z
  .strictObject({
    ...workoutSummaryShape,
    achieved_set_count: nonNegativeInt.max(LIMITS.achievedSetCountMax),
    feedback: feedbackEntry.nullable(),
    exercises: z.array(workoutExerciseEntry),
  })
  .refine(durationMatchesStart, durationMatchesStartIssue);
export type WorkoutDetail = z.infer<typeof workoutDetail>;

// ---------------------------------------------------------------------------------------------
// 2.8 exercise history

export const historySetEntry = z.strictObject({
  position: nonNegativeInt,
  set_number: positiveInt,
  ...performanceShape,
  provenance: z.literal('recorded'),
});

export const exerciseHistoryItem = z.strictObject({
  workout_id: uuid,
  ended_at: dateTime,
  sets: z.array(historySetEntry),
});

export const exerciseHistory = z.strictObject({
  window: dateWindow,
  exercise: z.strictObject({ id: uuid, name: textWrapper }),
  items: z.array(exerciseHistoryItem).max(LIMITS.pageSizeMax),
  next_cursor: nextCursor,
});
export type ExerciseHistory = z.infer<typeof exerciseHistory>;

// ---------------------------------------------------------------------------------------------
// Exercises and personal records: OUR DESIGN (issue 16; the spec has neither operation). Exercises
// are listed by name, case and accents folded, ids breaking ties.

export const exerciseListItem = z.strictObject({
  id: uuid,
  name: textWrapper,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType,
  /** Completed workouts that include the exercise. */
  session_count: nonNegativeInt,
  /** When the latest of them ended; null when none has. */
  last_done_at: dateTime.nullable(),
});

export const exerciseList = z.strictObject({
  items: z.array(exerciseListItem).max(LIMITS.pageSizeMax),
  next_cursor: nextCursor,
});
export type ExerciseList = z.infer<typeof exerciseList>;

/** The set holding a best: the value, and the workout and set where it was done. */
export const personalRecord = z.strictObject({
  value: z.number().positive(),
  /** The workout's local date in the record timezone. */
  date: localDate,
  workout_id: uuid,
  /** When the record was set: the end of that workout. */
  set_at: dateTime,
  set_number: positiveInt,
  weight_kg: z.number().nullable(),
  reps: z.number().int().nullable(),
});
export type PersonalRecord = z.infer<typeof personalRecord>;

export const exercisePersonalRecords = z.strictObject({
  exercise: z.strictObject({ id: uuid, name: textWrapper }),
  records: z
    .strictObject({
      weight: personalRecord.nullable(),
      reps: personalRecord.nullable(),
      set_volume: personalRecord.nullable(),
      estimated_1rm: personalRecord.nullable(),
    })
    .describe('Current best per label (null: no eligible set yet). Values: weight and estimated_1rm in kg, reps a count, set_volume kg x reps.'),
  metadata: derivedMetricMetadata,
});
export type ExercisePersonalRecords = z.infer<typeof exercisePersonalRecords>;

export const personalRecords = z.strictObject({
  items: z.array(exercisePersonalRecords).max(LIMITS.pageSizeMax),
  next_cursor: nextCursor,
});
export type PersonalRecords = z.infer<typeof personalRecords>;

// ---------------------------------------------------------------------------------------------
// 2.9 saved routine

const routineListItemShape = {
  id: uuid,
  revision,
  title: textWrapper,
  exercise_count: nonNegativeInt,
  updated_at: dateTime,
  provenance: z.literal('prescribed'),
};

export const routineListItem = z.strictObject(routineListItemShape);
export type RoutineListItem = z.infer<typeof routineListItem>;

export const routineExerciseEntry = z.strictObject({
  position: nonNegativeInt,
  exercise_id: uuid,
  name: textWrapper,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType.nullable(),
  sets: z.number().int().min(LIMITS.setsPerRoutineExercise.min).max(LIMITS.setsPerRoutineExercise.max),
  reps: z.string().min(LIMITS.repsText.min).max(LIMITS.repsText.max),
  target_rpe: z.number().nullable(),
  rest_seconds: z.number().int().nullable(),
  provenance: z.literal('prescribed'),
});

export const routineDetail = z
  .strictObject({
    ...routineListItemShape,
    exercises: z.array(routineExerciseEntry).max(LIMITS.exercisesPerRoutine),
  })
  .refine((r) => r.exercise_count === r.exercises.length, {
    message: 'exercise_count must equal the number of exercises',
    path: ['exercise_count'],
  });
export type RoutineDetail = z.infer<typeof routineDetail>;

// ---------------------------------------------------------------------------------------------
// 2.10 recovery check-ins

export const recoveryCheckin = z.strictObject({
  date: localDate,
  sleep_quality: checkinScaleValue,
  energy: checkinScaleValue,
  soreness: checkinScaleValue,
  stress: checkinScaleValue,
  updated_at: dateTime,
  provenance: z.literal('self_reported'),
});

export const recoveryCheckins = z.strictObject({
  window: dateWindow,
  scale: z.strictObject({
    minimum: z.literal(1),
    maximum: z.literal(5),
    higher_is_better: z.literal(true),
    soreness_five_means: z.literal('no_soreness'),
  }),
  items: z.array(recoveryCheckin).max(LIMITS.pageSizeMax),
  next_cursor: nextCursor,
});
export type RecoveryCheckins = z.infer<typeof recoveryCheckins>;

// ---------------------------------------------------------------------------------------------
// Nutrition and body measurements: OUR DESIGN (the spec shows neither fields nor operations).

const nutrientAmount = z.number().nonnegative().nullable();

/** A meal as the athlete logged it; `local_date` is the date of `eaten_at` in the record timezone. */
export const meal = z.strictObject({
  id: uuid,
  eaten_at: dateTime,
  local_date: localDate,
  name: textWrapper,
  calories_kcal: nutrientAmount,
  protein_g: nutrientAmount,
  carbohydrate_g: nutrientAmount,
  fat_g: nutrientAmount,
  updated_at: dateTime,
  revision,
  provenance: z.literal('self_reported'),
});
export type Meal = z.infer<typeof meal>;

export const meals = windowedList(meal);
export type Meals = z.infer<typeof meals>;

/**
 * A total over the meals of one local day. `value` is null when no meal of the day recorded the
 * nutrient, so that "not logged" is never confused with zero; `sample_count` counts the meals
 * whose value went into the total.
 */
export const derivedNutrientTotal = z.strictObject({
  value: z.number().nonnegative().nullable(),
  metadata: derivedMetricMetadata,
});

/** One local day with at least one logged meal; days without meals are not listed. */
export const dailyNutritionSummary = z.strictObject({
  date: localDate,
  meal_count: positiveInt,
  calories_kcal: derivedNutrientTotal,
  protein_g: derivedNutrientTotal,
  carbohydrate_g: derivedNutrientTotal,
  fat_g: derivedNutrientTotal,
});

export const dailyNutritionSummaries = windowedList(dailyNutritionSummary);
export type DailyNutritionSummaries = z.infer<typeof dailyNutritionSummaries>;

export const bodyMeasurementMetric = z.enum(['bodyweight', 'body_fat', 'height', 'waist', 'chest', 'hips', 'arm', 'thigh', 'neck']);
export type BodyMeasurementMetric = z.infer<typeof bodyMeasurementMetric>;

export const bodyMeasurementUnit = z.enum(['kg', 'percent', 'metres']);
export type BodyMeasurementUnit = z.infer<typeof bodyMeasurementUnit>;

/** Values are canonical, so each metric has exactly one unit; it is sent so a client need not know this table. */
export const BODY_MEASUREMENT_UNITS = {
  bodyweight: 'kg',
  body_fat: 'percent',
  height: 'metres',
  waist: 'metres',
  chest: 'metres',
  hips: 'metres',
  arm: 'metres',
  thigh: 'metres',
  neck: 'metres',
} as const satisfies Record<BodyMeasurementMetric, BodyMeasurementUnit>;

export const bodyMeasurement = z
  .strictObject({
    id: uuid,
    measured_at: dateTime,
    metric: bodyMeasurementMetric,
    value: z.number().positive(),
    unit: bodyMeasurementUnit,
    revision,
    updated_at: dateTime,
    provenance: z.literal('self_reported'),
  })
  .refine((m) => BODY_MEASUREMENT_UNITS[m.metric] === m.unit, {
    message: 'unit must be the canonical unit of metric',
    path: ['unit'],
  })
  .refine((m) => m.unit !== 'percent' || m.value <= 100, {
    message: 'a percentage is at most 100',
    path: ['value'],
  });
export type BodyMeasurement = z.infer<typeof bodyMeasurement>;

export const bodyMeasurements = windowedList(bodyMeasurement);
export type BodyMeasurements = z.infer<typeof bodyMeasurements>;

// ---------------------------------------------------------------------------------------------
// 4.2 operations and 2.1 envelope

/**
 * Every Agent Access read, with its route and the scope it needs (null: any authenticated grant).
 * The spec names only `training` and `recovery` operations; the nutrition and body-measurement
 * operations are our design and carry the `nutrition` and `body_measurements` scopes, which the
 * spec lists as valid scope names (5.1) but never assigns to an operation.
 */
export const agentAccessOperations = {
  get_access_context: { path: '/v1/agent-access/context', scope: null },
  get_training_snapshot: { path: '/v1/agent-access/training/snapshot', scope: 'training' },
  list_completed_workouts: { path: '/v1/agent-access/training/workouts', scope: 'training' },
  get_completed_workout: { path: '/v1/agent-access/training/workouts/:workout_id', scope: 'training' },
  get_exercise_history: { path: '/v1/agent-access/training/exercises/:exercise_id/history', scope: 'training' },
  list_exercises: { path: '/v1/agent-access/training/exercises', scope: 'training' },
  get_personal_records: { path: '/v1/agent-access/training/personal-records', scope: 'training' },
  list_saved_routines: { path: '/v1/agent-access/training/routines', scope: 'training' },
  get_saved_routine: { path: '/v1/agent-access/training/routines/:routine_id', scope: 'training' },
  list_recovery_checkins: { path: '/v1/agent-access/recovery/check-ins', scope: 'recovery' },
  list_meals: { path: '/v1/agent-access/nutrition/meals', scope: 'nutrition' },
  list_daily_nutrition: { path: '/v1/agent-access/nutrition/daily', scope: 'nutrition' },
  list_body_measurements: { path: '/v1/agent-access/body-measurements', scope: 'body_measurements' },
  // Writes (4.3): which area's scope or permission a change needs depends on what it changes, so
  // the operation itself needs none beyond the connection; each item and action is checked.
  get_write_context: { path: '/v1/agent-access/writes/context', scope: null },
  get_write_record: { path: '/v1/agent-access/writes/records', scope: null },
  prepare_write_proposal: { path: '/v1/agent-access/writes/proposals', scope: null },
  get_write_proposal: { path: '/v1/agent-access/writes/proposals', scope: null },
} as const satisfies Record<string, { path: string; scope: ReadScope | null }>;
export type AgentAccessOperation = keyof typeof agentAccessOperations;
export const agentAccessOperationIds = Object.keys(agentAccessOperations) as AgentAccessOperation[];

type ScopeOf<Op extends AgentAccessOperation> = (typeof agentAccessOperations)[Op]['scope'];
type ScopeSchema<S> = S extends string ? z.ZodLiteral<S> : z.ZodNull;

/**
 * The 2.1 envelope of one operation: exactly eight fields. `operation` and `scope` are fixed by
 * the operation, so a handler cannot answer under another operation's name or scope.
 */
export function envelope<Op extends AgentAccessOperation, D extends z.ZodType>(operation: Op, data: D) {
  const { scope } = agentAccessOperations[operation];
  const scopeSchema = (scope === null ? z.null() : z.literal(scope)) as ScopeSchema<ScopeOf<Op>>;
  return z.strictObject({
    schema_version: z.literal(SCHEMA_VERSION),
    request_id: uuid,
    operation: z.literal(operation),
    as_of: dateTime,
    timezone,
    units,
    scope: scopeSchema,
    data,
  });
}

/** `data` of each operation. */
export const agentAccessData = {
  get_access_context: accessContext,
  get_training_snapshot: trainingSnapshot,
  list_completed_workouts: windowedList(workoutSummary),
  get_completed_workout: z.strictObject({ workout: workoutDetail }),
  get_exercise_history: exerciseHistory,
  list_exercises: exerciseList,
  get_personal_records: personalRecords,
  list_saved_routines: z.strictObject({
    items: z.array(routineListItem).max(LIMITS.pageSizeMax),
    next_cursor: nextCursor,
  }),
  get_saved_routine: z.strictObject({ routine: routineDetail }),
  list_recovery_checkins: recoveryCheckins,
  list_meals: meals,
  list_daily_nutrition: dailyNutritionSummaries,
  list_body_measurements: bodyMeasurements,
  get_write_context: writeContext,
  get_write_record: z.strictObject({ item: writeRecord }),
  prepare_write_proposal: z.strictObject({ proposal }),
  get_write_proposal: z.strictObject({ proposal }),
} as const satisfies Record<AgentAccessOperation, z.ZodType>;

export const getAccessContextResponse = envelope('get_access_context', agentAccessData.get_access_context);
export const getTrainingSnapshotResponse = envelope('get_training_snapshot', agentAccessData.get_training_snapshot);
export const listCompletedWorkoutsResponse = envelope('list_completed_workouts', agentAccessData.list_completed_workouts);
export const getCompletedWorkoutResponse = envelope('get_completed_workout', agentAccessData.get_completed_workout);
export const getExerciseHistoryResponse = envelope('get_exercise_history', agentAccessData.get_exercise_history);
export const listSavedRoutinesResponse = envelope('list_saved_routines', agentAccessData.list_saved_routines);
export const getSavedRoutineResponse = envelope('get_saved_routine', agentAccessData.get_saved_routine);
export const listRecoveryCheckinsResponse = envelope('list_recovery_checkins', agentAccessData.list_recovery_checkins);
export const listMealsResponse = envelope('list_meals', agentAccessData.list_meals);
export const listDailyNutritionResponse = envelope('list_daily_nutrition', agentAccessData.list_daily_nutrition);
export const listBodyMeasurementsResponse = envelope('list_body_measurements', agentAccessData.list_body_measurements);

export type GetAccessContextResponse = z.infer<typeof getAccessContextResponse>;
export type GetTrainingSnapshotResponse = z.infer<typeof getTrainingSnapshotResponse>;
export type ListMealsResponse = z.infer<typeof listMealsResponse>;
export type ListBodyMeasurementsResponse = z.infer<typeof listBodyMeasurementsResponse>;

export const agentAccessResponses = {
  get_access_context: getAccessContextResponse,
  get_training_snapshot: getTrainingSnapshotResponse,
  list_completed_workouts: listCompletedWorkoutsResponse,
  get_completed_workout: getCompletedWorkoutResponse,
  get_exercise_history: getExerciseHistoryResponse,
  list_exercises: envelope('list_exercises', agentAccessData.list_exercises),
  get_personal_records: envelope('get_personal_records', agentAccessData.get_personal_records),
  list_saved_routines: listSavedRoutinesResponse,
  get_saved_routine: getSavedRoutineResponse,
  list_recovery_checkins: listRecoveryCheckinsResponse,
  list_meals: listMealsResponse,
  list_daily_nutrition: listDailyNutritionResponse,
  list_body_measurements: listBodyMeasurementsResponse,
  get_write_context: envelope('get_write_context', agentAccessData.get_write_context),
  get_write_record: envelope('get_write_record', agentAccessData.get_write_record),
  prepare_write_proposal: envelope('prepare_write_proposal', agentAccessData.prepare_write_proposal),
  get_write_proposal: envelope('get_write_proposal', agentAccessData.get_write_proposal),
} as const satisfies Record<AgentAccessOperation, z.ZodType>;
export type AgentAccessData<Op extends AgentAccessOperation> = z.infer<(typeof agentAccessData)[Op]>;
export type AgentAccessResponse<Op extends AgentAccessOperation = AgentAccessOperation> = z.infer<(typeof agentAccessResponses)[Op]>;

// ---------------------------------------------------------------------------------------------
// 7 errors (the spec fixes the statuses; body fields and codes are our design)

/**
 * Stable error codes. Reads have one per HTTP status; write refusals that a client handles
 * differently from a bad field (re-read the item, choose a new command id, ask the athlete for a
 * permission) have codes of their own under the same statuses.
 */
export const AGENT_ACCESS_ERROR_CODES = [
  'invalid_input',
  'revision_conflict',
  'command_id_reused',
  'unauthorized',
  'insufficient_scope',
  'write_permission_required',
  'not_found',
  'payload_too_large',
  'rate_limited',
  'pending_proposals_limit',
  'proposal_bytes_limit',
  'unavailable',
] as const;
export type AgentAccessErrorCode = (typeof AGENT_ACCESS_ERROR_CODES)[number];

export const AGENT_ACCESS_ERROR_STATUS = {
  /** A query parameter, path id or body failed validation. */
  invalid_input: 400,
  /** An update or delete was made against an older revision of the item: read it again. */
  revision_conflict: 400,
  /** The command_id names another proposal (another body, or another connection's). */
  command_id_reused: 400,
  /** Bearer token missing, invalid or expired, or the connection no longer exists. Sent with `WWW-Authenticate`. */
  unauthorized: 401,
  /** The grant lacks the scope the operation needs. Sent with `WWW-Authenticate`. */
  insufficient_scope: 403,
  /** The athlete has not allowed this connection the change; `permissions_url` is the form to ask. Sent with `WWW-Authenticate`. */
  write_permission_required: 403,
  /** The id does not exist or belongs to another athlete; the two are deliberately not distinguished. */
  not_found: 404,
  /** A request body is too large. */
  payload_too_large: 413,
  /** A quota is used up; sent with `Retry-After`. */
  rate_limited: 429,
  /**
   * The connection has as many write proposals awaiting the athlete's review as it may have at
   * once; sent with `Retry-After`, the seconds until the soonest expires (the athlete deciding one
   * makes room sooner).
   */
  pending_proposals_limit: 429,
  /**
   * The connection's write proposals of the last 24 hours, with this one, would store more bytes
   * than it may; sent with `Retry-After`, the seconds until enough of them leave the window.
   */
  proposal_bytes_limit: 429,
  /** The service, or its write side, is temporarily unavailable; sent with `Retry-After`. */
  unavailable: 503,
} as const satisfies Record<AgentAccessErrorCode, number>;

export const agentAccessErrorCode = z.enum(AGENT_ACCESS_ERROR_CODES);

/** Where a write refusal applies, and what the athlete can do about it. */
export const errorDetails = {
  /** The index of the refused action in `actions`. */
  action_index: z.number().int().nonnegative().optional(),
  /** The refused field, as a dotted path into the request body (`actions.2.record.date`). */
  field: z.string().min(1).max(500).optional(),
  /** The permission form to send the athlete (`write_permission_required`). */
  permissions_url: z.url().optional(),
};
export const agentAccessError = z.strictObject({
  error: z.strictObject({ code: agentAccessErrorCode, message: z.string().min(1), request_id: uuid, ...errorDetails }),
});
