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
