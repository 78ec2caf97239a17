// The bot-facing Read API v1 over HTTP (spec 4.4): a GET route per entry of its operations table,
// calling the tRPC procedure in-process. Only the `Authorization: Bearer` header is handed over
// (bot tokens); cookies and every other header are never read here. Refusals use the Read API's
// error shape; the server's onRequest hook adds `Cache-Control: private, no-store` and
// `X-Request-Id` to every answer, and each answer to an identified bot token states the quota it has
// left (`RateLimit-Policy`, `RateLimit`), as Agent Access does for a connection.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readApiOperationList } from '../../contracts/read-api.ts';
import { createReadApiCaller, type ReadApiServices } from '../api/read-api-router.ts';
import { bearerToken, sendApiError } from './agent-access.ts';
import { setRateLimitHeaders } from './rate-limit.ts';
import { refuseReadBody, toApiError } from './rest.ts';

export function registerReadApi(server: FastifyInstance, services: ReadApiServices): void {
  for (const op of readApiOperationList) {
    server.get(op.path.replace(/\{(\w+)\}/g, ':$1'), { onRequest: refuseReadBody }, async (request: FastifyRequest, reply) => {
      const caller = createReadApiCaller({
        ...services,
        token: bearerToken(request.headers.authorization),
        requestId: request.id,
        input: { ...(request.query as object), ...(request.params as object) },
        onCharge: (tokenId, wait) => setRateLimitHeaders(reply, services.quota, tokenId, wait, 'bot_token'),
      });
      try {
        return await caller[op.operationId]();
      } catch (error) {
        return sendApiError(request, reply, toApiError(error), 'read-api');
      }
    });
  }
}
