// What an importer reads out of another app's export, before it becomes record events: the
// input of the import decider (`decideImport`). Canonical units; instants are UTC ISO strings.
import type { z } from 'zod';
import type { setType } from '../../contracts/common.ts';

export interface ParsedSet {
  /** 0-based order within the exercise as the file lists it. */
  position: number;
  set_type: z.infer<typeof setType>;
  weight_kg: number | null;
  reps: number | null;
  distance_metres: number | null;
  duration_seconds: number | null;
  rpe: number | null;
  /** 1-based line of the file the set came from. */
  line: number;
}

export interface ParsedExercise {
  /** The exercise name as the source app writes it. */
  title: string;
  /** Rows of one workout sharing this key were performed as a superset. */
  superset_key: string | null;
  notes: string | null;
  sets: ParsedSet[];
}

export interface ParsedWorkout {
  /** Stable key of this workout within exports of the source app (start time + title). */
  source_ref: string;
  title: string;
  started_at: string | null;
  ended_at: string;
  notes: string | null;
  exercises: ParsedExercise[];
  /** 1-based line of the first row of this workout. */
  line: number;
}
