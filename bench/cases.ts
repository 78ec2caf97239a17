// What the bench measures: one case per operation, athlete and surface. A surface is a case
// builder; the measuring code only sees cases (and whether the surface gets a ceiling of its own),
// so both surfaces share everything but how one operation call becomes one HTTP request.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { agentAccessResponses } from '../contracts/agent-access.ts';
import type { AccessKind } from '../contracts/common.ts';
import { operationList, operations, type ImplementedOperation, type Operation } from '../contracts/operations.ts';
import { readApiOperationList } from '../contracts/read-api.ts';
import { WRITE_VERSION, writeProposalBody, type WriteProposalBody } from '../contracts/write.ts';
import { addDays } from '../services/domain/time.ts';
import { workoutSet } from '../test/support/sets.ts';
import { FRESH_UUID, getJson, withBearer, type BenchRequest } from './http.ts';

/** Agent Access over REST and as MCP tool calls; the bots' Read API v1. */
export type Surface = 'rest' | 'mcp' | 'read_api';

export interface BenchAthlete {
  /** How the output names the athlete ("100", "10000"). */
  label: string;
  email: string;
}

export interface Case {
  operation: string;
  /** The Agent Access operation it is compared with, when it is another one (a Read API route's twin). */
  twin?: string;
  surface: Surface;
  /**
   * The operation's: a read is measured next to the ceiling, a write (a command on the athlete's
   * record) under the write load and next to its in-process floor.
   */
  access: AccessKind;
  athlete: BenchAthlete;
  /** The OAuth resource the request's token must be issued for, or READ_API's bot tokens. */
  resource: string;
  request: BenchRequest;
}

export interface CaseContext {
  base: string;
  /** In the order the report compares them: the shortest history first. */
  athletes: BenchAthlete[];
  bearer(athlete: BenchAthlete, resource: string): Promise<string>;
}

export type CaseBuilder = (ctx: CaseContext) => Promise<Case[]>;

export interface SurfaceBench {
  build: CaseBuilder;
  /**
   * Whether each read is also measured against a bare node:http server replaying its answer.
   * Surfaces without one are compared with REST for the same operation and athlete instead.
   */
  ceiling: boolean;
}

/**
 * An operation's arguments as a client gives them: path and query parameters and body fields by
 * name, the way the MCP tool takes them. REST puts each where the operation's route expects it.
 */
type Arguments = Record<string, unknown>;

/** How one operation call becomes one HTTP request on a surface. */
interface SurfaceCalls {
  surface: Surface;
  resource(base: string): string;
  request(op: Operation, args: Arguments): BenchRequest;
}

const REST: SurfaceCalls = {
  surface: 'rest',
  resource: (base) => `${base}/v1/agent-access`,
  request: restRequest,
};

const MCP: SurfaceCalls = {
  surface: 'mcp',
  resource: (base) => `${base}/mcp`,
  request: (op, args) => toolCall(op.operationId, args),
};

/** Every operation of the table over REST, reads with their default query (the 30-day window, 5 items). */
export const restCases: CaseBuilder = (ctx) => casesFor(ctx, ctx.athletes, REST);

/**
 * Every operation as an MCP tool call with the REST case's arguments. Only for the longest history,
 * to keep the run short: what MCP adds is per call (the JSON-RPC envelope, the SDK's server and
 * transport), not per workout, and the short history would add fifteen measurements (~60 s).
 */
export const mcpCases: CaseBuilder = async (ctx) => {
  const cases = await casesFor(ctx, ctx.athletes.slice(-1), MCP);
  // autocannon only counts HTTP statuses, and a failed tool call is still a 200: each call is made
  // once here and must answer the operation's envelope. Being a first request without initialize,
  // it also shows the server is stateless.
  for (const c of cases) await answer(ctx.base, c.surface, c.operation, withBearer(c.request, await ctx.bearer(c.athlete, c.resource)));
  return cases;
};

/** The `resource` of Read API cases: their requests carry the athlete's bot token. */
export const READ_API_RESOURCE = 'bot-token';

/**
 * Every Read API route, for both athletes, with the ids its Agent Access twin is given (the two
 * APIs share ids): measured right after the twin and reported as a fraction of the twin over REST,
 * so the price of each API's envelope and checks shows side by side. Each answer is checked
 * against the route's contract once first.
 */
export const readApiCases: CaseBuilder = async (ctx) => {
  const cases: Case[] = [];
  for (const athlete of ctx.athletes) {
    const found = await findRecord(ctx, athlete);
    for (const op of readApiOperationList) {
      const twinArguments = ARGUMENTS[op.twin as ImplementedOperation]({ ...found, proposalId: '' });
      const path = op.path.replace('{id}', () => encodeURIComponent(String(Object.values(twinArguments)[0])));
      const c: Case = {
        operation: op.operationId,
        twin: op.twin,
        surface: 'read_api',
        access: 'read',
        athlete,
        resource: READ_API_RESOURCE,
        request: { method: 'GET', path, headers: { accept: 'application/json' }, expectedStatus: 200 },
      };
      const answer = op.response.safeParse(await getJson(ctx.base, withBearer(c.request, await ctx.bearer(athlete, READ_API_RESOURCE))));
      if (!answer.success)
        throw new Error(
          `read_api ${op.operationId} for athlete ${athlete.label} did not answer its contract: ${JSON.stringify(answer.error.issues).slice(0, 300)}`,
        );
      cases.push(c);
    }
  }
  return cases;
};

export const SURFACES: Record<Surface, SurfaceBench | null> = {
  rest: { build: restCases, ceiling: true },
  // Judged as a fraction of REST (the target is at least half), so no ceiling of its own.
  mcp: { build: mcpCases, ceiling: false },
  // Judged as a fraction of its Agent Access twin over REST, for the same athlete.
  read_api: { build: readApiCases, ceiling: false },
};

/**
 * The write permissions and grant of the connection behind `token`, asked over the surface the
 * token is for (its audience is that surface's resource): how a client learns its permissions_url.
 */
export async function writeContextOf(base: string, resource: string, token: string) {
  const calls = resource === MCP.resource(base) ? MCP : REST;
  const op = operations.get_write_context;
  return agentAccessResponses.get_write_context.parse(await answer(base, calls.surface, op.operationId, withBearer(calls.request(op, {}), token))).data;
}

/** One case per athlete and operation, with real arguments; `calls` makes the surface's requests. */
async function casesFor(ctx: CaseContext, athletes: BenchAthlete[], calls: SurfaceCalls): Promise<Case[]> {
  const cases: Case[] = [];
  const resource = calls.resource(ctx.base);
  for (const athlete of athletes) {
    const found = await findRecord(ctx, athlete);
    const proposalId = await prepareOnce(ctx, athlete, calls, found.batch);
    for (const op of operationList) {
      const args = ARGUMENTS[op.operationId as ImplementedOperation]({ ...found, proposalId });
      cases.push({ operation: op.operationId, surface: calls.surface, access: op.access, athlete, resource, request: calls.request(op, args) });
    }
  }
  return cases;
}

/** What the arguments are made of: real items of the athlete's record, and a proposal of the connection. */
interface Found {
  workoutId: string;
  exerciseId: string;
  routineId: string;
  /** A realistic batch of ten changes (see `tenChangeBatch`), valid for the whole run. */
  batch: WriteProposalBody;
  /** Prepared during setup by the connection the cases use: only that connection may read it. */
  proposalId: string;
}

/**
 * Each operation's arguments. Typed over the table, so that an operation added to it does not
 * compile until the bench knows how to call it. Lists take their default window and page.
 */
const ARGUMENTS: Record<ImplementedOperation, (found: Found) => Arguments> = {
  get_access_context: () => ({}),
  get_training_snapshot: () => ({}),
  list_completed_workouts: () => ({}),
  get_completed_workout: (f) => ({ workout_id: f.workoutId }),
  get_exercise_history: (f) => ({ exercise_id: f.exerciseId }),
  list_exercises: () => ({}),
  get_personal_records: () => ({}),
  list_saved_routines: () => ({}),
  get_saved_routine: (f) => ({ routine_id: f.routineId }),
  list_recovery_checkins: () => ({}),
  list_meals: () => ({}),
  list_daily_nutrition: () => ({}),
  list_body_measurements: () => ({}),
  get_write_context: () => ({}),
  get_write_record: (f) => ({ kind: 'completed_workout', id: f.workoutId }),
  // A new command every time: the same command_id again would be answered as a replay.
  prepare_write_proposal: (f) => ({ ...f.batch, command_id: FRESH_UUID }),
  get_write_proposal: (f) => ({ command_id: f.proposalId }),
};

/**
 * Real items found over REST as a client would find them: the newest workout in the default
 * window, its first exercise, the most recently changed routine; and the batch built on them.
 */
async function findRecord(ctx: CaseContext, athlete: BenchAthlete): Promise<Omit<Found, 'proposalId'>> {
  const token = await ctx.bearer(athlete, REST.resource(ctx.base));
  const call = (operationId: ImplementedOperation, args: Arguments) =>
    answer(ctx.base, 'rest', operationId, withBearer(REST.request(operations[operationId], args), token));
  const r = agentAccessResponses;
  const workouts = r.list_completed_workouts.parse(await call('list_completed_workouts', {})).data.items;
  const routines = r.list_saved_routines.parse(await call('list_saved_routines', {})).data.items;
  if (!workouts[0] || !routines[0]) throw new Error('the seeded record has no workout in the default window or no routine');
  const exercises = r.get_completed_workout.parse(await call('get_completed_workout', { workout_id: workouts[0].id })).data.workout.exercises;
  if (!exercises[0]) throw new Error(`workout ${workouts[0].id} has no exercises`);
  const newest = r.get_write_record.parse(await call('get_write_record', { kind: 'completed_workout', id: workouts[0].id })).data.item;
  const { today } = r.get_write_context.parse(await call('get_write_context', {})).data.record;
  const taken = async (date: string) => r.list_recovery_checkins.parse(await call('list_recovery_checkins', { from: date, to: date })).data.items.length > 0;
  const checkinDate = await unusedCheckinDate(today, taken);
  return { workoutId: workouts[0].id, exerciseId: exercises[0].exercise_id, routineId: routines[0].id, batch: tenChangeBatch(newest, checkinDate, Date.now()) };
}

/** A check-in is one per date: the batch's must be on a date the record has none for. */
async function unusedCheckinDate(today: string, taken: (date: string) => Promise<boolean>): Promise<string> {
  for (let back = 0; back < 30; back++) {
    const date = addDays(today, -back);
    if (!(await taken(date))) return date;
  }
  throw new Error(`every date of the 30 days to ${today} has a check-in`);
}

/**
 * Ten changes as an agent logging a day might propose them: a custom exercise, and a workout that
 * uses it by ref next to an exercise of the catalog; a correction to the newest workout at the
 * revision get_write_record gave; three meals, a check-in and three body measurements. A proposal
 * changes nothing in the record, so the same batch is valid again for every request of the run.
 */
function tenChangeBatch(newest: { id: string; revision: number; record: Record<string, unknown> }, checkinDate: string, now: number): WriteProposalBody {
  const hoursAgo = (h: number) => new Date(now - h * 3_600_000).toISOString();
  const last = newest.record as { exercises: Array<{ exercise_id: string; sets: unknown[] }> };
  const meal = (h: number, name: string, kcal: number, protein: number, carbs: number, fat: number) => ({
    op: 'create',
    kind: 'meal',
    record: { eaten_at: hoursAgo(h), name, calories_kcal: kcal, protein_g: protein, carbohydrate_g: carbs, fat_g: fat },
  });
  const measurement = (metric: string, value: number) => ({ op: 'create', kind: 'body_measurement', record: { measured_at: hoursAgo(12), metric, value } });
  const actions = [
    { op: 'create', kind: 'exercise', ref: 'landmine', record: { name: 'Landmine Press', muscle_group: 'shoulders', tracking_type: 'weight_reps' } },
    {
      op: 'create',
      kind: 'completed_workout',
      record: {
        title: 'Push day',
        started_at: hoursAgo(3),
        ended_at: hoursAgo(2),
        notes: null,
        exercises: [
          { exercise_id: last.exercises[0]!.exercise_id, exercise_order: 0, superset_id: null, notes: null, sets: last.exercises[0]!.sets },
          {
            exercise_id: { ref: 'landmine' },
            exercise_order: 1,
            superset_id: null,
            notes: null,
            sets: [0, 1, 2].map((i) => workoutSet(i, { weight_kg: 30, reps: 10 })),
          },
        ],
      },
    },
    {
      op: 'update',
      kind: 'completed_workout',
      id: newest.id,
      base_revision: newest.revision,
      record: { ...newest.record, notes: 'Left shoulder tight on the last sets' },
    },
    meal(11, 'Porridge with berries', 450, 20, 70, 9),
    meal(6, 'Chicken rice bowl', 700, 45, 80, 18),
    meal(1, 'Salmon and potatoes', 850, 50, 75, 35),
    { op: 'create', kind: 'recovery_checkin', record: { date: checkinDate, sleep_quality: 4, energy: 3, soreness: 2, stress: 4 } },
    measurement('bodyweight', 82.4),
    measurement('waist', 0.852),
    measurement('body_fat', 16.8),
  ];
  // Checked here, so that a batch the contract refuses fails the setup with the field it names.
  return writeProposalBody.parse({ version: WRITE_VERSION, command_id: randomUUID(), actions });
}

/**
 * Prepares the batch once with a command id of its own, over the surface and connection the cases
 * use: get_write_proposal answers only the connection that prepared the proposal.
 */
async function prepareOnce(ctx: CaseContext, athlete: BenchAthlete, calls: SurfaceCalls, batch: WriteProposalBody): Promise<string> {
  const op = operations.prepare_write_proposal;
  const commandId = randomUUID();
  const request = withBearer(calls.request(op, { ...batch, command_id: commandId }), await ctx.bearer(athlete, calls.resource(ctx.base)));
  await answer(ctx.base, calls.surface, op.operationId, request);
  return commandId;
}

/**
 * The operation's request over REST: path parameters in the path, body fields (for an operation
 * with a body) as JSON, every other argument in the query string.
 */
function restRequest(op: Operation, args: Arguments): BenchRequest {
  const inPath = new Set([...op.path.matchAll(PLACEHOLDER)].map((m) => m[1]!));
  const inBody = new Set(op.body ? Object.keys(op.body.shape) : []);
  const query = new URLSearchParams(
    Object.entries(args)
      .filter(([name]) => !inPath.has(name) && !inBody.has(name))
      .map(([name, value]): [string, string] => [name, text(op, name, value)]),
  ).toString();
  const path = fillPath(op, args) + (query ? `?${query}` : '');
  if (!op.body) return { method: op.method, path, headers: { accept: 'application/json' }, expectedStatus: op.successStatus };
  const body = JSON.stringify(Object.fromEntries(Object.entries(args).filter(([name]) => inBody.has(name))));
  return { method: op.method, path, headers: { accept: 'application/json', 'content-type': 'application/json' }, body, expectedStatus: op.successStatus };
}

/**
 * A stateless Streamable HTTP tool call: one POST, no initialize first, answered with JSON (the
 * server's choice; the Accept header must still offer both, as the transport requires). A tool
 * call succeeds or fails inside an HTTP 200, whatever the operation's own status.
 */
function toolCall(name: string, args: Arguments): BenchRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    expectedStatus: 200,
  };
}

/** What a tool call answering the envelope looks like; a JSON-RPC error or a tool error does not. */
const envelopeAnswer = z.object({
  // Loose: the envelope is returned whole, not just the field checked here.
  result: z.object({ isError: z.literal(false).optional(), structuredContent: z.looseObject({ operation: z.string() }) }),
});

/** Sends one call and returns the operation's envelope; throws unless the call succeeded. */
async function answer(base: string, surface: Surface, operation: string, request: BenchRequest): Promise<unknown> {
  const body = await getJson(base, request);
  const envelope = surface === 'mcp' ? envelopeAnswer.safeParse(body).data?.result.structuredContent : (body as { operation?: unknown });
  if (envelope?.operation !== operation)
    throw new Error(`${surface} ${operation} did not answer the ${operation} envelope: ${JSON.stringify(body).slice(0, 300)}`);
  return envelope;
}

const PLACEHOLDER = /\{(\w+)\}/g;

function fillPath(op: Operation, args: Arguments): string {
  return op.path.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(text(op, name, args[name])));
}

/** A path or query parameter: always a string, and never missing from the path. */
function text(op: Operation, name: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`${op.operationId}: no string argument for ${name}; add it to ARGUMENTS in bench/cases.ts`);
  return value;
}
