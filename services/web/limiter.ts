// Counts attempts per key in a sliding window: sign-in attempts per e-mail and per address.
// In memory, per process: enough to slow guessing; several instances each keep their own count.
import type { Clock } from '../domain/clock.ts';

export class AttemptLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #clock: Clock;
  readonly #attempts = new Map<string, number[]>();

  constructor(max: number, windowMs: number, clock: Clock) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#clock = clock;
  }

  /** Seconds until the key may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const recent = this.#recent(key);
    if (recent.length < this.#max) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.#windowMs - this.#clock.now().getTime()) / 1000));
  }

  record(key: string): void {
    this.#attempts.set(key, [...this.#recent(key), this.#clock.now().getTime()]);
  }

  reset(key: string): void {
    this.#attempts.delete(key);
  }

  /** How many keys are remembered (each with at most `max` recent attempts). */
  get size(): number {
    return this.#attempts.size;
  }

  /** Forgets every key without a recent attempt: keys seen once are otherwise kept until asked again. */
  prune(): void {
    for (const key of [...this.#attempts.keys()]) this.#recent(key);
  }

  #recent(key: string): number[] {
    const since = this.#clock.now().getTime() - this.#windowMs;
    const recent = (this.#attempts.get(key) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.#attempts.delete(key);
    return recent;
  }
}
