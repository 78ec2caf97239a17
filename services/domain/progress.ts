// One exercise's progress, session by session, as the Progress page charts it: the best Epley
// estimated one-rep max and the top set of each session, over the sets the record indicators
// count (no warm-ups, nothing not completed, no drop set without an eligible parent), so that the
// line and the record badges always agree.
import { eligibleSets, INDICATORS, indicatorValue, type Indicator, type RecordSet } from './record-indicators.ts';

export interface SessionProgress {
  workout_id: string;
  /** The workout's local date in the record timezone. */
  local_date: string;
  /** The highest estimated one-rep max of the session's eligible sets, kilograms. */
  best_e1rm_kg: number | null;
  /** The heaviest eligible set (more reps breaking a tie, then the earlier set). */
  top_set: { weight_kg: number; reps: number | null } | null;
  /** The most reps in one eligible set: the figure for exercises done without weight. */
  most_reps: number | null;
  /** The records the session set, in the indicators' order. */
  records: Indicator[];
}

export function sessionProgress(session: { workout_id: string; local_date: string; sets: RecordSet[]; labels: Indicator[][] }): SessionProgress {
  const eligible = eligibleSets(session.sets);
  let best: number | null = null;
  let top: SessionProgress['top_set'] = null;
  let mostReps: number | null = null;
  for (const s of eligible) {
    const e1rm = indicatorValue('estimated_1rm', s);
    if (e1rm !== null && (best === null || e1rm > best)) best = e1rm;
    const w = indicatorValue('weight', s);
    if (w !== null && (top === null || w > top.weight_kg || (w === top.weight_kg && (s.reps ?? 0) > (top.reps ?? 0)))) top = { weight_kg: w, reps: s.reps };
    const r = indicatorValue('reps', s);
    if (r !== null && (mostReps === null || r > mostReps)) mostReps = r;
  }
  const labelled = new Set(session.labels.flat());
  return {
    workout_id: session.workout_id,
    local_date: session.local_date,
    best_e1rm_kg: best,
    top_set: top,
    most_reps: mostReps,
    records: INDICATORS.filter((i) => labelled.has(i)),
  };
}
