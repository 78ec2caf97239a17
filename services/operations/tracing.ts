// OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test hands its own span
// processor): a span per HTTP request (services/http/observability.ts) and, inside it, a span per
// call to the event store and the read store. The request's span is found through an
// AsyncLocalStorage of our own, so no global context manager or tracer provider is registered.
// A request carrying a valid W3C `traceparent` (and `tracestate`) joins the caller's trace.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Attributes, type Context, createTraceState, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Who sent the spans: `service.name` repledger (a collector files spans of an unnamed service
 * under `unknown_service:node`), which an operator's OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES
 * override, as the OpenTelemetry SDKs' environment variables say.
 */
function serviceResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'repledger' }))
    .merge(detectResources({ detectors: [envDetector] }));
}

export class Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #current = new AsyncLocalStorage<Span>();

  constructor(processors: SpanProcessor[]) {
    this.#provider = new BasicTracerProvider({ resource: serviceResource(), spanProcessors: processors });
    this.#tracer = this.#provider.getTracer('repledger');
  }

  /** Traces sent to an OTLP/HTTP collector (its base address: `/v1/traces` is added); null without one. */
  static async toCollector(endpoint: string | null): Promise<Tracing | null> {
    if (endpoint === null) return null;
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new Tracing([new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }))]);
  }

  /**
   * A request's span, begun as it arrives: a child of the caller's span when `headers` carry a
   * valid `traceparent`, else the root of a new trace.
   */
  startRequest(name: string, attributes: Attributes, headers: TraceHeaders = {}): Span {
    return this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, callerContext(headers));
  }

  /** Runs `work` (and what it starts) inside `span`: store calls made there are its children. */
  within<T>(span: Span, work: () => T): T {
    return this.#current.run(span, work);
  }

  /**
   * The port, with each of its calls that answers a promise made a span (`prefix.method`) in the
   * request's trace; calls outside a request are not traced. Methods run on the port itself (its
   * private fields), so the proxy changes nothing else, `instanceof` included.
   */
  traced<T extends object>(port: T, prefix: string): T {
    const current = this.#current;
    const tracer = this.#tracer;
    return new Proxy(port, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          const parent = current.getStore();
          const startTime = parent ? performance.timeOrigin + performance.now() : 0;
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!parent || !(result instanceof Promise)) return result;
          const span = tracer.startSpan(`${prefix}.${property}`, { kind: SpanKind.CLIENT, startTime }, trace.setSpan(ROOT_CONTEXT, parent));
          return result.then(
            (answer) => {
              span.end();
              return answer;
            },
            (error: unknown) => {
              span.recordException(error instanceof Error ? error : String(error));
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              throw error;
            },
          );
        };
      },
    });
  }

  /** Sends what is still buffered, then stops. */
  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

/** A request's headers, as Node gives them: `traceparent` and `tracestate` are read. */
type TraceHeaders = Readonly<Record<string, string | string[] | undefined>>;

// https://www.w3.org/TR/trace-context/#traceparent-header: lowercase hex only; version ff, an
// all-zero trace id or parent id is invalid. Version 00 is exactly these 55 characters; a later
// version may append fields after a `-`, which are ignored (the four known ones are read as 00's).
const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?$/;

/** The caller's span as the parent of ours, or ROOT_CONTEXT (a new trace) when there is no valid one. */
function callerContext(headers: TraceHeaders): Context {
  // Two `traceparent` headers (an array, or Node's `a, b`) match nothing: the spec says ignore them.
  const { traceparent, tracestate } = headers;
  if (typeof traceparent !== 'string') return ROOT_CONTEXT;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return ROOT_CONTEXT;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return ROOT_CONTEXT;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return ROOT_CONTEXT;
  // Several `tracestate` headers are one list (RFC 9110 field combination); members that are not
  // valid are dropped, and the list is cut at 32 (the api's TraceState).
  const state = Array.isArray(tracestate) ? tracestate.join(',') : tracestate;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 0x01, // only `sampled` is defined; the other bits are not passed on
    isRemote: true,
    ...(state ? { traceState: createTraceState(state) } : {}),
  });
}
