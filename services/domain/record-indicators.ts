// Historical record indicators (spec 4.4, `historical-record-at-completion.v1`). A set carries a
// label when, for its exercise, it beat every eligible set of the workouts completed before its
// own: heaviest weight, most reps, largest single-set volume (weight x reps), highest Epley
// estimated one-rep max (weight x (1 + reps / 30)). Warm-ups, sets not completed, and drop sets
// without an eligible completed parent are not eligible. An equal value is no record. Within one
// workout one set per label wins: the best value, ties going to the first set in workout order.
import type { z } from 'zod';
import type { recordIndicator } from '../../contracts/common.ts';
import type { WorkoutSet } from '../../contracts/record.ts';

export type Indicator = z.infer<typeof recordIndicator>;
export const INDICATORS: Indicator[] = ['weight', 'reps', 'set_volume', 'estimated_1rm'];

/** The best value of each indicator among eligible sets so far, and how many there were. */
export interface Best {
  weight: number | null;
  reps: number | null;
  set_volume: number | null;
  estimated_1rm: number | null;
  count: number;
}

export const NO_BEST: Best = { weight: null, reps: null, set_volume: null, estimated_1rm: null, count: 0 };

export function indicatorValue(indicator: Indicator, s: Pick<WorkoutSet, 'weight_kg' | 'reps'>): number | null {
  const w = s.weight_kg;
  const r = s.reps;
  switch (indicator) {
    case 'weight':
      return w !== null && w > 0 ? w : null;
    case 'reps':
      return r !== null && r > 0 ? r : null;
    case 'set_volume':
      return w !== null && r !== null && w > 0 && r > 0 ? w * r : null;
    case 'estimated_1rm':
      return w !== null && r !== null && w > 0 && r > 0 ? w * (1 + r / 30) : null;
  }
}

/** What of a set the records rule reads. */
export type RecordSet = Pick<WorkoutSet, 'position' | 'set_number' | 'set_type' | 'parent_position' | 'weight_kg' | 'reps' | 'completed'>;

/** A set done: completed, and not a warm-up. Only these count, for records and for activity. */
export const isDone = (s: Pick<WorkoutSet, 'completed' | 'set_type'>) => s.completed && s.set_type !== 'warmup';

/** The sets of one workout's exercise that count, in workout order. */
export function eligibleSets<S extends RecordSet>(sets: S[]): S[] {
  const byPosition = new Map(sets.map((s) => [s.position, s]));
  const eligible = (s: S, seen: Set<number>): boolean => {
    if (!isDone(s)) return false;
    if (s.set_type !== 'drop_set') return true;
    if (s.parent_position === null || seen.has(s.position)) return false;
    const parent = byPosition.get(s.parent_position);
    return parent !== undefined && parent !== s && eligible(parent, new Set([...seen, s.position]));
  };
  return sets.filter((s) => eligible(s, new Set()));
}

export interface WorkoutRecords {
  /** Labels by set position. */
  labels: Record<number, Indicator[]>;
  /** Eligible sets before this workout: the baseline's size. */
  sampleCount: number;
  after: Best;
}

/** The labels of one workout's sets of an exercise (in workout order), given the best before it. */
export function recordsOf(sets: RecordSet[], prior: Best): WorkoutRecords {
  const eligible = eligibleSets(sets);
  const labels: Record<number, Indicator[]> = {};
  const after: Best = { ...prior, count: prior.count + eligible.length };
  for (const indicator of INDICATORS) {
    let winner: RecordSet | null = null;
    let best: number | null = null;
    for (const s of eligible) {
      const v = indicatorValue(indicator, s);
      if (v !== null && (best === null || v > best)) {
        best = v;
        winner = s;
      }
    }
    if (winner && best !== null) {
      if (prior[indicator] === null || best > prior[indicator]!) (labels[winner.position] ??= []).push(indicator);
      if (after[indicator] === null || best > after[indicator]!) after[indicator] = best;
    }
  }
  return { labels, sampleCount: prior.count, after };
}
