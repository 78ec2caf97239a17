// The HTTP server. Every response carries the request id; API responses are never cached.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Quota } from '../api/quota.ts';
import type { ApiServices } from '../api/router.ts';
import type { App } from '../app.ts';
import { derivedKey } from '../oauth/keys.ts';
import { createProvider, mountProvider, serverKeys } from '../oauth/provider.ts';
import { registerWebApp } from '../web/app.ts';
import { registerAgentAccess, type AgentAccessAuth } from './agent-access.ts';
import { registerMcp } from './mcp.ts';
import { openApiDocument } from './openapi.ts';
import { registerReadApi } from './read-api.ts';
import { registerRest } from './rest.ts';

export interface ServerOptions {
  logger?: boolean;
  /** Lets tests add routes behind the same authentication before the server starts. */
  extend?: (server: FastifyInstance, agentAccess: AgentAccessAuth) => void;
}

export async function buildServer(app: App, options: ServerOptions = {}): Promise<FastifyInstance> {
  const server = Fastify({
    logger: options.logger === false ? false : { level: app.config.logLevel },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
  });

  // Set as the request comes in, so that every answer carries them (a callback hook: an async one
  // costs a promise on every request).
  server.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'X-Request-Id': request.id, 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' });
    done();
  });

  const keys = serverKeys(app);
  const provider = await createProvider(app, keys);
  await mountProvider(server, provider, app);
  await registerWebApp(server, app, provider);
  const agentAccess = await registerAgentAccess(server, app, provider);
  const services: ApiServices = { app, auth: agentAccess, cursorKey: derivedKey(keys, 'cursor'), quota: new Quota(app.config.quota, app.clock) };
  registerRest(server, services);
  registerMcp(server, services);
  server.get('/openapi.json', async () => openApiDocument(app.config.baseUrl, app.config.quota));
  options.extend?.(server, agentAccess);
  await registerReadApi(server, app);

  server.get('/health', async () => {
    const [events, reads] = await Promise.all([app.events.describe(), app.reads.describe()]);
    return { status: 'ok', stores: { events, reads }, projections: app.projectionMode };
  });

  server.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}`, request_id: request.id } });
  });

  server.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'request failed');
    void reply.code(status).send({
      error: {
        code: status === 500 ? 'internal_error' : status === 413 ? 'payload_too_large' : 'invalid_input',
        message: status === 500 ? 'something went wrong on our side; the request id identifies it' : error.message,
        request_id: request.id,
      },
    });
  });

  return server;
}
