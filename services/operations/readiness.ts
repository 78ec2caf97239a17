// Readiness (`/readyz`): the stores answer a cheap question within a timeout, and the projections
// are within READY_MAX_LAG_EVENTS of the head of the log. Liveness (`/livez`) asks nothing.
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { EventStore } from '../store/event-store.ts';
import type { ReadStore } from '../store/read-store.ts';

/** Lag is counted up to this many events (as `projections status` counts it). */
export const LAG_COUNT_LIMIT = 10_000;

export interface ReadinessDeps {
  events: Pick<EventStore, 'describe' | 'headPosition' | 'readAll'>;
  reads: Pick<ReadStore, 'describe'>;
  runner: Pick<ProjectionRunner, 'lowestCheckpoint'>;
  /** Events the slowest projection may be behind and the service still ready. */
  maxLagEvents: number;
  /** How long each check may take before it counts as failed. */
  timeoutMs: number;
  /** Told what a store's error said, which the answer keeps to operators (it may name hosts and addresses). */
  onFailure?: (check: string, error: unknown) => void;
}

export interface Check {
  ok: boolean;
  /** Why it failed, in words safe for anyone who can reach /readyz: that it timed out or answered with an error. */
  error?: string;
}

export interface Readiness {
  ready: boolean;
  checks: {
    event_store: Check;
    read_store: Check;
    projections: Check & { lag_events: number | null; max_lag_events: number };
  };
}

class TimedOut extends Error {}

/** Resolves with `work`'s result, or rejects once `ms` have passed. */
async function within<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Events after the slowest projection's checkpoint, counted up to LAG_COUNT_LIMIT. */
export async function projectionLag(deps: Pick<ReadinessDeps, 'events' | 'runner'>, limit = LAG_COUNT_LIMIT): Promise<number> {
  const [head, slowest] = await Promise.all([deps.events.headPosition(), deps.runner.lowestCheckpoint()]);
  if (slowest >= head) return 0;
  // Positions are opaque apart from order (KurrentDB's are byte offsets): the events are counted.
  return (await deps.events.readAll(slowest, limit)).length;
}

export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
  const check = (what: string, work: () => Promise<unknown>): Promise<Check> =>
    within(deps.timeoutMs, what, work).then(
      () => ({ ok: true }),
      (error: unknown) => {
        if (error instanceof TimedOut) return { ok: false, error: error.message };
        deps.onFailure?.(what, error);
        return { ok: false, error: `${what} answered with an error (in the service's log)` };
      },
    );
  let lag: number | null = null;
  const [event_store, read_store, lagCheck] = await Promise.all([
    check('the event store', () => deps.events.describe()),
    check('the read store', () => deps.reads.describe()),
    check('the projection checkpoints', async () => {
      lag = await projectionLag(deps, deps.maxLagEvents + 1);
    }),
  ]);
  const lagEvents = lag as number | null;
  const projections =
    lagCheck.ok && lagEvents !== null && lagEvents > deps.maxLagEvents
      ? {
          ok: false,
          error: `the slowest projection is more than ${deps.maxLagEvents} events behind the log`,
          lag_events: lagEvents,
          max_lag_events: deps.maxLagEvents,
        }
      : { ...lagCheck, lag_events: lagEvents, max_lag_events: deps.maxLagEvents };
  return { ready: event_store.ok && read_store.ok && projections.ok, checks: { event_store, read_store, projections } };
}
