// Weighted quotas as a generic cell rate algorithm (GCRA): each key keeps one number, the time at
// which its budget is whole again ("theoretical arrival time"). A budget of `units` per `windowMs`
// refills continuously, so a client that spends it all waits only until its next call's weight
// has refilled, not for a whole window to roll over.

export interface QuotaPolicy {
  /** Units a connection may spend in one window. */
  units: number;
  windowMs: number;
}

const ROUNDING_MS = 1e-6;

export type QuotaDecision = { admitted: true; tat: number } | { admitted: false; retryAfterMs: number };

/**
 * Whether a call of `weight` units at `now` fits the budget, given the key's theoretical arrival
 * time `tat` (undefined for a key never seen, or forgotten once refilled). A weight above the
 * whole budget is never admitted; configuration keeps budgets above every operation's weight.
 */
export function admit(policy: QuotaPolicy, tat: number | undefined, now: number, weight: number): QuotaDecision {
  const perUnitMs = policy.windowMs / policy.units;
  const next = Math.max(tat ?? now, now) + weight * perUnitMs;
  const overBy = next - now - policy.windowMs;
  // windowMs / units is rarely exact in binary: without the tolerance a full burst of 14 units
  // a minute ends 1e-9 ms over and refuses its last unit.
  return overBy <= ROUNDING_MS ? { admitted: true, tat: next } : { admitted: false, retryAfterMs: overBy };
}

/**
 * What a key has left at `now` (its `tat` as `admit` keeps it): the whole units a call could still
 * spend, and the milliseconds until its budget is whole again. A call of weight w is admitted
 * exactly when w <= units.
 */
export function standing(policy: QuotaPolicy, tat: number | undefined, now: number): { units: number; fullInMs: number } {
  const owed = Math.max(0, (tat ?? now) - now);
  const perUnitMs = policy.windowMs / policy.units;
  // The same tolerance as `admit`, in units: a budget spent to the last unit reads 0, not -1e-9.
  return { units: Math.max(0, Math.floor((policy.windowMs - owed + ROUNDING_MS) / perUnitMs)), fullInMs: owed };
}
