// What the bench measures: one case per operation, athlete and surface. A surface is a case
// builder; the measuring code only sees cases, so another surface (MCP: POST /mcp with a JSON-RPC
// tools/call body and a token for the /mcp resource) is one more builder in SURFACES.
import { agentAccessResponses } from '../contracts/agent-access.ts';
import { operationList, operations } from '../contracts/operations.ts';
import { getJson, withBearer, type BenchRequest } from './http.ts';

export type Surface = 'rest' | 'mcp';

export interface BenchAthlete {
  /** How the output names the athlete ("100", "10000"). */
  label: string;
  email: string;
}

export interface Case {
  operation: string;
  surface: Surface;
  athlete: BenchAthlete;
  /** The OAuth resource the request's token must be issued for. */
  resource: string;
  request: BenchRequest;
}

export interface CaseContext {
  base: string;
  athletes: BenchAthlete[];
  bearer(athlete: BenchAthlete, resource: string): Promise<string>;
}

export type CaseBuilder = (ctx: CaseContext) => Promise<Case[]>;

/** Every operation of the table over REST, with the default query (the 30-day window, 5 items). */
export const restCases: CaseBuilder = async (ctx) => {
  const resource = `${ctx.base}/v1/agent-access`;
  const cases: Case[] = [];
  for (const athlete of ctx.athletes) {
    const token = await ctx.bearer(athlete, resource);
    const ids = await pathIds((path) => getJson(ctx.base, withBearer({ method: 'GET', path, headers: {} }, token)));
    for (const op of operationList) {
      const request = { method: op.method, path: fillPath(op.path, ids, op.operationId), headers: { accept: 'application/json' } };
      cases.push({ operation: op.operationId, surface: 'rest', athlete, resource, request });
    }
  }
  return cases;
};

export const SURFACES: Record<Surface, CaseBuilder | null> = {
  rest: restCases,
  mcp: null,
};

/**
 * Real ids for the path parameters, found as a client would find them: the newest workout in the
 * default window, its first exercise, the most recently changed routine.
 */
async function pathIds(get: (path: string) => Promise<unknown>): Promise<Record<string, string>> {
  const workouts = agentAccessResponses.list_completed_workouts.parse(await get(operations.list_completed_workouts.path)).data.items;
  const routines = agentAccessResponses.list_saved_routines.parse(await get(operations.list_saved_routines.path)).data.items;
  if (!workouts[0] || !routines[0]) throw new Error('the seeded record has no workout in the default window or no routine');
  const workoutPath = fillPath(operations.get_completed_workout.path, { workout_id: workouts[0].id }, 'get_completed_workout');
  const exercises = agentAccessResponses.get_completed_workout.parse(await get(workoutPath)).data.workout.exercises;
  if (!exercises[0]) throw new Error(`workout ${workouts[0].id} has no exercises`);
  return { workout_id: workouts[0].id, exercise_id: exercises[0].exercise_id, routine_id: routines[0].id };
}

function fillPath(template: string, ids: Record<string, string>, operation: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    if (!id) throw new Error(`${operation}: no id for {${name}}; teach pathIds in bench/cases.ts to find one`);
    return encodeURIComponent(id);
  });
}
