// Prometheus metrics (prom-client), one registry per app rather than prom-client's global one, so
// that several apps in one process (the tests) each count their own. Served at `/metrics` behind
// METRICS_TOKEN (services/http/observability.ts); decisions.md, "Observability (issue 40)".
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProposalTransition } from '../writes/moves.ts';

/** Which API an operation belongs to. */
export type ApiName = 'agent_access' | 'read_api';

/** Events the slowest projection is behind the head of the log; null when it cannot be told (a store not answering). */
export type LagProbe = () => Promise<number | null>;

export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'api' | 'operation' | 'outcome'>;
  readonly #duration: Histogram<'api' | 'operation'>;
  readonly #quotaRefusals: Counter<'api' | 'operation'>;
  readonly #transitions: Counter<'transition'>;
  #lagProbe: LagProbe | null = null;

  constructor() {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'repledger_operation_requests_total',
      help: 'Operations called, by API, operationId and outcome (ok, or the error code answered).',
      labelNames: ['api', 'operation', 'outcome'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'repledger_operation_duration_seconds',
      help: 'Time spent in an operation (its checks and its work), by API and operationId.',
      labelNames: ['api', 'operation'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#quotaRefusals = new Counter({
      name: 'repledger_quota_refusals_total',
      help: 'Calls refused (429) because the connection or bot token had spent its quota, by API and operationId.',
      labelNames: ['api', 'operation'],
      registers,
    });
    this.#transitions = new Counter({
      name: 'repledger_proposal_transitions_total',
      help: 'Write proposals prepared, committed, rejected, expired (found expired by a move), conflicted or undone by this process.',
      labelNames: ['transition'],
      registers,
    });
    const probe = () => this.#lagProbe;
    new Gauge({
      name: 'repledger_projection_lag_events',
      help: 'Events in the log after the checkpoint of the slowest projection (counted up to 10,000); -1 when the stores did not answer.',
      registers,
      async collect() {
        const lag = await probe()?.().catch(() => null);
        this.set(lag ?? -1);
      },
    });
  }

  /** What the lag gauge reads when scraped. */
  measureLagWith(probe: LagProbe): void {
    this.#lagProbe = probe;
  }

  /** An operation answered: `outcome` is `ok` or the error code; `seconds` from its start. */
  operation(api: ApiName, operation: string, outcome: string, seconds: number): void {
    this.#requests.inc({ api, operation, outcome });
    this.#duration.observe({ api, operation }, seconds);
  }

  quotaRefused(api: ApiName, operation: string): void {
    this.#quotaRefusals.inc({ api, operation });
  }

  transition(transition: ProposalTransition): void {
    this.#transitions.inc({ transition });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
