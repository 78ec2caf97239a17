// REST for Agent Access: a route per table entry, calling the tRPC procedure in-process. No logic
// of its own beyond turning the request into the procedure's input and errors into HTTP.
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { operationList } from '../../contracts/operations.ts';
import { ApiError } from '../api/errors.ts';
import { BodyNotAnObject } from '../api/input.ts';
import { createAgentAccessCaller, type ApiServices } from '../api/router.ts';
import { bearerToken, sendApiError } from './agent-access.ts';
import { setRateLimitHeaders } from './rate-limit.ts';

/** Reads take no body; a larger one than a stray form is refused (413) before anything else. */
const READ_BODY_LIMIT = 16 * 1024;

/**
 * Reads take no body: one over the limit, or of unknown length (chunked), is refused before
 * anything else, before Fastify would read and parse it. A callback hook: an async one costs a
 * promise on every request.
 */
export function refuseReadBody(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const chunked = request.headers['transfer-encoding'] !== undefined;
  if (!chunked && Number(request.headers['content-length'] ?? 0) <= READ_BODY_LIMIT) return done();
  const refusal = new ApiError('payload_too_large', `this operation takes no request body; ${READ_BODY_LIMIT} bytes at most, with a Content-Length`);
  // The body is not read: the connection closes after the answer instead of draining it.
  sendApiError(request, reply.header('Connection', 'close'), refusal);
}

/** Any failure as the shared error (a refused input is one already, see `parsedInput`); nothing else leaks. */
export function toApiError(error: unknown): ApiError {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof ApiError) return cause;
  throw error;
}

export function registerRest(server: FastifyInstance, services: ApiServices): void {
  for (const op of operationList) {
    server.route({
      method: op.method,
      url: op.path.replace(/\{(\w+)\}/g, ':$1'),
      // Operations without a body refuse one before Fastify would read it.
      ...(op.body ? { bodyLimit: op.bodyLimit ?? undefined } : { onRequest: refuseReadBody }),
      handler: async (request: FastifyRequest, reply) => {
        // A body that is not a JSON object is refused by the procedure, after its checks, as such.
        const isObject = typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body);
        const input =
          op.body && !isObject
            ? new BodyNotAnObject(request.body)
            : { ...(request.query as object), ...(op.body ? (request.body as object) : {}), ...(request.params as object) };
        const caller = createAgentAccessCaller({
          ...services,
          surface: 'rest',
          token: bearerToken(request.headers.authorization),
          requestId: request.id,
          input,
          onCharge: (grantId, wait) => setRateLimitHeaders(reply, services.quota, grantId, wait),
        });
        try {
          const result = await caller[op.operationId]();
          return reply.code(op.successStatus).send(result);
        } catch (error) {
          return sendApiError(request, reply, toApiError(error));
        }
      },
    });
  }
}
