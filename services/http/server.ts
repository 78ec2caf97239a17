// The HTTP server. Every response carries the request id; API responses are never cached.
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import { BotAuth } from '../api/bot-auth.ts';
import { BUSY_RETRY_SECONDS } from '../api/errors.ts';
import { DomainError } from '../domain/errors.ts';
import { NotYetProjected } from '../reads/projected.ts';
import { Quota } from '../api/quota.ts';
import type { ApiServices } from '../api/router.ts';
import type { Services } from '../api/services.ts';
import { derivedKey } from '../oauth/keys.ts';
import { createProvider, mountProvider, serverKeys } from '../oauth/provider.ts';
import { FORM_BODY_LIMIT, registerWebApp } from '../web/app.ts';
import { errorPage } from '../web/layout.ts';
import { INVALID_JSON_BODY, registerAgentAccess } from './agent-access.ts';
import { hasBody, isOAuthPath, lingerOnBody, oauthError, wantsPage } from './edges.ts';
import { registerMcp } from './mcp.ts';
import { registerObservability } from './observability.ts';
import { openApiDocument } from './openapi.ts';
import { registerReadApi } from './read-api.ts';
import { registerRest } from './rest.ts';

export interface ServerOptions {
  logger?: boolean;
  /**
   * The HTTP server to answer on, when it must exist before the app: the tests listen on port 0
   * first and take the base URL (the OAuth issuer, links) from the port they got.
   */
  serverFactory?: FastifyServerFactory;
}

export async function buildServer(app: Services, options: ServerOptions = {}): Promise<FastifyInstance> {
  const server = Fastify({
    logger: options.logger === false ? false : { level: app.config.logLevel },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Per-address limits (sign-in, sign-up, registration) count the client behind a trusted proxy.
    trustProxy: app.config.trustProxy,
    // Path ids are checked by the operation (after the token), not cut off by the router with a 414.
    routerOptions: { maxParamLength: PATH_PARAM_LIMIT },
    // A path Fastify cannot decode (`%zz`) or route never reaches a handler: answer it as any other refusal.
    frameworkErrors: (error, request, reply) => {
      reply.headers(COMMON_HEADERS(request.id));
      void refuse(request, reply, 400, 'invalid_input', badAddress(error));
    },
    // What Node's parser refuses (headers or an address over its limit, bytes that are not HTTP)
    // never becomes a request: answered here in the shared error shape rather than Fastify's own.
    clientErrorHandler: answerClientError,
  });

  // Set before anything is registered: an encapsulated context (the web pages) keeps the handlers
  // its parent had when it was registered, and before these that was Fastify's own JSON.
  server.setNotFoundHandler((request, reply) => {
    void refuse(request, reply, 404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`, 'There is no page at this address.');
  });

  server.setErrorHandler((error: FastifyError, request, reply) => {
    // Saved, but the read models that show it lag behind the log (a projection worker).
    if (error instanceof NotYetProjected) {
      reply.header('Retry-After', String(error.retryAfter));
      return void refuse(request, reply, 503, 'unavailable', error.message, 'It is saved, and will show here in a moment: reload the page in a few seconds.');
    }
    // A record that kept changing while a command was decided (the web app's moves): safe to retry.
    if (error instanceof DomainError && error.code === 'busy') {
      reply.header('Retry-After', String(BUSY_RETRY_SECONDS));
      return void refuse(
        request,
        reply,
        503,
        'unavailable',
        error.message,
        'Your record was changing while this was saved, so nothing was saved. Try again in a moment.',
      );
    }
    const given = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (given === 500) request.log.error({ err: error }, 'request failed');
    // A body of a type no parser reads is a request that is not valid, answered with a status of
    // the API's set (spec 7) rather than 415.
    const status = given === 415 ? 400 : given;
    const code = status === 500 ? 'internal_error' : status === 413 ? 'payload_too_large' : 'invalid_input';
    const message =
      status === 500
        ? 'something went wrong on our side; the request id identifies it'
        : status === 413
          ? `the request body is larger than the ${bodyLimitOf(request, server)} bytes this address accepts`
          : given === 415
            ? `the request body's Content-Type (${String(request.headers['content-type'] ?? '').slice(0, 100)}) is not one this address reads; send JSON as application/json`
            : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
              ? INVALID_JSON_BODY
              : error.message;
    void refuse(
      request,
      reply,
      status,
      code,
      message,
      status === 500 ? 'Something went wrong on our side. Try again in a moment.' : 'The request could not be read.',
    );
  });

  // A body over its route's limit is left half read by Fastify's parser: the 413 (whichever error
  // handler writes it) goes out at once, and the rest is read and dropped behind it, or a
  // client still sending a large chunked body would have its connection reset before the answer.
  server.addHook('onError', (request, reply, error, done) => {
    if (error.statusCode === 413 && !request.raw.complete) {
      // Fastify closes the connection after a body it stopped reading; read to the end instead,
      // and keep the connection unless the client asked to close it.
      if (reply.raw.shouldKeepAlive) reply.removeHeader('connection');
      lingerOnBody(request.raw);
    }
    done();
  });

  // Set as the request comes in, so that every answer carries them (a callback hook: an async one
  // costs a promise on every request).
  server.addHook('onRequest', (request, reply, done) => {
    reply.headers(COMMON_HEADERS(request.id));
    // A read takes no body (docs/api.md): any, of any size or chunked, is refused before a route
    // runs, at once, and the rest read and thrown away behind the answer.
    if ((request.method === 'GET' || request.method === 'HEAD') && hasBody(request.headers)) {
      lingerOnBody(request.raw);
      return refuse(request, reply, 413, 'payload_too_large', 'a GET request takes no body', 'This address takes no request body.');
    }
    done();
  });
  // Before anything else is registered, so that its hooks (traces) reach every route.
  registerObservability(server, app);

  const keys = serverKeys(app);
  const provider = await createProvider(app, keys);
  await mountProvider(server, provider, app);
  await registerWebApp(server, app, provider);
  const agentAccess = await registerAgentAccess(server, app, provider);
  const services: ApiServices = {
    app,
    auth: agentAccess,
    cursorKey: derivedKey(keys, 'cursor'),
    quota: new Quota(app.config.quota, app.clock),
    proposals: app.proposals,
  };
  registerRest(server, services);
  registerMcp(server, services, derivedKey(keys, 'mcp session'));
  registerReadApi(server, {
    app,
    auth: new BotAuth(app),
    cursorKey: derivedKey(keys, 'read-api cursor'),
    quota: new Quota(app.config.readApiQuota, app.clock),
  });
  server.get('/openapi.json', async () => openApiDocument(app.config.baseUrl, { agentAccess: app.config.quota, readApi: app.config.readApiQuota }));

  // Retention (spec 3 rule 3): each instance purges hourly; the purge is idempotent, so several
  // instances doing it is harmless. `repledger proposals purge` runs it by hand.
  // The access history's counts older than its period go on the same schedule.
  const purge = () => {
    void app.proposals.purge().catch((err: unknown) => server.log.error({ err }, 'purging proposal recovery data failed'));
    void app.access.purge().catch((err: unknown) => server.log.error({ err }, 'purging the access history failed'));
  };
  const purger = setInterval(purge, PURGE_EVERY_MS);
  purger.unref();
  const stopFlushing = app.access.schedule((err: unknown) => server.log.error({ err }, 'writing the access history failed'));
  server.addHook('onReady', async () => purge());
  // The Hevy sync in the background (issue 41): every instance looks for athletes due; a lease per
  // athlete lets one instance at a time run each. Logged: the athlete and what failed, never a key.
  let stopHevySync: (() => Promise<void>) | null = null;
  server.addHook('onReady', async () => {
    stopHevySync = app.hevy.schedule((athleteId, err) =>
      server.log.warn(
        { athlete_id: athleteId, code: (err as { code?: string }).code ?? null, message: err instanceof Error ? err.message : String(err) },
        'Hevy sync failed',
      ),
    );
  });
  // What is still counted is written when the app closes (App.close), after the last request.
  server.addHook('onClose', async () => {
    clearInterval(purger);
    stopFlushing();
    await stopHevySync?.();
  });

  // Status and engine names only: where the data lives is for operators (`repledger projections status`).
  server.get('/health', async () => {
    // Asking both stores proves they answer; what they say (paths, connection strings) stays here.
    await Promise.all([app.events.describe(), app.reads.describe()]);
    return { status: 'ok', stores: { events: { engine: app.events.engine }, reads: { engine: app.reads.engine } }, projections: app.projectionMode };
  });

  return server;
}

const PURGE_EVERY_MS = 60 * 60_000;

const COMMON_HEADERS = (requestId: string) => ({ 'X-Request-Id': requestId, 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' });

/** Longer than any id the service issues, short enough that no route holds a large one. */
const PATH_PARAM_LIMIT = 1024;

/** The limit a request's body went over: a form's is its parser's, not the route's. */
function bodyLimitOf(request: FastifyRequest, server: FastifyInstance): number {
  if (/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) return FORM_BODY_LIMIT;
  return request.routeOptions.bodyLimit ?? server.initialConfig.bodyLimit;
}

/** What is wrong with an address the router refused, without repeating it (it may be kilobytes long). */
function badAddress(error: FastifyError): string {
  if (error.code === 'FST_ERR_BAD_URL') return 'the address is not valid: it holds a malformed percent-encoding';
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return `the address is not valid: a part of its path is longer than ${PATH_PARAM_LIMIT} characters`;
  return 'the address is not valid';
}

/**
 * The answer to a request Node's HTTP parser could not read. There is no request to answer
 * through, so it is written on the socket, which then closes (as Fastify's default does).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset or closed connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `the request's address and headers are longer than the ${Math.round(maxHeaderSize / 1024)} KB this server reads`]
        : [400, 'the request is not valid HTTP (a malformed header, a character not allowed in the address, or a wrong Content-Length)'];
  const requestId = randomUUID();
  // What the request line said, where the parser got that far: a HEAD gets no body, and the
  // authorization server's addresses get its refusals' shape.
  // (Node's parser errors carry the packet as a Buffer, whatever Fastify's type says.)
  const packet = (error as { rawPacket?: unknown }).rawPacket;
  const line = Buffer.isBuffer(packet) ? packet.subarray(0, 8192).toString('latin1') : '';
  const [, method, target = ''] = /^([A-Z]+) (\S+)/.exec(line) ?? [];
  const body = JSON.stringify(isOAuthPath(target) ? oauthError(status, message) : { error: { code: 'invalid_input', message, request_id: requestId } });
  const headers = {
    ...COMMON_HEADERS(requestId),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  };
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n${method === 'HEAD' ? '' : body}`,
    );
  socket.destroy(error);
}

function refuse(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, forPeople = message): FastifyReply {
  if (wantsPage(request.url, request.headers.accept)) return errorPage(reply.code(status), status, forPeople, request.id);
  // The authorization server's refusals are its own (RFC 6749), however its address was written.
  if (isOAuthPath(request.url)) return reply.code(status).send(oauthError(status, message));
  return reply.code(status).send({ error: { code, message, request_id: request.id } });
}
