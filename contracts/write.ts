// Write proposals on the wire (spec 2.12, 3, 4.3): the action schema, the proposal, its receipt and
// the write record. The spec names them but shows none of their fields; every field here is our
// design (docs/decisions.md). A record in an action is "the write shape": the item as the record
// keeps it, without its id (an action carries that), server-made fields (an import's source) or
// derived ones, in canonical units, with record text as plain strings of 1-200 characters.
import { z } from 'zod';
import { LIMITS, WRITE_POLICY, commandId, dateTime, goalType, isVisibleText, localDate, readScope, recordText, uuid } from './common.ts';
import {
  bodyMeasurement,
  checkin,
  equipmentSetup,
  exercise,
  fitnessPreferences,
  goal,
  meal,
  routine,
  routineExercise,
  workoutExercise,
  type RecordKind,
} from './record.ts';
import { PROPOSAL_STATUSES } from './policy.ts';
import { toolJsonSchema, withToolJsonSchema } from './json-schema.ts';
import { writePermission } from './write-permissions.ts';

export { PROPOSAL_STATUSES };

export const WRITE_VERSION = 'agent-access-write.v1';

/** The record kinds a proposal may change, as the wire names them, and the record's own kind of each. */
export const WRITE_KINDS = {
  exercise: 'exercise',
  completed_workout: 'workout',
  saved_routine: 'routine',
  meal: 'meal',
  recovery_checkin: 'checkin',
  body_measurement: 'body_measurement',
  goal: 'goal',
  equipment_setup: 'equipment_setup',
  fitness_preferences: 'fitness_preferences',
} as const satisfies Record<string, RecordKind>;
export type WriteKind = keyof typeof WRITE_KINDS;
export const writeKinds = Object.keys(WRITE_KINDS) as WriteKind[];
export const writeKind = z.enum(writeKinds as [WriteKind, ...WriteKind[]]);

/** The wire kind of a record kind; null for kinds no proposal changes (feedback goes with its workout). */
export function writeKindOf(kind: RecordKind): WriteKind | null {
  return writeKinds.find((k) => WRITE_KINDS[k] === kind) ?? null;
}

export const writeOp = z.enum(['create', 'update', 'delete']);
export type WriteOp = z.infer<typeof writeOp>;

/**
 * What each kind allows. Exercises stay in the catalog once created (workouts refer to them), and
 * fitness preferences are one set per athlete, changed rather than removed.
 */
export const KIND_OPERATIONS: Record<WriteKind, readonly WriteOp[]> = {
  exercise: ['create', 'update'],
  completed_workout: ['create', 'update', 'delete'],
  saved_routine: ['create', 'update', 'delete'],
  meal: ['create', 'update', 'delete'],
  recovery_checkin: ['create', 'update', 'delete'],
  body_measurement: ['create', 'update', 'delete'],
  goal: ['create', 'update', 'delete'],
  equipment_setup: ['create', 'update', 'delete'],
  fitness_preferences: ['create', 'update'],
};

/** A name an action gives the record it creates, so that later actions of the batch can use it. */
export const refName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'a ref is 1-64 letters, digits, dots, dashes or underscores' })
  .describe('A name for the record this action creates, unique in the batch; later actions use it as {"ref": name}.');

/** A link to another record: its id, or `{ref}` naming a record an earlier action of the batch creates. */
export const reference = z
  .union([uuid, z.strictObject({ ref: refName })])
  .describe('An existing id, or {"ref": name} of a record an earlier action in this batch creates.');
export type Reference = z.infer<typeof reference>;

const nonNegativeInt = z.number().int().nonnegative();
const note = z.string().max(2000).nullable();

// ---------------------------------------------------------------------------------------------
// The write shape of each kind: the record's own schema without its id, with `{ref}` allowed where
// an exercise id goes. The record's rules across fields (start before end) are checked when the
// action is decided, with the same paths. A workout's schema carries such rules, so its top level
// is spelled out rather than derived.

export const writeRecordSchemas = {
  exercise: exercise.omit({ id: true }),
  completed_workout: z.strictObject({
    title: recordText,
    started_at: dateTime.nullable(),
    ended_at: dateTime,
    notes: note,
    exercises: z.array(workoutExercise.extend({ exercise_id: reference })).max(100),
  }),
  saved_routine: routine.omit({ id: true }).extend({
    exercises: z
      .array(routineExercise.extend({ exercise_id: reference }))
      .max(LIMITS.exercisesPerRoutine)
      .refine((exercises) => new Set(exercises.map((e) => e.position)).size === exercises.length, {
        error: 'each position once: two exercises cannot share one',
      }),
    scheduled_dates: routine.shape.scheduled_dates
      .refine((dates) => new Set(dates).size === dates.length, { error: 'each date once' })
      .describe(
        `Local dates in the record timezone, each once, from today to ${WRITE_POLICY.schedulingHorizonDays} days ahead; a recurring plan is its individual dates.`,
      ),
  }),
  meal: meal.omit({ id: true }),
  recovery_checkin: checkin.omit({ id: true }),
  body_measurement: bodyMeasurement.omit({ id: true }),
  goal: goal.omit({ id: true }).extend({ exercise_id: reference.nullable() }),
  equipment_setup: equipmentSetup.omit({ id: true }),
  fitness_preferences: fitnessPreferences.omit({ id: true }),
} as const satisfies Record<WriteKind, z.ZodObject>;

/**
 * Where tools meet a write shape they point to get_write_context, which gives each kind's shape
 * (`kinds[].record_schema`): spelt out in every tool, the nine shapes were most of what a model
 * reads of tools/list, and only an agent about to propose needs them. Checked in full either way.
 */
const SHAPE_IN_CONTEXT = 'get_write_context lists its fields under kinds[].record_schema';
export type WriteRecord<K extends WriteKind = WriteKind> = z.infer<(typeof writeRecordSchemas)[K]>;

/**
 * Each kind's write shape as a JSON Schema, for get_write_context. Built on first read: the nine
 * conversions cost tens of milliseconds, which every process loading this module (any command of
 * the CLI that opens the app) would pay otherwise.
 */
export const WRITE_RECORD_JSON_SCHEMAS = Object.defineProperties(
  {},
  Object.fromEntries(
    writeKinds.map((k) => {
      let built: Record<string, unknown> | undefined;
      return [k, { enumerable: true, get: () => (built ??= toolJsonSchema(writeRecordSchemas[k], 'input', true)) }];
    }),
  ),
) as Readonly<Record<WriteKind, Record<string, unknown>>>;

const revision = z.number().int().positive();

/** Any kind's write shape, as answers carry it (each answer also names the kind). */
const anyWriteRecord = withToolJsonSchema(z.union(Object.values(writeRecordSchemas) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]), {
  type: 'object',
  description: `The record in the write shape of its kind; ${SHAPE_IN_CONTEXT}.`,
});

function actionOf<K extends WriteKind>(kind: K) {
  return z
    .strictObject({
      op: z.enum(KIND_OPERATIONS[kind] as [WriteOp, ...WriteOp[]]),
      kind: z.literal(kind),
      id: uuid.optional().describe('The item changed (update, delete); read it with get_write_record first.'),
      base_revision: revision.optional().describe('The revision get_write_record returned (update, delete).'),
      record: writeRecordSchemas[kind].optional().describe('The whole item as it should be (create, update).'),
      ref: refName.optional(),
    })
    .superRefine((a, ctx) => {
      const needs = (field: 'id' | 'base_revision' | 'record', present: boolean) => {
        if ((a[field] !== undefined) !== present) {
          ctx.addIssue({ code: 'custom', path: [field], message: present ? `${a.op} needs ${field}` : `${a.op} takes no ${field}` });
        }
      };
      needs('id', a.op !== 'create');
      needs('base_revision', a.op !== 'create');
      needs('record', a.op !== 'delete');
      if (a.ref !== undefined && a.op !== 'create') ctx.addIssue({ code: 'custom', path: ['ref'], message: 'only a create names its record with ref' });
    });
}

export const writeAction = z.discriminatedUnion(
  'kind',
  writeKinds.map((k) => actionOf(k)) as unknown as [ReturnType<typeof actionOf<'exercise'>>, ...Array<ReturnType<typeof actionOf<WriteKind>>>],
);
// Tools see one action shape for every kind (the operations each kind allows are in
// get_write_context too); the union above checks each kind's own.
const { shape: exerciseAction } = actionOf('exercise');
withToolJsonSchema(writeAction, () =>
  toolJsonSchema(
    z.strictObject({
      ...exerciseAction,
      op: writeOp.describe('What each kind allows is in get_write_context (kinds[].operations).'),
      kind: writeKind,
      record: anyWriteRecord.optional(),
    }),
    'input',
  ),
);
export interface WriteAction<K extends WriteKind = WriteKind> {
  op: WriteOp;
  kind: K;
  id?: string;
  base_revision?: number;
  record?: WriteRecord<K>;
  ref?: string;
}

/** The body of `prepare_write_proposal`. */
export const writeProposalBody = z.strictObject({
  version: z.literal(WRITE_VERSION, { error: `version must be "${WRITE_VERSION}"` }).describe(`Always "${WRITE_VERSION}".`),
  command_id: commandId.describe('A uuid you choose for this proposal and keep: resending the same body returns the same proposal.'),
  actions: z
    .array(writeAction)
    .min(1, { error: 'a proposal holds at least one action' })
    .max(WRITE_POLICY.changesPerProposal, { error: `a proposal holds at most ${WRITE_POLICY.changesPerProposal} changes` })
    .describe('The changes, applied in order when the athlete approves.'),
  reason: z
    .string()
    .min(1)
    .max(WRITE_POLICY.reasonLength, { error: `a reason is at most ${WRITE_POLICY.reasonLength} characters` })
    .refine(isVisibleText, { error: 'a reason needs a visible character' })
    .optional()
    .describe('Why, for the athlete, in plain text: shown on the review page as your words.'),
});
export type WriteProposalBody = z.infer<typeof writeProposalBody>;

// ---------------------------------------------------------------------------------------------
// What the write operations answer

/** An action as the proposal keeps it: ids assigned to created records, every ref resolved to an id. */
export const normalisedAction = z.strictObject({
  op: writeOp,
  kind: writeKind,
  id: uuid,
  base_revision: revision.nullable(),
  ref: refName.nullable(),
  record: anyWriteRecord.nullable(),
});
export type NormalisedAction = z.infer<typeof normalisedAction>;

export const proposalStatus = z.enum(PROPOSAL_STATUSES);
export type ProposalStatus = z.infer<typeof proposalStatus>;

export const proposalClient = z.strictObject({ client_id: z.string().min(1).max(2000), name: z.string().min(1).max(200) });

export const proposalChange = z.strictObject({
  index: nonNegativeInt,
  op: writeOp,
  kind: writeKind,
  id: uuid,
  area: readScope,
  base_revision: revision.nullable(),
  /** Null once the full recovery data is removed (spec 3 rule 3): a summary quotes field values. */
  summary: z.string().min(1).nullable(),
});
export type ProposalChange = z.infer<typeof proposalChange>;

/** What a committed proposal changed: the minimal receipt that outlives the retention period. */
export const receipt = z.strictObject({
  committed_at: dateTime,
  approved_by: z.literal('athlete'),
  client: proposalClient,
  changes: z.array(
    z.strictObject({
      index: nonNegativeInt,
      op: writeOp,
      kind: writeKind,
      id: uuid,
      revision_before: revision.nullable(),
      revision_after: revision.nullable(),
    }),
  ),
});
export type Receipt = z.infer<typeof receipt>;

export const proposal = z.strictObject({
  command_id: uuid,
  version: z.literal(WRITE_VERSION),
  status: proposalStatus,
  client: proposalClient,
  prepared_at: dateTime,
  expires_at: dateTime,
  /** When the athlete (or the clock) moved it out of `prepared`. */
  decided_at: dateTime.nullable(),
  /** Where the athlete reviews it; null once it is no longer awaiting review. */
  approval_url: z.url().nullable(),
  changes: z.array(proposalChange).max(WRITE_POLICY.changesPerProposal),
  /** Null once the full recovery data is removed. */
  actions: z.array(normalisedAction).max(WRITE_POLICY.changesPerProposal).nullable(),
  receipt: receipt.nullable(),
  /** For a conflicted proposal: the record that had changed since preparation (`action_index` null: a record the batch relied on). */
  conflict: z.strictObject({ action_index: nonNegativeInt.nullable(), kind: writeKind, id: uuid, reason: z.enum(['changed', 'removed', 'taken']) }).nullable(),
  /** When the athlete undid the committed batch. */
  undone_at: dateTime.nullable(),
  /** The client's reason, as it wrote it; null when it gave none, or once the details are removed. */
  reason: z.string().nullable(),
});
export type Proposal = z.infer<typeof proposal>;

export const writeContext = z.strictObject({
  version: z.literal(WRITE_VERSION),
  grant_id: uuid,
  permissions: z.array(writePermission),
  read_scopes: z.array(readScope),
  /** The athlete's permission form, asking for the permissions this connection lacks. */
  permissions_url: z.url(),
  kinds: z.array(
    z.strictObject({
      kind: writeKind,
      areas: z.array(readScope).min(1),
      operations: z.array(writeOp).min(1),
      record_schema: withToolJsonSchema(z.record(z.string(), z.unknown()), {
        type: 'object',
        additionalProperties: true,
        description: "The JSON Schema of this kind's record in an action.",
      }),
    }),
  ),
  /** The area of a goal depends on its type. */
  goal_areas: z.record(goalType, readScope),
  limits: z.strictObject({
    maximum_changes: z.literal(WRITE_POLICY.changesPerProposal),
    proposal_expiry_minutes: z.literal(WRITE_POLICY.proposalExpiryMinutes),
    scheduling_horizon_days: z.literal(WRITE_POLICY.schedulingHorizonDays),
    undo_window_days: z.literal(WRITE_POLICY.undoWindowDays),
    /** Proposals this connection may have awaiting the athlete's review at once (`pending_proposals_limit` beyond). */
    maximum_pending_proposals: z.number().int().min(WRITE_POLICY.pendingProposalsPerConnection),
    /**
     * Bytes this connection's proposals may store in any 24 hours, counted as the log stores their
     * sealed actions and reason: about 4/3 of their JSON (`proposal_bytes_limit` beyond).
     */
    maximum_proposal_bytes_per_day: z.number().int().min(WRITE_POLICY.proposalBytesPerConnectionPerDay),
  }),
  record: z.strictObject({ timezone: z.string(), today: localDate, latest_scheduling_date: localDate }),
  writes_paused: z.boolean(),
});

export const writeRecord = z.strictObject({
  kind: writeKind,
  id: uuid,
  revision,
  area: readScope,
  created_at: dateTime,
  updated_at: dateTime,
  record: anyWriteRecord,
});
