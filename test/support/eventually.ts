// Waiting in tests for something that happens on its own time (a schedule, another process),
// against a deadline: a slow machine waits longer, and a failure says what was last seen.
// Where the code offers an event or a promise to wait on, wait on that instead.

/**
 * Calls `check` until it returns `{ done: true }`, at most `timeoutMs` (default 10 s) from now,
 * `intervalMs` apart; then fails with `what` and the last value `check` reported.
 */
export async function eventually<T>(
  check: () => Promise<{ done: boolean; value: T }> | { done: boolean; value: T },
  options: { what: string; timeoutMs?: number; intervalMs?: number },
): Promise<T> {
  const { what, timeoutMs = 10_000, intervalMs = 20 } = options;
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const { done, value } = await check();
    if (done) return value;
    if (Date.now() > giveUp) throw new Error(`${what}: not within ${timeoutMs / 1000} s; last seen: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** `promise`, or a failure naming `what` if it has not settled within `timeoutMs` (default 10 s). */
export async function within<T>(promise: Promise<T>, options: { what: string; timeoutMs?: number }): Promise<T> {
  const { what, timeoutMs = 10_000 } = options;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
