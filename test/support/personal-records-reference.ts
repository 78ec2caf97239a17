// Personal records as the record-label rules (spec 4.4) give them, stated again without the
// production code, for tests to compare the projection's summaries with: a set is eligible when it
// was completed, is not a warm-up, and (a drop set) drops from an eligible completed set; its
// label values are weight, reps, weight x reps and Epley's weight x (1 + reps / 30), each only
// when positive; a workout's best of a label is a record when it beats every earlier workout's,
// the first set in workout order (exercise order, then position) winning a tie. Besides each
// exercise's records, it gives the labels each workout's sets carry and how many eligible sets came
// before, for the record projection's entries.
import type { RecordItem } from '../../contracts/record.ts';

export const LABELS = ['weight', 'reps', 'set_volume', 'estimated_1rm'] as const;
export type Label = (typeof LABELS)[number];
export type Expected = { value: number; workout_id: string; set_at: string; date: string; set_number: number; weight_kg: number | null; reps: number | null };

type Set = RecordItem<'workout'>['exercises'][number]['sets'][number];
/** A set with the exercise order of its place in the workout. */
type Placed = Set & { exercise_order: number };
/**
 * What one workout's sets of an exercise carry: labels by `<exercise order>:<position>`, and the
 * eligible sets of earlier workouts. `equalled` and `shared` say which cases it reached, for tests
 * to count: labels whose best only equalled the record held before (no label), and labels whose
 * best value two or more of its sets reached (one winner).
 */
export type WorkoutLabels = { labels: Record<string, Label[]>; sampleCount: number; equalled: Label[]; shared: Label[] };

function eligible(sets: Set[]): Set[] {
  const at = new Map(sets.map((s) => [s.position, s]));
  const ok = (s: Set, depth: number): boolean => {
    if (!s.completed || s.set_type === 'warmup' || depth > sets.length) return false;
    if (s.set_type !== 'drop_set') return true;
    const parent = s.parent_position === null ? undefined : at.get(s.parent_position);
    return parent !== undefined && parent !== s && ok(parent, depth + 1);
  };
  return sets.filter((s) => ok(s, 0));
}

function labelValue(label: Label, s: Set): number | null {
  const w = s.weight_kg !== null && s.weight_kg > 0 ? s.weight_kg : null;
  const r = s.reps !== null && s.reps > 0 ? s.reps : null;
  if (label === 'weight') return w;
  if (label === 'reps') return r;
  if (w === null || r === null) return null;
  return label === 'set_volume' ? w * r : w * (1 + r / 30);
}

function localDate(instant: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instant));
}

/**
 * Each exercise's records, session count, last end and eligible-set count, and the labels of each
 * workout's sets of it (`workouts`, by workout id), from the workouts themselves.
 */
export function expectedRecords(workouts: Array<RecordItem<'workout'>>, timeZone: string) {
  const out = new Map<
    string,
    { records: Record<Label, Expected | null>; sessions: number; last: string | null; eligibleSets: number; workouts: Map<string, WorkoutLabels> }
  >();
  const ordered = [...workouts].sort((a, b) => a.ended_at.localeCompare(b.ended_at) || a.id.localeCompare(b.id));
  for (const w of ordered) {
    const byExercise = new Map<string, Placed[]>();
    for (const e of [...w.exercises].sort((a, b) => a.exercise_order - b.exercise_order)) {
      const placed = eligible([...e.sets].sort((a, b) => a.position - b.position)).map((s) => ({ ...s, exercise_order: e.exercise_order }));
      byExercise.set(e.exercise_id, [...(byExercise.get(e.exercise_id) ?? []), ...placed]);
    }
    for (const [exerciseId, sets] of byExercise) {
      const entry = out.get(exerciseId) ?? {
        records: { weight: null, reps: null, set_volume: null, estimated_1rm: null },
        sessions: 0,
        last: null,
        eligibleSets: 0,
        workouts: new Map(),
      };
      const labels: Record<string, Label[]> = {};
      const reached: WorkoutLabels = { labels, sampleCount: entry.eligibleSets, equalled: [], shared: [] };
      entry.workouts.set(w.id, reached);
      entry.sessions += 1;
      entry.last = w.ended_at;
      entry.eligibleSets += sets.length;
      for (const label of LABELS) {
        let best: Placed | null = null;
        for (const s of sets) if (labelValue(label, s) !== null && (best === null || labelValue(label, s)! > labelValue(label, best)!)) best = s;
        const held = entry.records[label];
        const top = best && labelValue(label, best);
        if (top !== null && held !== null && top === held.value) reached.equalled.push(label);
        if (top !== null && sets.filter((s) => labelValue(label, s) === top).length > 1) reached.shared.push(label);
        if (best && (held === null || labelValue(label, best)! > held.value)) {
          entry.records[label] = {
            value: labelValue(label, best)!,
            workout_id: w.id,
            set_at: w.ended_at,
            date: localDate(w.started_at ?? w.ended_at, timeZone),
            set_number: best.set_number,
            weight_kg: best.weight_kg,
            reps: best.reps,
          };
          (labels[`${best.exercise_order}:${best.position}`] ??= []).push(label);
        }
      }
      out.set(exerciseId, entry);
    }
  }
  return out;
}
