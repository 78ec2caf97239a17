// Read API v1 wire shapes (spec 2.11, 4.4): six GET routes for bots, under /api/v1.
// The spec names the resources but not the fields inside `data`; every field name here is our
// design. Unlike Agent Access there is no text wrapper or provenance: this API serves the
// athlete's own bots, and the spec gives it a plain `{data, request_id}` envelope.
import { z } from 'zod';
import { AGENT_ACCESS_ERROR_STATUS, type AgentAccessOperation } from './agent-access.ts';
import {
  LIMITS,
  errorBody,
  localDate,
  muscleGroup,
  pageLimit,
  recordIndicator,
  recordText,
  setType,
  timezone,
  trackingType,
  unitPreference,
} from './common.ts';

/** Identifiers are opaque to clients (2.11); the bound only keeps them to a sane size. */
export const opaqueId = z.string().min(1).max(128);
/** Timestamps are UTC ISO (2.11), so an offset other than `Z` is refused. */
export const utcDateTime = z.iso.datetime();

const nonNegativeInt = z.number().int().nonnegative();
const cursor = z.string().min(LIMITS.cursorLength.min).max(LIMITS.cursorLength.max);

// ---------------------------------------------------------------------------------------------
// Envelope and errors

/** Success envelope: `data` and a top-level `request_id` equal to the `X-Request-Id` header. */
export function success<D extends z.ZodType>(data: D) {
  return z.strictObject({ data, request_id: opaqueId });
}

/** `data` of the list routes. */
export function page<I extends z.ZodType>(item: I) {
  return z.strictObject({
    items: z.array(item).max(LIMITS.pageSizeMax),
    next_cursor: cursor.nullable(),
  });
}

/** The same codes as Agent Access where the situation is the same; this API has no scopes, and takes no bodies. */
export const READ_API_ERROR_CODES = ['invalid_input', 'unauthorized', 'not_found', 'payload_too_large', 'rate_limited', 'unavailable'] as const;
export type ReadApiErrorCode = (typeof READ_API_ERROR_CODES)[number];

/** Agent Access's statuses for the shared codes (`not_found` also for an id of another athlete). */
export const READ_API_ERROR_STATUS = Object.fromEntries(READ_API_ERROR_CODES.map((code) => [code, AGENT_ACCESS_ERROR_STATUS[code]])) as {
  [C in ReadApiErrorCode]: (typeof AGENT_ACCESS_ERROR_STATUS)[C];
};

export const readApiErrorCode = z.enum(READ_API_ERROR_CODES);

export const readApiError = errorBody(readApiErrorCode, opaqueId);
export type ReadApiError = z.infer<typeof readApiError>;

// ---------------------------------------------------------------------------------------------
// Input

// The spec gives Read API v1 no default page size; we use the Agent Access default.
const limit = pageLimit.default(LIMITS.pageSizeDefault);

export const readApiListQuery = z.strictObject({
  limit,
  cursor: cursor.nullable().default(null),
});
export type ReadApiListQuery = z.infer<typeof readApiListQuery>;

export const readApiIdParams = z.strictObject({ id: opaqueId });

// ---------------------------------------------------------------------------------------------
// GET /api/v1/me

export const me = z.strictObject({
  display_name: z.string().min(1).max(100),
  unit_preference: unitPreference,
  timezone,
});
export type Me = z.infer<typeof me>;

// ---------------------------------------------------------------------------------------------
// GET /api/v1/stats

/** A run of local days, both included, with the completed workouts whose local date falls in it. */
export const statsPeriod = z.strictObject({
  from: localDate,
  to: localDate,
  completed_workouts: nonNegativeInt,
});

const dayOf = (date: string): number => Math.round(Date.parse(date) / 86_400_000);
const isMonday = (date: string): boolean => new Date(date).getUTCDay() === 1;

export const stats = z
  .strictObject({
    /** The validated profile timezone that local dates and weeks were computed in. */
    timezone,
    /** The instant the figures are for. */
    as_of: utcDateTime,
    /** This week so far: its Monday to today (weeks run Monday to Sunday). */
    this_week: statsPeriod,
    /** The 30 local days ending today, both included. */
    rolling_30_days: statsPeriod,
    /** Monday-to-Sunday weeks, each with a completed workout, in the streak ending this or last week. */
    consecutive_active_weeks: nonNegativeInt,
    /** True when the latest active week is this week or the one before. */
    streak_is_current: z.boolean(),
  })
  .refine((s) => isMonday(s.this_week.from) && s.this_week.to === s.rolling_30_days.to && dayOf(s.this_week.to) - dayOf(s.this_week.from) <= 6, {
    message: 'this_week runs from its Monday to today, the last day of rolling_30_days',
    path: ['this_week'],
  })
  .refine((s) => dayOf(s.rolling_30_days.to) - dayOf(s.rolling_30_days.from) === 29, {
    message: 'rolling_30_days spans exactly 30 local days',
    path: ['rolling_30_days'],
  })
  .refine((s) => s.this_week.completed_workouts <= s.rolling_30_days.completed_workouts, {
    message: 'this week lies inside the 30 days, so it cannot hold more workouts',
    path: ['this_week', 'completed_workouts'],
  })
  .refine((s) => !s.streak_is_current || s.consecutive_active_weeks > 0, {
    message: 'a current streak has at least one active week',
    path: ['streak_is_current'],
  });
export type Stats = z.infer<typeof stats>;

// ---------------------------------------------------------------------------------------------
// GET /api/v1/workouts and /api/v1/workouts/{id}

const workoutSummaryShape = {
  id: opaqueId,
  title: recordText,
  started_at: utcDateTime.nullable(),
  ended_at: utcDateTime,
  /** Null without a recorded start. */
  duration_seconds: nonNegativeInt.nullable(),
  exercise_count: nonNegativeInt,
  completed_set_count: nonNegativeInt,
};

export const workoutSummary = z.strictObject(workoutSummaryShape);
export type WorkoutSummary = z.infer<typeof workoutSummary>;

/** A completed set: only completed sets are listed, since the route serves completed performance. */
export const workoutSet = z.strictObject({
  position: nonNegativeInt,
  set_number: z.number().int().positive(),
  set_type: setType,
  weight_kg: z.number().nullable(),
  reps: z.number().int().nullable(),
  rpe: z.number().nullable(),
  duration_seconds: z.number().int().nullable(),
  distance_metres: z.number().nullable(),
  incline_percent: z.number().nullable(),
  /** Records this set set when it was completed; later workouts never remove one. */
  record_indicators: z.array(recordIndicator).refine((i) => new Set(i).size === i.length, { message: 'record_indicators must not repeat' }),
});
export type WorkoutSet = z.infer<typeof workoutSet>;

export const workoutExercise = z.strictObject({
  exercise_id: opaqueId,
  name: recordText,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType,
  /** Exercises of the same superset share this id. */
  superset_id: opaqueId.nullable(),
  sets: z.array(workoutSet).max(LIMITS.setsPerWorkoutExercise),
});
export type WorkoutExercise = z.infer<typeof workoutExercise>;

export const workoutDetail = z.strictObject({
  ...workoutSummaryShape,
  /** In the order they were performed. */
  exercises: z.array(workoutExercise),
});
export type WorkoutDetail = z.infer<typeof workoutDetail>;

// ---------------------------------------------------------------------------------------------
// GET /api/v1/saved-workouts and /api/v1/saved-workouts/{id}

const savedWorkoutSummaryShape = {
  id: opaqueId,
  title: recordText,
  exercise_count: nonNegativeInt,
  updated_at: utcDateTime,
};

export const savedWorkoutSummary = z.strictObject(savedWorkoutSummaryShape);
export type SavedWorkoutSummary = z.infer<typeof savedWorkoutSummary>;

export const savedWorkoutExercise = z.strictObject({
  exercise_id: opaqueId,
  name: recordText,
  muscle_group: muscleGroup.nullable(),
  tracking_type: trackingType.nullable(),
  sets: z.number().int().min(LIMITS.setsPerRoutineExercise.min).max(LIMITS.setsPerRoutineExercise.max),
  /** Free text such as `8-12`, as the athlete planned it. */
  reps: z.string().min(LIMITS.repsText.min).max(LIMITS.repsText.max),
  rest_seconds: nonNegativeInt.nullable(),
});

export const savedWorkoutDetail = z
  .strictObject({
    ...savedWorkoutSummaryShape,
    /** In planned order. */
    exercises: z.array(savedWorkoutExercise).max(LIMITS.exercisesPerRoutine),
  })
  .refine((w) => w.exercise_count === w.exercises.length, {
    message: 'exercise_count must equal the number of exercises',
    path: ['exercise_count'],
  });
export type SavedWorkoutDetail = z.infer<typeof savedWorkoutDetail>;

// ---------------------------------------------------------------------------------------------
// Responses of the six routes

export const meResponse = success(me);
export const statsResponse = success(stats);
export const workoutListResponse = success(page(workoutSummary));
export const workoutResponse = success(workoutDetail);
export const savedWorkoutListResponse = success(page(savedWorkoutSummary));
export const savedWorkoutResponse = success(savedWorkoutDetail);

export type WorkoutListResponse = z.infer<typeof workoutListResponse>;

// ---------------------------------------------------------------------------------------------
// The operations table of the Read API: one entry per route. It drives the tRPC procedures, the
// HTTP routes, the OpenAPI document and the bench, as `operations.ts` does for Agent Access.

export const READ_API_OPERATION_IDS = ['get_me', 'get_stats', 'list_workouts', 'get_workout', 'list_saved_workouts', 'get_saved_workout'] as const;
export type ReadApiOperationId = (typeof READ_API_OPERATION_IDS)[number];

export interface ReadApiOperation<Op extends ReadApiOperationId = ReadApiOperationId, I extends z.ZodObject = z.ZodObject> {
  operationId: Op;
  /** Under `/api/v1`, with `{id}` for the path id. Every route is a GET. */
  path: string;
  /** Quota units a call costs, charged to the bot token before any work: about what it makes the server do. */
  weight: number;
  summary: string;
  description: string;
  /** Path and query parameters together; any other parameter is refused. */
  input: I;
  /** The whole response: `{data, request_id}`. */
  response: z.ZodType;
  /** The Agent Access operation that reads the same documents: its figures and labels are these. */
  twin: AgentAccessOperation;
}

const noInput = z.strictObject({});

export const readApiOperations = {
  get_me: {
    operationId: 'get_me',
    path: '/api/v1/me',
    weight: 1,
    summary: 'The athlete',
    description:
      'Display name, unit preference (`kg` or `lbs`: how the athlete likes weights shown; every weight in this API is in kilograms) and the timezone that local dates and weeks are counted in.',
    input: noInput,
    response: meResponse,
    twin: 'get_access_context',
  },
  get_stats: {
    operationId: 'get_stats',
    path: '/api/v1/stats',
    weight: 2,
    summary: 'Training stats',
    description:
      "Completed workouts this week (Monday to today) and in the 30 local days ending today, consecutive active weeks (Monday to Sunday, each with a completed workout) and whether that streak is current (its latest week is this week or the last). A workout counts on the local date of its start (else its creation) in the athlete's timezone. The same figures as Agent Access's training snapshot.",
    input: noInput,
    response: statsResponse,
    twin: 'get_training_snapshot',
  },
  list_workouts: {
    operationId: 'list_workouts',
    path: '/api/v1/workouts',
    weight: 2,
    summary: 'Completed workouts',
    description:
      'Every completed workout, newest first: by end time, then by id, so the order is total and stable. `limit` 1-10 (default 5); pass `next_cursor` back as `cursor` for the next page, until it is null. Workouts added while paging never repeat or push another out of the walk.',
    input: readApiListQuery,
    response: workoutListResponse,
    twin: 'list_completed_workouts',
  },
  get_workout: {
    operationId: 'get_workout',
    path: '/api/v1/workouts/{id}',
    weight: 2,
    summary: 'One completed workout',
    description:
      "A completed workout with its exercises in the order performed and their completed sets. Each set lists the records it set when it was completed (`weight`, `reps`, `set_volume`, `estimated_1rm`): it beat every eligible earlier set of that exercise. An id that is not in this athlete's record is a 404.",
    input: readApiIdParams,
    response: workoutResponse,
    twin: 'get_completed_workout',
  },
  list_saved_workouts: {
    operationId: 'list_saved_workouts',
    path: '/api/v1/saved-workouts',
    weight: 1,
    summary: 'Saved workouts',
    description:
      "The athlete's saved workouts (routines): title and exercise count, most recently changed first. `limit` 1-10 (default 5); pass `next_cursor` back as `cursor`.",
    input: readApiListQuery,
    response: savedWorkoutListResponse,
    twin: 'list_saved_routines',
  },
  get_saved_workout: {
    operationId: 'get_saved_workout',
    path: '/api/v1/saved-workouts/{id}',
    weight: 1,
    summary: 'One saved workout',
    description:
      "A saved workout with its exercises in planned order: sets, reps (as planned, e.g. `8-12`) and rest in seconds. An id that is not in this athlete's record is a 404.",
    input: readApiIdParams,
    response: savedWorkoutResponse,
    twin: 'get_saved_routine',
  },
} as const satisfies { [Op in ReadApiOperationId]: ReadApiOperation<Op> };

export const readApiOperationList: ReadApiOperation[] = Object.values(readApiOperations);
