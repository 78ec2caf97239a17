// The authorization server's clean-up: expired codes, tokens, sessions, interactions and unused
// dynamically registered clients are deleted from `oauth_state` on a schedule. Expired documents
// are already refused when read; this keeps anonymous traffic (registrations, abandoned sign-ins,
// sessions) from growing the store for ever.
import type { ReadStore } from '../store/read-store.ts';
import type { Clock } from '../domain/clock.ts';
import { sweepExpiredOAuthState } from '../identity/oauth-store.ts';

/** How often each instance sweeps. Several instances sweeping the same store is harmless. */
export const OAUTH_CLEANUP_EVERY_MS = 10 * 60_000;
const BATCH = 500;
/** Rounds per sweep at most, so that one sweep of a large backlog does not hold the store long. */
const MAX_ROUNDS = 20;

/** One sweep: batches until nothing expired is left (or MAX_ROUNDS). Returns how many were deleted. */
export async function cleanUpOAuthState(reads: ReadStore, clock: Clock): Promise<number> {
  let total = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const deleted = await sweepExpiredOAuthState(reads, clock.now().getTime(), BATCH);
    total += deleted;
    if (deleted < BATCH) break;
  }
  return total;
}

/** Sweeps every OAUTH_CLEANUP_EVERY_MS until stopped; never keeps the process alive. */
export function scheduleOAuthCleanup(reads: ReadStore, clock: Clock, onError: (error: unknown) => void, everyMs = OAUTH_CLEANUP_EVERY_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    cleanUpOAuthState(reads, clock)
      .catch(onError)
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
