// The operations table: one entry per Agent Access operation. It drives the tRPC procedures, the
// REST routes, the MCP tools and the OpenAPI document, so no surface defines an operation itself.
// Entries are added as operations are implemented.
import { z } from 'zod';
import {
  agentAccessData,
  checkWindow,
  envelope,
  exerciseListQuery,
  exercisePathParams,
  listQuery,
  pageQuery,
  personalRecordsQuery,
  routinePathParams,
  workoutPathParams,
  type AgentAccessOperation,
} from './agent-access.ts';
import { commandId, localDate, uuid, type AccessKind, type ReadScope } from './common.ts';
import { LIMITS, WRITE_POLICY } from './policy.ts';
import { writeKind, writeProposalBody, WRITE_VERSION } from './write.ts';

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
  /** The HTTP status of a success: 201 for an operation that creates something. */
  successStatus: 200 | 201;
  /** The largest request body, in bytes (operations with a body). */
  bodyLimit: number | null;
}

const READ_ANNOTATIONS: OperationAnnotations = { readOnly: true, destructive: false, idempotent: true };

function read<Op extends AgentAccessOperation, I extends z.ZodObject>(
  o: Omit<Operation<Op, I>, 'response' | 'method' | 'access' | 'body' | 'annotations' | 'successStatus' | 'bodyLimit'>,
): Operation<Op, I> {
  return {
    ...o,
    method: 'GET',
    access: 'read',
    body: null,
    annotations: READ_ANNOTATIONS,
    response: envelope(o.operationId, agentAccessData[o.operationId]),
    successStatus: 200,
    bodyLimit: null,
  };
}

/**
 * A proposal body holds at most 50 changes; a workout is a few KB even with many sets, so this is
 * room for any real batch while keeping one request's parse small.
 */
export const WRITE_BODY_LIMIT = 512 * 1024;

const APPROVAL_ONLY_IN_BROWSER =
  'Nothing in the record changes until the athlete approves the proposal in their browser, at its approval_url; there is no operation that approves, rejects or undoes.';

export const operations = {
  get_access_context: read({
    operationId: 'get_access_context',
    path: '/v1/agent-access/context',
    scope: null,
    weight: 1,
    summary: 'What this connection may read',
    description: `The grant behind the token: its scopes, the record timezone and units, and the limits every read keeps (read-only, no background sync, at most ${LIMITS.pageSizeMax} items a page, at most ${LIMITS.rangeDaysMax} days a range).`,
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
      "A completed workout with its exercises in order, every set, the athlete's feedback, and for each set the record labels it earned when completed (historical-record-at-completion.v1). An id that is not in this athlete's record is a 404.",
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
  list_exercises: read({
    operationId: 'list_exercises',
    path: '/v1/agent-access/training/exercises',
    scope: 'training',
    weight: 1,
    summary: "The athlete's exercises",
    description:
      'Use to find an exercise id (for get_exercise_history, get_personal_records) by name, or to see what the athlete trains. Each: id, name, muscle group, tracking type, how many completed workouts include it and when it was last done. Ordered by name (case and accents ignored), then id. query finds names containing all its words as word beginnings, in any order; a misspelt word finds nothing, so list without it to choose.',
    input: exerciseListQuery,
  }),
  get_personal_records: read({
    operationId: 'get_personal_records',
    path: '/v1/agent-access/training/personal-records',
    scope: 'training',
    weight: 2,
    summary: 'Personal records',
    description:
      "Use for bests: the current record of each label (heaviest weight, most reps, largest set volume, highest Epley estimated 1RM) with its value, local date, workout and set, by the rules of the record labels on workout sets (historical-record-at-completion.v1; personal-records.v1). Give exercise_id for one exercise, or page like list_exercises (same query, limit, cursor; its cursors work here) to get every exercise's records, 10 a call.",
    input: personalRecordsQuery,
  }),
  list_saved_routines: read({
    operationId: 'list_saved_routines',
    path: '/v1/agent-access/training/routines',
    scope: 'training',
    weight: 1,
    summary: 'Saved routines',
    description: "The athlete's saved routines (title and exercise count), most recently changed first. Pass `next_cursor` back unchanged for the next page.",
    input: pageQuery,
  }),
  get_saved_routine: read({
    operationId: 'get_saved_routine',
    path: '/v1/agent-access/training/routines/{routine_id}',
    scope: 'training',
    weight: 1,
    summary: 'One saved routine',
    description: "A saved routine with its exercises in order: sets, reps, target RPE and rest. An id that is not in this athlete's record is a 404.",
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
  get_write_context: read({
    operationId: 'get_write_context',
    path: '/v1/agent-access/writes/context',
    scope: null,
    weight: 1,
    summary: 'What this connection may propose',
    description: `Start here before proposing changes. The write permissions the athlete allowed this connection, and permissions_url: the page where the athlete can allow more (send it to them; you cannot grant permissions yourself). Also the kinds of record that can be proposed with their areas, the limits (changes per proposal, expiry, how far ahead routines can be scheduled), the record timezone with today's date in it, and whether writes are paused. Proposals use version ${WRITE_VERSION}.`,
    input: z.strictObject({}),
  }),
  get_write_record: read({
    operationId: 'get_write_record',
    path: '/v1/agent-access/writes/records',
    scope: null,
    weight: 1,
    summary: 'An item as it is now, to edit',
    description:
      "The current body of one item in the write shape that prepare_write_proposal takes, with its id and revision: read it before an update or delete and send that revision as base_revision. Needs read access to the item's area. Ids come from the read tools (workouts, routines, meals, measurements, goals) and from your own proposals. A recovery check-in is found by its date instead (there is one a day), and fitness preferences need neither (there is one set). An item not in this record is a 404.",
    input: z
      .strictObject({
        kind: writeKind.describe('The kind of item.'),
        id: uuid.optional().describe("The item's id, from a read tool; not needed for fitness_preferences."),
        date: localDate.optional().describe('For recovery_checkin, the day (YYYY-MM-DD) instead of an id.'),
      })
      .superRefine((input, ctx) => {
        if (input.date !== undefined && input.kind !== 'recovery_checkin')
          ctx.addIssue({ code: 'custom', path: ['date'], message: 'only a recovery_checkin is found by its date; give its id' });
        else if (input.date !== undefined && input.id !== undefined)
          ctx.addIssue({ code: 'custom', path: ['date'], message: 'give the id or the date, not both' });
        else if (input.id === undefined && input.date === undefined && input.kind !== 'fitness_preferences') {
          ctx.addIssue({
            code: 'custom',
            path: ['id'],
            message: input.kind === 'recovery_checkin' ? 'give the id or the date of the check-in' : `required for ${input.kind}`,
          });
        }
      }),
  }),
  prepare_write_proposal: {
    operationId: 'prepare_write_proposal',
    method: 'POST',
    path: '/v1/agent-access/writes/proposals',
    scope: null,
    access: 'write',
    weight: 10,
    summary: 'Propose changes for the athlete to approve',
    description: `Prepares a batch of up to ${WRITE_POLICY.changesPerProposal} changes (create, update, delete) for the athlete to review. ${APPROVAL_ONLY_IN_BROWSER} Returns the proposal with status "prepared", approval_url (give it to the athlete) and expires_at (${WRITE_POLICY.proposalExpiryMinutes} minutes). Updates and deletes carry the item's id and the base_revision from get_write_record. A create may name its record with ref, and a later action of the same batch may use {"ref": name} where an exercise id is expected. Choose command_id (a new uuid) once per proposal: if the response is lost, call get_write_proposal with it, and resending the identical body returns the same proposal instead of a second one. Every action is checked now; a refusal names the action index and field, and stores nothing.`,
    input: writeProposalBody,
    body: writeProposalBody,
    annotations: { readOnly: false, destructive: false, idempotent: true },
    response: envelope('prepare_write_proposal', agentAccessData.prepare_write_proposal),
    successStatus: 201,
    bodyLimit: WRITE_BODY_LIMIT,
  },
  get_write_proposal: read({
    operationId: 'get_write_proposal',
    path: '/v1/agent-access/writes/proposals',
    scope: null,
    weight: 1,
    summary: "A proposal's status and receipt",
    description: `The status of a proposal this connection prepared (prepared, committed, rejected, expired, conflicted, undone), its times and summary, approval_url while it awaits review, and the receipt once committed. Call it before retrying a prepare whose response was lost. ${APPROVAL_ONLY_IN_BROWSER}`,
    input: z.strictObject({ command_id: commandId.describe('The command_id the proposal was prepared with.') }),
  }),
} as const satisfies Partial<Record<AgentAccessOperation, Operation>>;

export type ImplementedOperation = keyof typeof operations;
export const operationList: Operation[] = Object.values(operations);
