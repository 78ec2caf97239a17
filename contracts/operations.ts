// The operations table: one entry per Agent Access operation. It drives the tRPC procedures, the
// REST routes, the MCP tools and the OpenAPI document, so no surface defines an operation itself.
// Entries are added as operations are implemented.
import { z } from 'zod';
import { agentAccessData, checkWindow, envelope, exercisePathParams, listQuery, pageQuery, routinePathParams, workoutPathParams, type AgentAccessOperation } from './agent-access.ts';
import type { AccessKind, ReadScope } from './common.ts';

/** What a call does, as MCP tool annotations say it: surfaces read these, never guess them. */
export interface OperationAnnotations {
  /** Changes nothing anywhere. */
  readOnly: boolean;
  /** May remove or overwrite what the athlete has (never true of a proposal, which the athlete approves). */
  destructive: boolean;
  /** Calling it again with the same input has no further effect. */
  idempotent: boolean;
}

export interface Operation<Op extends AgentAccessOperation = AgentAccessOperation, I extends z.ZodObject = z.ZodObject> {
  operationId: Op;
  method: 'GET' | 'POST';
  /** With `{name}` placeholders for path parameters. */
  path: string;
  scope: ReadScope | null;
  /** Reads and writes are paused separately for maintenance. */
  access: AccessKind;
  /** Quota units a call costs, charged before the work is done: about what it makes the server do. */
  weight: number;
  summary: string;
  description: string;
  /** Path and query parameters and body fields together; any other parameter is refused. */
  input: I;
  /** The request body's own schema (part of `input`), or null for operations that take none. */
  body: z.ZodObject | null;
  annotations: OperationAnnotations;
  /** The whole response: the envelope of spec 2.1 around the operation's `data`. */
  response: z.ZodType;
}

const READ_ANNOTATIONS: OperationAnnotations = { readOnly: true, destructive: false, idempotent: true };

function read<Op extends AgentAccessOperation, I extends z.ZodObject>(o: Omit<Operation<Op, I>, 'response' | 'method' | 'access' | 'body' | 'annotations'>): Operation<Op, I> {
  return { ...o, method: 'GET', access: 'read', body: null, annotations: READ_ANNOTATIONS, response: envelope(o.operationId, agentAccessData[o.operationId]) };
}

export const operations = {
  get_access_context: read({
    operationId: 'get_access_context',
    path: '/v1/agent-access/context',
    scope: null,
    weight: 1,
    summary: 'What this connection may read',
    description:
      'The grant behind the token: its scopes, the record timezone and units, and the limits every read keeps (read-only, no background sync, at most 10 items a page, at most 90 days a range).',
    input: z.strictObject({}),
  }),
  get_training_snapshot: read({
    operationId: 'get_training_snapshot',
    path: '/v1/agent-access/training/snapshot',
    scope: 'training',
    weight: 4,
    summary: 'Training at a glance',
    description:
      'Workouts this week (Monday to today) and in the 30 local days ending today, consecutive active weeks and whether the streak is current (training-stats.v1); the 10 exercises done most in those 30 days (exercise-frequency.v1); up to 10 active goals, most recently changed first; the 5 most recent workout feedbacks.',
    input: z.strictObject({}),
  }),
  list_completed_workouts: read({
    operationId: 'list_completed_workouts',
    path: '/v1/agent-access/training/workouts',
    scope: 'training',
    weight: 2,
    summary: 'Completed workouts',
    description:
      'Completed workouts whose local date (the start, else the creation time, in the record timezone) is in the window, newest first: by local date, then end time, then id. Without from/to the window is the 30 local days ending today. Each has its derived duration (duration.v1).',
    input: listQuery,
  }),
  get_completed_workout: read({
    operationId: 'get_completed_workout',
    path: '/v1/agent-access/training/workouts/{workout_id}',
    scope: 'training',
    weight: 2,
    summary: 'One completed workout',
    description:
      'A completed workout with its exercises in order, every set, the athlete\'s feedback, and for each set the record labels it earned when completed (historical-record-at-completion.v1). An id that is not in this athlete\'s record is a 404.',
    input: workoutPathParams,
  }),
  get_exercise_history: read({
    operationId: 'get_exercise_history',
    path: '/v1/agent-access/training/exercises/{exercise_id}/history',
    scope: 'training',
    weight: 3,
    summary: "One exercise's history",
    description:
      'The completed working sets of one exercise (warm-ups and sets not completed are left out), workout by workout, for workouts whose local date is in the window, newest first. Without from/to the window is the 30 local days ending today. An exercise not in this record is a 404.',
    input: exercisePathParams.extend(listQuery.shape).superRefine(checkWindow),
  }),
  list_saved_routines: read({
    operationId: 'list_saved_routines',
    path: '/v1/agent-access/training/routines',
    scope: 'training',
    weight: 1,
    summary: 'Saved routines',
    description: 'The athlete\'s saved routines (title and exercise count), most recently changed first. Pass `next_cursor` back unchanged for the next page.',
    input: pageQuery,
  }),
  get_saved_routine: read({
    operationId: 'get_saved_routine',
    path: '/v1/agent-access/training/routines/{routine_id}',
    scope: 'training',
    weight: 1,
    summary: 'One saved routine',
    description: 'A saved routine with its exercises in order: sets, reps, target RPE and rest. An id that is not in this athlete\'s record is a 404.',
    input: routinePathParams,
  }),
  list_recovery_checkins: read({
    operationId: 'list_recovery_checkins',
    path: '/v1/agent-access/recovery/check-ins',
    scope: 'recovery',
    weight: 1,
    summary: 'Daily recovery check-ins',
    description:
      'Check-ins (sleep quality, energy, soreness, stress on a 1-5 scale where higher is better) for local dates in a window, newest date first. Without from/to the window is the 30 local days ending today. Pages hold up to `limit` items; pass `next_cursor` back unchanged for the next page.',
    input: listQuery,
  }),
  // Nutrition and body measurements: our design; the spec shows neither their fields nor operations.
  list_meals: read({
    operationId: 'list_meals',
    path: '/v1/agent-access/nutrition/meals',
    scope: 'nutrition',
    weight: 1,
    summary: 'Logged meals',
    description:
      'Meals with calories and macronutrients (null where not logged) whose local date is in the window, newest first. Without from/to the window is the 30 local days ending today.',
    input: listQuery,
  }),
  list_daily_nutrition: read({
    operationId: 'list_daily_nutrition',
    path: '/v1/agent-access/nutrition/daily',
    scope: 'nutrition',
    weight: 1,
    summary: 'Daily nutrition totals',
    description:
      'One item per local day in the window that has a logged meal, newest first: the meal count and, per nutrient, the total over the meals that recorded it (null when none did; daily-nutrition.v1). Days without meals are not listed.',
    input: listQuery,
  }),
  list_body_measurements: read({
    operationId: 'list_body_measurements',
    path: '/v1/agent-access/body-measurements',
    scope: 'body_measurements',
    weight: 1,
    summary: 'Body measurements',
    description:
      'Bodyweight, body fat and circumferences whose local date is in the window, newest first, each in its canonical unit (kg, percent or metres). Without from/to the window is the 30 local days ending today.',
    input: listQuery,
  }),
} as const satisfies Partial<Record<AgentAccessOperation, Operation>>;

export type ImplementedOperation = keyof typeof operations;
export const operationList: Operation[] = Object.values(operations);
