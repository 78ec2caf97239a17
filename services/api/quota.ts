// Per-connection quotas for Agent Access, charged before any work is done. In memory, per process:
// several instances each keep their own budget, so a connection's real budget behind a load
// balancer is at most `units` times the number of instances (see docs/decisions.md).
import type { Clock } from '../domain/clock.ts';
import { admit, standing, type QuotaPolicy } from '../domain/quota.ts';

/** Keys whose budget has refilled are forgotten on a sweep every this many charges. */
const SWEEP_EVERY = 1024;

export class Quota {
  readonly policy: QuotaPolicy;
  readonly #clock: Clock;
  readonly #tats = new Map<string, number>();
  #charges = 0;

  constructor(policy: QuotaPolicy, clock: Clock) {
    this.policy = policy;
    this.#clock = clock;
  }

  /** Charges `weight` units to `key`: 0 when admitted, else whole seconds (>= 1) to wait. */
  charge(key: string, weight: number): number {
    const now = this.#clock.now().getTime();
    if (++this.#charges % SWEEP_EVERY === 0) this.#sweep(now);
    const decision = admit(this.policy, this.#tats.get(key), now, weight);
    if (!decision.admitted) return Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    this.#tats.set(key, decision.tat);
    return 0;
  }

  /** The units `key` could spend now and the whole seconds until its budget is whole again. */
  left(key: string): { units: number; fullInSeconds: number } {
    const s = standing(this.policy, this.#tats.get(key), this.#clock.now().getTime());
    return { units: s.units, fullInSeconds: Math.ceil(s.fullInMs / 1000) };
  }

  #sweep(now: number): void {
    for (const [key, tat] of this.#tats) if (tat <= now) this.#tats.delete(key);
  }
}
