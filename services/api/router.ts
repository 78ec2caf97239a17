// The service layer: one tRPC procedure per operation of the table, each behind the same
// permission check. REST and MCP call these in-process (createCaller) with the same context.
import type { KeyObject } from 'node:crypto';
import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import { SCHEMA_VERSION, type AgentAccessData, type AgentAccessOperation } from '../../contracts/agent-access.ts';
import { LIMITS } from '../../contracts/common.ts';
import { operations, type Operation } from '../../contracts/operations.ts';
import { WRITE_KINDS } from '../../contracts/write.ts';
import { areaOf } from '../../contracts/write-permissions.ts';
import type { Services } from './services.ts';
import { itemsIn } from '../domain/access-history.ts';
import { ApiError, apiErrorOf, rateLimited, unavailable } from './errors.ts';
import { parsedInput } from './input.ts';
import type { Quota } from './quota.ts';
import { measured } from './measured.ts';
import { protectedResourceMetadataUrl, unitsOf, type AgentAccessAuth, type Surface } from './auth.ts';
import type { Caller } from '../identity/caller.ts';
import { WriteRefusal } from '../domain/proposal.ts';
import { NotYetProjected } from '../reads/projected.ts';
import type { ProposalService } from '../writes/proposals.ts';
import { listBodyMeasurements, listDailyNutrition, listMeals } from '../reads/body-nutrition.ts';
import { getExerciseHistory } from '../reads/exercise-history.ts';
import { getPersonalRecords, listExercises } from '../reads/exercises.ts';
import { listRecoveryCheckins } from '../reads/recovery.ts';
import { getSavedRoutine, listSavedRoutines } from '../reads/routines.ts';
import { ownerOf } from '../reads/owner.ts';
import { getTrainingSnapshot } from '../reads/snapshot.ts';
import { getCompletedWorkout, listCompletedWorkouts } from '../reads/workouts.ts';

/** What every request shares. */
export interface ApiServices {
  app: Services;
  auth: AgentAccessAuth;
  /** Signs and checks list cursors. */
  cursorKey: KeyObject;
  quota: Quota;
  proposals: ProposalService;
}

export interface ApiContext extends Omit<ApiServices, 'auth'> {
  /** A surface that has identified the caller already passes a check that reuses it. */
  auth: Pick<AgentAccessAuth, 'check' | 'authorize'>;
  surface: Surface;
  /** The request's bearer token (null when it carried none), checked by every procedure. */
  token: string | null;
  requestId: string;
  /**
   * The operation's input as the surface decoded it (path and query parameters and body fields),
   * parsed by the procedure after its checks (see `procedure`).
   */
  input: unknown;
  /** Told of every charge to a connection's quota (seconds to wait, 0 when admitted), so a surface can state what is left. */
  onCharge?: (grantId: string, wait: number) => void;
}

/** The context once the caller has passed the checks. */
type Admitted = ApiContext & { caller: Caller };

const t = initTRPC.context<ApiContext>().create();

/**
 * A procedure for a table entry. Before any work: maintenance, then the permission check for its
 * scope (an anonymous caller learns nothing, not even which parameters exist), then the
 * connection's quota, and only then its input schema.
 *
 * The four run in the resolver, in that order, and the surface hands the input over in the
 * context, rather than as a tRPC middleware followed by tRPC's input parser: every level of tRPC's
 * middleware chain copies the call's options and context property by property, and the two extra
 * levels cost about a fifth of a list call's in-process work (issue 18). A refused input is an
 * `invalid_input` naming what was wrong (`parsedInput`).
 */
function procedure<I extends z.ZodObject, R>(op: Operation<AgentAccessOperation, I>, resolve: (ctx: Admitted, input: z.output<I>) => Promise<R> | R) {
  const checked = async ({ ctx }: { ctx: ApiContext }): Promise<R> => {
    const paused = await ctx.app.maintenance.retryAfter(op.access);
    if (paused) throw unavailable(op.access, paused);
    const caller = await ctx.auth.check(ctx.token, ctx.surface, op.scope);
    const wait = ctx.quota.charge(caller.grantId, op.weight);
    ctx.onCharge?.(caller.grantId, wait);
    if (wait) {
      ctx.app.metrics.quotaRefused('agent_access', op.operationId);
      throw rateLimited(ctx.quota, wait);
    }
    let result: R;
    try {
      result = await resolve({ ...ctx, caller }, parsedInput(op.input, ctx.input));
    } catch (error) {
      throw apiErrorOf(error);
    }
    // The athlete's access history counts successful reads only; proposals have their own.
    if (op.access === 'read')
      ctx.app.access.record(caller.athlete.athlete_id, caller.grantId, op.operationId, op.scope, itemsIn((result as { data: unknown }).data));
    return result;
  };
  const run = (opts: { ctx: ApiContext }) => measured(opts.ctx.app.metrics, 'agent_access', op.operationId, () => checked(opts));
  return op.method === 'GET' ? t.procedure.query(run) : t.procedure.mutation(run);
}

/** The spec 2.1 envelope around an operation's data. */
function envelope<Op extends AgentAccessOperation>(ctx: Admitted, op: Operation<Op>, data: AgentAccessData<Op>) {
  return {
    schema_version: SCHEMA_VERSION,
    request_id: ctx.requestId,
    operation: op.operationId,
    as_of: ctx.app.clock.now().toISOString(),
    timezone: ctx.caller.athlete.profile.timezone,
    units: unitsOf(ctx.caller.athlete),
    scope: op.scope,
    data,
  };
}

function notFound(what: string): ApiError {
  return new ApiError('not_found', `there is no ${what} in this record`);
}

/** A proposal's refusal as the API answers it: the action and field, and what the athlete can do. */
function writeRefusal(ctx: Admitted, refusal: WriteRefusal): ApiError {
  const at = { ...(refusal.actionIndex !== null ? { action_index: refusal.actionIndex } : {}), ...(refusal.field ? { field: refusal.field } : {}) };
  const metadata = `resource_metadata="${protectedResourceMetadataUrl(ctx.app.config.baseUrl, ctx.surface)}"`;
  switch (refusal.reason) {
    case 'unknown_item':
      return new ApiError('not_found', refusal.message, { details: at });
    case 'stale_revision':
      return new ApiError('revision_conflict', refusal.message, { details: at });
    case 'command_id_reused':
    case 'command_id_taken':
      return new ApiError('command_id_reused', refusal.message, { details: at });
    case 'write_permission_missing': {
      const permissionsUrl = ctx.proposals.permissionsUrl(ctx.caller, refusal.missingPermissions);
      return new ApiError('write_permission_required', `${refusal.message}: ${permissionsUrl}`, {
        challenge: `Bearer error="insufficient_scope", error_description="the athlete has not allowed ${refusal.missingPermissions.join(' ')}", ${metadata}`,
        details: { ...at, permissions_url: permissionsUrl },
      });
    }
    case 'read_scope_missing':
      // The read scope is an OAuth scope: the client may step up for it, as for any read.
      return new ApiError('insufficient_scope', refusal.message, {
        challenge: `Bearer error="insufficient_scope", scope="${[...new Set([...refusal.missingScopes, ...ctx.caller.scopes])].join(' ')}", ${metadata}`,
        details: at,
      });
    case 'invalid_action':
    case 'beyond_horizon':
      return new ApiError('invalid_input', refusal.message, { details: at });
    case 'pending_limit':
      return new ApiError('pending_proposals_limit', refusal.message, { retryAfter: refusal.retryAfter! });
    case 'bytes_limit':
      return new ApiError('proposal_bytes_limit', refusal.message, { retryAfter: refusal.retryAfter! });
  }
}

export const agentAccessRouter = t.router({
  get_access_context: procedure(operations.get_access_context, (ctx) =>
    envelope(ctx, operations.get_access_context, {
      grant_id: ctx.caller.grantId,
      scopes: ctx.caller.scopes,
      record: { timezone: ctx.caller.athlete.profile.timezone, units: unitsOf(ctx.caller.athlete) },
      constraints: { read_only: true, background_sync: false, maximum_page_size: LIMITS.pageSizeMax, maximum_range_days: LIMITS.rangeDaysMax },
    }),
  ),
  get_training_snapshot: procedure(operations.get_training_snapshot, async (ctx) =>
    envelope(ctx, operations.get_training_snapshot, await getTrainingSnapshot(ctx.app.reads, ownerOf(ctx.caller.athlete), ctx.app.clock.now())),
  ),
  list_completed_workouts: procedure(operations.list_completed_workouts, async (ctx, input) =>
    envelope(
      ctx,
      operations.list_completed_workouts,
      await listCompletedWorkouts(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.app.clock.now(), ctx.cursorKey),
    ),
  ),
  get_completed_workout: procedure(operations.get_completed_workout, async (ctx, input) =>
    envelope(ctx, operations.get_completed_workout, await getCompletedWorkout(ctx.app.reads, ownerOf(ctx.caller.athlete), input.workout_id)),
  ),
  get_exercise_history: procedure(operations.get_exercise_history, async (ctx, input) =>
    envelope(
      ctx,
      operations.get_exercise_history,
      await getExerciseHistory(ctx.app.reads, ownerOf(ctx.caller.athlete), input.exercise_id, input, ctx.app.clock.now(), ctx.cursorKey),
    ),
  ),
  list_exercises: procedure(operations.list_exercises, async (ctx, input) =>
    envelope(ctx, operations.list_exercises, await listExercises(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.cursorKey)),
  ),
  get_personal_records: procedure(operations.get_personal_records, async (ctx, input) =>
    envelope(ctx, operations.get_personal_records, await getPersonalRecords(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.cursorKey)),
  ),
  list_saved_routines: procedure(operations.list_saved_routines, async (ctx, input) =>
    envelope(ctx, operations.list_saved_routines, await listSavedRoutines(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.cursorKey)),
  ),
  get_saved_routine: procedure(operations.get_saved_routine, async (ctx, input) =>
    envelope(ctx, operations.get_saved_routine, await getSavedRoutine(ctx.app.reads, ownerOf(ctx.caller.athlete), input.routine_id)),
  ),
  list_recovery_checkins: procedure(operations.list_recovery_checkins, async (ctx, input) =>
    envelope(
      ctx,
      operations.list_recovery_checkins,
      await listRecoveryCheckins(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.app.clock.now(), ctx.cursorKey),
    ),
  ),
  list_meals: procedure(operations.list_meals, async (ctx, input) =>
    envelope(ctx, operations.list_meals, await listMeals(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.app.clock.now(), ctx.cursorKey)),
  ),
  list_daily_nutrition: procedure(operations.list_daily_nutrition, async (ctx, input) =>
    envelope(
      ctx,
      operations.list_daily_nutrition,
      await listDailyNutrition(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.app.clock.now(), ctx.cursorKey),
    ),
  ),
  list_body_measurements: procedure(operations.list_body_measurements, async (ctx, input) =>
    envelope(
      ctx,
      operations.list_body_measurements,
      await listBodyMeasurements(ctx.app.reads, ownerOf(ctx.caller.athlete), input, ctx.app.clock.now(), ctx.cursorKey),
    ),
  ),
  get_write_context: procedure(operations.get_write_context, async (ctx) =>
    envelope(ctx, operations.get_write_context, await ctx.proposals.context(ctx.caller)),
  ),
  get_write_record: procedure(operations.get_write_record, async (ctx, input) => {
    // A kind of one area is refused before it is looked up: otherwise an existing item of an area
    // not granted (403) would tell itself from a made-up id (404). A goal's area is its goal type's.
    const kind = WRITE_KINDS[input.kind];
    if (kind !== 'goal') ctx.auth.authorize(ctx.caller, ctx.surface, areaOf(kind, null));
    const item = await ctx.proposals.record(ctx.caller.athlete.athlete_id, input.kind, input);
    if (!item) throw notFound(`${input.kind.replace('_', ' ')} ${input.id ?? (input.date ? `on ${input.date}` : '')}`.trimEnd());
    if (kind === 'goal') ctx.auth.authorize(ctx.caller, ctx.surface, item.area);
    return envelope(ctx, operations.get_write_record, { item });
  }),
  prepare_write_proposal: procedure(operations.prepare_write_proposal, async (ctx, input) => {
    try {
      return envelope(ctx, operations.prepare_write_proposal, { proposal: await ctx.proposals.prepare(ctx.caller, input) });
    } catch (error) {
      throw error instanceof WriteRefusal ? writeRefusal(ctx, error) : error;
    }
  }),
  get_write_proposal: procedure(operations.get_write_proposal, async (ctx, input) => {
    let proposal: Awaited<ReturnType<ProposalService['get']>>;
    try {
      proposal = await ctx.proposals.get(ctx.caller, input.command_id);
    } catch (error) {
      if (error instanceof NotYetProjected) throw new ApiError('unavailable', error.message, { retryAfter: error.retryAfter });
      throw error;
    }
    if (!proposal) throw new ApiError('not_found', `this connection has prepared no proposal with command_id ${input.command_id}`);
    return envelope(ctx, operations.get_write_proposal, { proposal });
  }),
});

export const createAgentAccessCaller = t.createCallerFactory(agentAccessRouter);
