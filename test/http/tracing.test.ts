// OpenTelemetry traces (issue 40): with a span processor (here an in-memory exporter's; in
// service OTEL_EXPORTER_OTLP_ENDPOINT's collector), a request is a span named by its route, and
// the store calls it makes are its children in the same trace. Without one, nothing is traced.
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openApp } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { systemClock } from '../../services/domain/clock.ts';
import { buildServer } from '../../services/http/server.ts';
import { Tracing } from '../../services/operations/tracing.ts';
import { tempDir } from '../support/app.ts';

test('one request to /health: a server span for the route, with a span per store call as its children', async () => {
  const exporter = new InMemorySpanExporter();
  const dataDir = tempDir();
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), systemClock, { tracing: new Tracing([new SimpleSpanProcessor(exporter)]) });
  const server = await buildServer(app, { logger: false });
  try {
    exporter.reset(); // what opening the app did is no request's
    const res = await server.inject({ method: 'GET', url: '/health' });
    assert.is(res.statusCode, 200);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === 'GET /health');
    assert.ok(request, `spans: ${spans.map((s) => s.name).join(', ')}`);
    assert.is(request.attributes['http.route'], '/health');
    assert.is(request.attributes['http.response.status_code'], 200);
    assert.is(request.attributes['repledger.request_id'], res.headers['x-request-id']);
    assert.is(request.resource.attributes['service.name'], 'repledger', 'a collector files the spans under the service');
    const children = spans.filter((s) => s.parentSpanContext?.spanId === request.spanContext().spanId);
    assert.equal(children.map((s) => s.name).sort(), ['event_store.describe', 'read_store.describe']);
    for (const child of children) {
      assert.is(child.spanContext().traceId, request.spanContext().traceId, 'one trace');
      assert.ok(child.startTime[0] * 1e9 + child.startTime[1] >= request.startTime[0] * 1e9 + request.startTime[1] - 1e6, 'inside the request');
    }
    // A route registered in its own context (an Agent Access operation) is traced too, by its route.
    exporter.reset();
    const refused = await server.inject({ method: 'GET', url: '/v1/agent-access/context' });
    assert.is(refused.statusCode, 401);
    assert.ok(
      exporter.getFinishedSpans().some((s) => s.name === 'GET /v1/agent-access/context' && s.attributes['http.response.status_code'] === 401),
      exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', '),
    );
  } finally {
    await server.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// The caller's span, as a W3C `traceparent` gives it.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

async function tracedServer() {
  const exporter = new InMemorySpanExporter();
  const dataDir = tempDir();
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), systemClock, { tracing: new Tracing([new SimpleSpanProcessor(exporter)]) });
  const server = await buildServer(app, { logger: false });
  exporter.reset();
  return {
    exporter,
    server,
    /** The span of one request to /health with these headers, and what it answered. */
    async healthSpan(headers: Record<string, string>) {
      exporter.reset();
      const res = await server.inject({ method: 'GET', url: '/health', headers });
      const spans = exporter.getFinishedSpans();
      return { res, spans, request: spans.find((s) => s.name === 'GET /health') };
    },
    async close() {
      await server.close();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test("a valid incoming traceparent: the request's span joins the caller's trace, as a child of the caller's span", async () => {
  const traced = await tracedServer();
  try {
    const { res, spans, request } = await traced.healthSpan({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'vendor=abc, other=1' });
    assert.is(res.statusCode, 200);
    assert.ok(request, `spans: ${spans.map((s) => s.name).join(', ')}`);
    assert.is(request.spanContext().traceId, TRACE_ID);
    assert.is(request.parentSpanContext?.spanId, PARENT_ID);
    assert.is(request.parentSpanContext?.isRemote, true);
    assert.is.not(request.spanContext().spanId, PARENT_ID, 'a span of its own');
    assert.is(request.spanContext().traceState?.get('vendor'), 'abc', 'tracestate kept');
    assert.is(request.spanContext().traceState?.get('other'), '1');
    // Its store calls are in the caller's trace too, under the request's span.
    const children = spans.filter((s) => s.parentSpanContext?.spanId === request.spanContext().spanId);
    assert.equal(children.map((s) => s.name).sort(), ['event_store.describe', 'read_store.describe']);
    for (const child of children) assert.is(child.spanContext().traceId, TRACE_ID);

    // A later version's traceparent is read as far as version 00 goes (fields it appends ignored).
    const later = await traced.healthSpan({ traceparent: `01-${TRACE_ID}-${PARENT_ID}-01-whatever` });
    assert.is(later.request?.spanContext().traceId, TRACE_ID);
    assert.is(later.request?.parentSpanContext?.spanId, PARENT_ID);

    // The caller's decision not to sample is kept: nothing of that request is recorded.
    const unsampled = await traced.healthSpan({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` });
    assert.is(unsampled.res.statusCode, 200);
    assert.equal(unsampled.spans, []);
  } finally {
    await traced.close();
  }
});

test('an invalid or absent traceparent: the request is answered and its span starts a new trace', async () => {
  const traced = await tracedServer();
  try {
    const malformed: Record<string, string> = {
      'version ff': `ff-${TRACE_ID}-${PARENT_ID}-01`,
      'version not hex': `0g-${TRACE_ID}-${PARENT_ID}-01`,
      'version 00 with a field after': `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
      'all-zero trace id': `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      'all-zero parent id': `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      'trace id too short': `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`,
      'parent id too long': `00-${TRACE_ID}-${PARENT_ID}a-01`,
      'flags of one digit': `00-${TRACE_ID}-${PARENT_ID}-1`,
      'upper-case hex': `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      'two traceparents': `00-${TRACE_ID}-${PARENT_ID}-01, 00-${TRACE_ID}-${PARENT_ID}-01`,
      empty: '',
      garbage: 'not a traceparent',
    };
    for (const [what, traceparent] of Object.entries(malformed)) {
      const { res, spans, request } = await traced.healthSpan({ traceparent, tracestate: 'vendor=abc' });
      assert.is(res.statusCode, 200, what);
      assert.ok(request, `${what}: spans ${spans.map((s) => s.name).join(', ')}`);
      assert.is(request.parentSpanContext, undefined, `${what}: a root span`);
      assert.is.not(request.spanContext().traceId, TRACE_ID, `${what}: a new trace`);
      assert.is(request.spanContext().traceState, undefined, `${what}: tracestate without a traceparent is dropped`);
    }
    const none = await traced.healthSpan({});
    assert.ok(none.request);
    assert.is(none.request.parentSpanContext, undefined);
  } finally {
    await traced.close();
  }
});

test("OTEL_SERVICE_NAME names the service instead, as OpenTelemetry's environment variables say", async () => {
  const exporter = new InMemorySpanExporter();
  process.env.OTEL_SERVICE_NAME = 'repledger-eu';
  try {
    new Tracing([new SimpleSpanProcessor(exporter)]).startRequest('GET /livez', {}).end();
  } finally {
    delete process.env.OTEL_SERVICE_NAME;
  }
  const [span] = exporter.getFinishedSpans();
  assert.is(span?.resource.attributes['service.name'], 'repledger-eu');
});

test('without OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced', async () => {
  const dataDir = tempDir();
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    assert.is(app.tracing, null);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
