// A workout that uses every field the record keeps of exercises and sets, for the workout page's
// tests: exercise notes (markup and line breaks in them), a superset of two exercises, warm-up,
// drop and failure sets, RPE and target RPE, a set not done, time, distance and incline.
import { randomUUID } from 'node:crypto';
import type { App } from '../../services/app.ts';
import { workoutSet } from './sets.ts';

export const FULL_WORKOUT_NOTES = 'Pause on the chest.\nElbows <b>tucked</b> & "slow"';

export interface FullWorkout {
  workoutId: string;
  supersetId: string;
}

/** Creates the exercises and the workout (ended `endedAt`, 75 minutes long) in the athlete's record. */
export async function seedFullWorkout(app: App, athleteId: string, endedAt: string, exerciseNotes = FULL_WORKOUT_NOTES): Promise<FullWorkout> {
  const ids = { bench: randomUUID(), fly: randomUUID(), run: randomUUID(), curl: randomUUID(), workout: randomUUID(), superset: randomUUID() };
  await app.records.change(
    athleteId,
    [
      { op: 'create', kind: 'exercise', item: { id: ids.bench, name: 'Bench Press', muscle_group: 'chest', tracking_type: 'weight_reps' } },
      { op: 'create', kind: 'exercise', item: { id: ids.fly, name: 'Cable Fly', muscle_group: null, tracking_type: 'weight_reps' } },
      { op: 'create', kind: 'exercise', item: { id: ids.run, name: 'Treadmill', muscle_group: null, tracking_type: 'distance' } },
      { op: 'create', kind: 'exercise', item: { id: ids.curl, name: 'Curl', muscle_group: null, tracking_type: 'weight_reps' } },
      {
        op: 'create',
        kind: 'workout',
        item: {
          id: ids.workout,
          title: 'Upper and a walk',
          started_at: new Date(Date.parse(endedAt) - 75 * 60_000).toISOString(),
          ended_at: endedAt,
          notes: null,
          source: null,
          exercises: [
            {
              exercise_id: ids.bench,
              exercise_order: 0,
              superset_id: ids.superset,
              notes: exerciseNotes,
              sets: [
                workoutSet(0, { set_type: 'warmup', weight_kg: 40, reps: 8 }),
                workoutSet(1, { weight_kg: 80, reps: 5, rpe: 8.5, target_rpe: 8 }),
                workoutSet(2, { set_type: 'drop_set', parent_position: 1, weight_kg: 60, reps: 8, rpe: 9.5 }),
                workoutSet(3, { set_type: 'failure', weight_kg: 70, reps: 6, target_rpe: 10 }),
                workoutSet(4, { weight_kg: 80, reps: 3, completed: false }),
              ],
            },
            { exercise_id: ids.fly, exercise_order: 1, superset_id: ids.superset, notes: null, sets: [workoutSet(0, { weight_kg: 15, reps: 12 })] },
            {
              exercise_id: ids.run,
              exercise_order: 2,
              superset_id: null,
              notes: null,
              sets: [workoutSet(0, { duration_seconds: 900, distance_metres: 1609.344, incline_percent: 7.5 })],
            },
            {
              exercise_id: ids.curl,
              exercise_order: 3,
              superset_id: null,
              notes: null,
              sets: [workoutSet(0, { weight_kg: 20, reps: 10 }), workoutSet(1, { weight_kg: 20, reps: 9 })],
            },
          ],
        },
      },
    ],
    { type: 'athlete', id: athleteId },
  );
  return { workoutId: ids.workout, supersetId: ids.superset };
}
