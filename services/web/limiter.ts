// Counts attempts per key in a sliding window: sign-in attempts per e-mail and per address,
// sign-ups per address. In memory, per process: enough to slow guessing; several instances each
// keep their own count. Keys whose attempts have all left the window are swept at most once a
// window, so memory follows the attempts of the last window, not every key ever seen.
import { isIP } from 'node:net';
import type { Clock } from '../domain/clock.ts';

export class AttemptLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #clock: Clock;
  readonly #attempts = new Map<string, number[]>();
  #sweptAt: number;

  constructor(max: number, windowMs: number, clock: Clock) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#clock = clock;
    this.#sweptAt = clock.now().getTime();
  }

  /** Seconds until the key may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const recent = this.#recent(key);
    if (recent.length < this.#max) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.#windowMs - this.#clock.now().getTime()) / 1000));
  }

  record(key: string): void {
    const now = this.#clock.now().getTime();
    if (now - this.#sweptAt >= this.#windowMs) this.#sweep(now);
    // Only the newest `max` attempts decide when the key may try again.
    this.#attempts.set(key, [...this.#recent(key), now].slice(-this.#max));
  }

  reset(key: string): void {
    this.#attempts.delete(key);
  }

  /** Takes back the newest attempt of `key`: one counted up front that turned out to succeed. */
  forgetLast(key: string): void {
    const times = this.#attempts.get(key);
    times?.pop();
    if (times?.length === 0) this.#attempts.delete(key);
  }

  /** How many keys are remembered (each with at most `max` recent attempts). */
  get size(): number {
    return this.#attempts.size;
  }

  /** Forgets every key without a recent attempt now, rather than at the next sweep. */
  prune(): void {
    for (const key of [...this.#attempts.keys()]) this.#recent(key);
  }

  #recent(key: string): number[] {
    const since = this.#clock.now().getTime() - this.#windowMs;
    const recent = (this.#attempts.get(key) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.#attempts.delete(key);
    return recent;
  }

  #sweep(now: number): void {
    const since = now - this.#windowMs;
    for (const [key, times] of this.#attempts) if (times[times.length - 1]! <= since) this.#attempts.delete(key);
    this.#sweptAt = now;
  }
}

/**
 * Whom attempts are counted against: an IPv4 address, or an IPv6 /64 (one subscriber's network:
 * counting single IPv6 addresses would give each caller 2^64 budgets).
 */
export function addressKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
