// The Read API's service layer: one tRPC procedure per entry of its operations table, each behind
// the same checks in the same order as Agent Access — maintenance, the bot token, the token's
// quota, then the input — so an anonymous caller learns nothing, not even which parameters exist.
// The HTTP adapter calls these in-process.
import type { KeyObject } from 'node:crypto';
import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import { readApiOperations, type ReadApiOperation, type ReadApiOperationId } from '../../contracts/read-api.ts';
import type { Services } from './services.ts';
import { getSavedWorkout, getWorkout, listSavedWorkouts, listWorkouts, me, stats } from '../reads/read-api.ts';
import type { BotAuth, BotCaller } from './bot-auth.ts';
import { apiErrorOf, rateLimited, unavailable } from './errors.ts';
import { parsedInput } from './input.ts';
import { measured } from './measured.ts';
import type { Quota } from './quota.ts';

/** What every Read API request shares. */
export interface ReadApiServices {
  app: Services;
  auth: Pick<BotAuth, 'identify'>;
  /** Signs and checks list cursors; not the Agent Access key, so neither API's cursor opens the other. */
  cursorKey: KeyObject;
  /** Per bot token. */
  quota: Quota;
}

export interface ReadApiContext extends ReadApiServices {
  /** The request's bearer token (null when it carried none). */
  token: string | null;
  requestId: string;
  /** The route's path and query parameters, parsed by the procedure after its checks. */
  input: unknown;
  /** Told of every charge to a bot token's quota (seconds to wait, 0 when admitted), so the surface can state what is left. */
  onCharge?: (tokenId: string, wait: number) => void;
}

/** The context once the bot token has passed the checks. */
type Admitted = ReadApiContext & { caller: BotCaller };

const t = initTRPC.context<ReadApiContext>().create();

/**
 * A procedure for a table entry: the checks, then the input, in the resolver (as Agent Access's
 * `procedure` does, for the same reason: each level of tRPC's middleware chain costs a copy of the
 * call's options and context).
 */
function procedure<I extends z.ZodObject, R>(op: ReadApiOperation<ReadApiOperationId, I>, resolve: (ctx: Admitted, input: z.output<I>) => Promise<R> | R) {
  return t.procedure.query(
    ({ ctx }): Promise<R> =>
      measured(ctx.app.metrics, 'read_api', op.operationId, async () => {
        // Every route reads; pausing reads pauses the Read API with Agent Access.
        const paused = await ctx.app.maintenance.retryAfter('read');
        if (paused) throw unavailable('read', paused);
        const caller = await ctx.auth.identify(ctx.token);
        const wait = ctx.quota.charge(caller.tokenId, op.weight);
        ctx.onCharge?.(caller.tokenId, wait);
        if (wait) {
          ctx.app.metrics.quotaRefused('read_api', op.operationId);
          throw rateLimited(ctx.quota, wait, 'this bot token');
        }
        try {
          return await resolve({ ...ctx, caller }, parsedInput(op.input, ctx.input));
        } catch (error) {
          throw apiErrorOf(error);
        }
      }),
  );
}

/** The Read API envelope (spec 4.4): `data` and the request id that `X-Request-Id` carries too. */
const envelope = <D>(ctx: ReadApiContext, data: D) => ({ data, request_id: ctx.requestId });

const ops = readApiOperations;

export const readApiRouter = t.router({
  get_me: procedure(ops.get_me, (ctx) => envelope(ctx, me(ctx.caller.athlete))),
  get_stats: procedure(ops.get_stats, async (ctx) => envelope(ctx, await stats(ctx.app.reads, ctx.caller.athlete, ctx.app.clock.now()))),
  list_workouts: procedure(ops.list_workouts, async (ctx, input) =>
    envelope(ctx, await listWorkouts(ctx.app.reads, ctx.caller.athlete.athlete_id, input, ctx.cursorKey)),
  ),
  get_workout: procedure(ops.get_workout, async (ctx, input) => envelope(ctx, await getWorkout(ctx.app.reads, ctx.caller.athlete.athlete_id, input.id))),
  list_saved_workouts: procedure(ops.list_saved_workouts, async (ctx, input) =>
    envelope(ctx, await listSavedWorkouts(ctx.app.reads, ctx.caller.athlete.athlete_id, input, ctx.cursorKey)),
  ),
  get_saved_workout: procedure(ops.get_saved_workout, async (ctx, input) =>
    envelope(ctx, await getSavedWorkout(ctx.app.reads, ctx.caller.athlete.athlete_id, input.id)),
  ),
});

export const createReadApiCaller = t.createCallerFactory(readApiRouter);
