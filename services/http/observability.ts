// `/livez`, `/readyz` and `/metrics` (decisions.md, "Observability (issue 40)"). `/health` stays
// as it was (server.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../api/services.ts';
import { readiness } from '../operations/readiness.ts';
import type { Tracing } from '../operations/tracing.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function registerObservability(server: FastifyInstance, app: Services): void {
  if (app.tracing) traceRequests(server, app.tracing);

  // The process is up and answering: nothing is asked of the stores, so a store that is down does
  // not make an orchestrator restart every instance.
  server.get('/livez', async () => ({ status: 'live' }));

  // Ready for traffic: both stores answer within READY_TIMEOUT_MS and the projections are within
  // READY_MAX_LAG_EVENTS of the log. 503 names the check that failed.
  server.get('/readyz', async (request, reply) => {
    const result = await readiness({
      events: app.events,
      reads: app.reads,
      runner: app.runner,
      maxLagEvents: app.config.ready.maxLagEvents,
      timeoutMs: app.config.ready.timeoutMs,
      onFailure: (check, err) => request.log.warn({ err, check }, 'readiness check failed'),
    });
    return reply.code(result.ready ? 200 : 503).send({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  });

  // Not public: without METRICS_TOKEN there is no such address (404); with it, a request without
  // `Authorization: Bearer <METRICS_TOKEN>` is refused (401).
  const token = app.config.metricsToken;
  if (token === null) return;
  const expected = digest(token);
  server.get('/metrics', async (request, reply) => {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), expected)) {
      reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return reply.code(401).send({ error: { code: 'unauthorized', message: 'the metrics ask for the bearer token METRICS_TOKEN', request_id: request.id } });
    }
    const { contentType, text } = await app.metrics.exposition();
    return reply.type(contentType).send(text);
  });
}

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * A span per request, named by its route (never the raw path), from its arrival to its answer; its
 * handler runs inside it (entered once the body is read: a body's stream would not carry it), so
 * the store calls it makes are its children. A valid incoming `traceparent` makes the caller's
 * span its parent (the caller's trace); without one it starts a trace.
 */
function traceRequests(server: FastifyInstance, tracing: Tracing): void {
  server.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unrouted';
    spans.set(
      request,
      tracing.startRequest(
        `${request.method} ${route}`,
        { 'http.request.method': request.method, 'http.route': route, 'repledger.request_id': request.id },
        request.headers,
      ),
    );
    done();
  });
  server.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (span) tracing.within(span, done);
    else done();
  });
  server.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      spans.delete(request);
    }
    done();
  });
}
