// What an importer reads out of another app's export, before it becomes record events: the
// input of the import decider (`decideImport`). Canonical units; instants are UTC ISO strings.
import type { z } from 'zod';
import type { setType } from '../../contracts/common.ts';
import type { bodyMetric } from '../../contracts/record.ts';

export interface ParsedSet {
  /** 0-based order within the exercise as the file lists it. */
  position: number;
  set_type: z.infer<typeof setType>;
  weight_kg: number | null;
  reps: number | null;
  distance_metres: number | null;
  duration_seconds: number | null;
  rpe: number | null;
  /** 1-based line of the file the set came from; in a FIT file, the 1-based number of its set message. */
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
  /** 1-based line of the first row of this workout (1 for a FIT file, which has no rows). */
  line: number;
  /**
   * Set for a file without lines (FIT), which a refusal names instead: the entry of the uploaded
   * zip the workout came from, or null when the upload itself was the file.
   */
  entry?: string | null;
}

/** A body measurement read from another app's export, in its metric's canonical unit. */
export interface ParsedMeasurement {
  /** Stable key of the reading within the source app's exports. */
  source_ref: string;
  measured_at: string;
  metric: z.infer<typeof bodyMetric>;
  value: number;
  /** 1-based line of the file it came from (1 for a FIT file). */
  line: number;
  /** As a workout's `entry`: the zip entry of the FIT file that holds the reading (null: the upload itself). */
  entry?: string | null;
}

/** A meal, or a day's total, read from another app's export. */
export interface ParsedMeal {
  /** Stable key of the meal within the source app's exports. */
  source_ref: string;
  eaten_at: string;
  name: string;
  calories_kcal: number | null;
  protein_g: number | null;
  carbohydrate_g: number | null;
  fat_g: number | null;
  line: number;
}
