// Hevy's public API (v1, https://api.hevyapp.com), the parts the sync reads, as its API description
// gives them (Hevy's OpenAPI document, as published in chrisdoc/hevy-mcp's openapi-spec.json;
// docs/decisions.md, "Hevy sync", says what was relied on). Read leniently: fields we do not use may
// come and go, and optional ones may be missing, so that a changed answer is either still read or
// a clear error, never a half-read workout.
import { z } from 'zod';

/** Hevy's maxima per page: 10 for workouts and their events feed, 100 for exercise templates. */
export const EVENTS_PAGE_MAX = 10;
export const TEMPLATES_PAGE_MAX = 100;

export const hevySet = z.looseObject({
  index: z.number().optional(),
  type: z.string().optional(),
  weight_kg: z.number().nullable().optional(),
  reps: z.number().nullable().optional(),
  distance_meters: z.number().nullable().optional(),
  duration_seconds: z.number().nullable().optional(),
  rpe: z.number().nullable().optional(),
  custom_metric: z.number().nullable().optional(),
});

export const hevyWorkoutExercise = z.looseObject({
  index: z.number().optional(),
  title: z.string(),
  notes: z.string().nullable().optional(),
  exercise_template_id: z.string().optional(),
  supersets_id: z.number().nullable().optional(),
  sets: z.array(hevySet).default([]),
});

export const hevyWorkout = z.looseObject({
  id: z.string().min(1),
  title: z.string(),
  description: z.string().nullable().optional(),
  start_time: z.string(),
  end_time: z.string(),
  updated_at: z.string().optional(),
  created_at: z.string().optional(),
  exercises: z.array(hevyWorkoutExercise).default([]),
});
export type HevyWorkout = z.infer<typeof hevyWorkout>;
export type HevyWorkoutExercise = z.infer<typeof hevyWorkoutExercise>;
export type HevySet = z.infer<typeof hevySet>;

const updatedEvent = z.looseObject({ type: z.literal('updated'), workout: hevyWorkout });
const deletedEvent = z.looseObject({ type: z.literal('deleted'), id: z.string().min(1), deleted_at: z.string().optional() });
export const hevyWorkoutEvent = z.discriminatedUnion('type', [updatedEvent, deletedEvent]);
export type HevyWorkoutEvent = z.infer<typeof hevyWorkoutEvent>;

export const hevyEventsPage = z.looseObject({ page: z.number().int(), page_count: z.number().int().nonnegative(), events: z.array(hevyWorkoutEvent) });
export type HevyEventsPage = z.infer<typeof hevyEventsPage>;

export const hevyExerciseTemplate = z.looseObject({
  id: z.string().min(1),
  title: z.string(),
  type: z.string().optional(),
  primary_muscle_group: z.string().nullable().optional(),
  secondary_muscle_groups: z.array(z.string()).optional(),
  is_custom: z.boolean().optional(),
});
export type HevyExerciseTemplate = z.infer<typeof hevyExerciseTemplate>;

export const hevyTemplatesPage = z.looseObject({
  page: z.number().int(),
  page_count: z.number().int().nonnegative(),
  exercise_templates: z.array(hevyExerciseTemplate),
});

export const hevyUserInfo = z.looseObject({ data: z.looseObject({ id: z.string(), name: z.string().optional(), url: z.string().optional() }) });
export type HevyUser = z.infer<typeof hevyUserInfo>['data'];
