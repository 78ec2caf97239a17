// What the bench measures: one case per operation, athlete and surface. A surface is a case
// builder; the measuring code only sees cases (and whether the surface gets a ceiling of its own),
// so both surfaces share everything but how one operation call becomes one HTTP request.
import { z } from 'zod';
import { agentAccessResponses } from '../contracts/agent-access.ts';
import { operationList, operations, type Operation } from '../contracts/operations.ts';
import { readApiOperationList } from '../contracts/read-api.ts';
import { getJson, withBearer, type BenchRequest } from './http.ts';

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
   * Whether each operation is also measured against a bare node:http server replaying its answer.
   * Surfaces without one are compared with REST for the same operation and athlete instead.
   */
  ceiling: boolean;
}

/** An operation's arguments: its path parameters. No query parameters, so lists take their defaults. */
type Arguments = Record<string, string>;

/** Every operation of the table over REST, with the default query (the 30-day window, 5 items). */
export const restCases: CaseBuilder = async (ctx) =>
  casesFor(ctx, ctx.athletes, 'rest', restResource(ctx.base), (op, args) => ({ method: op.method, path: fillPath(op.path, args), headers: { accept: 'application/json' } }));

/**
 * Every operation as an MCP tool call with the REST case's arguments. Only for the longest history,
 * to keep the run short: what MCP adds is per call (the JSON-RPC envelope, the SDK's server and
 * transport), not per workout, and the short history would add eleven measurements (~40 s).
 */
export const mcpCases: CaseBuilder = async (ctx) => {
  const cases = await casesFor(ctx, ctx.athletes.slice(-1), 'mcp', `${ctx.base}/mcp`, (op, args) => toolCall(op.operationId, args));
  for (const c of cases) await checkToolCall(ctx, c);
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
    const ids = await pathIds(ctx, athlete);
    for (const op of readApiOperationList) {
      const twin = operations[op.twin as keyof typeof operations] as Operation;
      const twinArguments = argumentsOf(twin, ids);
      const path = op.path.replace('{id}', () => encodeURIComponent(Object.values(twinArguments)[0]!));
      const c: Case = { operation: op.operationId, twin: op.twin, surface: 'read_api', athlete, resource: READ_API_RESOURCE, request: { method: 'GET', path, headers: { accept: 'application/json' } } };
      const answer = op.response.safeParse(await getJson(ctx.base, withBearer(c.request, await ctx.bearer(athlete, READ_API_RESOURCE))));
      if (!answer.success) throw new Error(`read_api ${op.operationId} for athlete ${athlete.label} did not answer its contract: ${JSON.stringify(answer.error.issues).slice(0, 300)}`);
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

function restResource(base: string): string {
  return `${base}/v1/agent-access`;
}

/** One case per athlete and operation, with real ids for the path parameters; `request` is the surface's. */
async function casesFor(ctx: CaseContext, athletes: BenchAthlete[], surface: Surface, resource: string, request: (op: Operation, args: Arguments) => BenchRequest): Promise<Case[]> {
  const cases: Case[] = [];
  for (const athlete of athletes) {
    const ids = await pathIds(ctx, athlete);
    for (const op of operationList) cases.push({ operation: op.operationId, surface, athlete, resource, request: request(op, argumentsOf(op, ids)) });
  }
  return cases;
}

/**
 * A stateless Streamable HTTP tool call: one POST, no initialize first, answered with JSON (the
 * server's choice; the Accept header must still offer both, as the transport requires).
 */
function toolCall(name: string, args: Arguments): BenchRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  };
}

/** What a tool call answering the envelope looks like; a JSON-RPC error or a tool error does not. */
const envelopeAnswer = z.object({
  result: z.object({ isError: z.literal(false).optional(), structuredContent: z.object({ operation: z.string() }) }),
});

/**
 * autocannon only counts HTTP statuses, and a failed tool call is still a 200: each call is made
 * once here and must answer the operation's envelope. Being a first request without initialize,
 * it also shows the server is stateless.
 */
async function checkToolCall(ctx: CaseContext, c: Case): Promise<void> {
  const answer = await getJson(ctx.base, withBearer(c.request, await ctx.bearer(c.athlete, c.resource)));
  const parsed = envelopeAnswer.safeParse(answer);
  if (!parsed.success || parsed.data.result.structuredContent.operation !== c.operation) {
    throw new Error(`mcp ${c.operation} for athlete ${c.athlete.label} did not answer the ${c.operation} envelope: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/**
 * Real ids for the path parameters, found over REST as a client would find them: the newest
 * workout in the default window, its first exercise, the most recently changed routine.
 */
async function pathIds(ctx: CaseContext, athlete: BenchAthlete): Promise<Record<string, string>> {
  const token = await ctx.bearer(athlete, restResource(ctx.base));
  const get = (path: string) => getJson(ctx.base, withBearer({ method: 'GET', path, headers: {} }, token));
  const workouts = agentAccessResponses.list_completed_workouts.parse(await get(operations.list_completed_workouts.path)).data.items;
  const routines = agentAccessResponses.list_saved_routines.parse(await get(operations.list_saved_routines.path)).data.items;
  if (!workouts[0] || !routines[0]) throw new Error('the seeded record has no workout in the default window or no routine');
  const workoutPath = fillPath(operations.get_completed_workout.path, { workout_id: workouts[0].id });
  const exercises = agentAccessResponses.get_completed_workout.parse(await get(workoutPath)).data.workout.exercises;
  if (!exercises[0]) throw new Error(`workout ${workouts[0].id} has no exercises`);
  return { workout_id: workouts[0].id, exercise_id: exercises[0].exercise_id, routine_id: routines[0].id };
}

const PLACEHOLDER = /\{(\w+)\}/g;

function argumentsOf(op: Operation, ids: Record<string, string>): Arguments {
  const names = [...op.path.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  return Object.fromEntries(
    names.map((name) => {
      const id = ids[name];
      if (!id) throw new Error(`${op.operationId}: no id for {${name}}; teach pathIds in bench/cases.ts to find one`);
      return [name, id];
    }),
  );
}

function fillPath(template: string, args: Arguments): string {
  return template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(args[name]!));
}
