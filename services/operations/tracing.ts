// OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test hands its own span
// processor): a span per HTTP request (services/http/observability.ts) and, inside it, a span per
// call to the event store and the read store. The request's span is found through an
// AsyncLocalStorage of our own, so no global context manager or tracer provider is registered.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

export class Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #current = new AsyncLocalStorage<Span>();

  constructor(processors: SpanProcessor[]) {
    this.#provider = new BasicTracerProvider({ spanProcessors: processors });
    this.#tracer = this.#provider.getTracer('repledger');
  }

  /** Traces sent to an OTLP/HTTP collector (its base address: `/v1/traces` is added); null without one. */
  static async toCollector(endpoint: string | null): Promise<Tracing | null> {
    if (endpoint === null) return null;
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new Tracing([new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }))]);
  }

  /** A request's span, begun as it arrives. */
  startRequest(name: string, attributes: Attributes): Span {
    return this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, ROOT_CONTEXT);
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
