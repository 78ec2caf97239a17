// Read-your-writes over projections that may lag (a projection worker): a read that must show a
// write waits, bounded, until every projection has passed the log position of that write. With
// projections applied in the append's own transaction (the embedded default) they always have.
import { CHECKPOINTS } from '../../projections/runner.ts';
import type { Doc, ReadStore } from '../store/read-store.ts';

/** The checkpoints' partition, as the runner writes them. */
const PARTITION = 'projections';
/** How long a read waits for the projections before it answers "not yet" (503 with Retry-After). */
export const PROJECTION_WAIT_MS = 5_000;
/** How often a waiting read looks at the checkpoints again. */
const POLL_MS = 20;

/**
 * Whether every projection named has passed `position` (a global log position), waiting for them up
 * to `timeoutMs`. A position of 0 or less has always been passed.
 */
export async function projectedPast(reads: ReadStore, projections: readonly string[], position: number, timeoutMs = PROJECTION_WAIT_MS): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const checkpoints = await reads.getMany<Doc & { position: number }>(CHECKPOINTS, PARTITION, [...projections]);
    if (checkpoints.length === projections.length && checkpoints.every((c) => c.position >= position)) return true;
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Seconds a client told "not yet" waits before asking again. */
export const NOT_YET_RETRY_SECONDS = 2;

/** A write is in the log but the read models have not shown it within the wait: ask again shortly (503). */
export class NotYetProjected extends Error {
  readonly retryAfter = NOT_YET_RETRY_SECONDS;
  constructor(what: string) {
    super(`${what} is saved but not readable yet; ask again in ${NOT_YET_RETRY_SECONDS} seconds`);
    this.name = 'NotYetProjected';
  }
}
