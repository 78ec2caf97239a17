/** Time is injected so that expiry, retention and "this week" are testable. */
export interface Clock {
  now(): Date;
}

/** Instants a record may carry ahead of the server's clock (a phone's clock runs a little fast). */
export const CLOCK_SKEW_MS = 5 * 60_000;

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock & { set(iso: string): void; advance(ms: number): void } {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    set: (next) => {
      t = Date.parse(next);
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
