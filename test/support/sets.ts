// A completed working set of a recorded workout, for tests that build workouts by hand: the
// fields a set must have, each test naming only the ones it is about.
import type { WorkoutSet } from '../../contracts/record.ts';

export function workoutSet(position: number, fields: Partial<WorkoutSet> = {}): WorkoutSet {
  return {
    position,
    set_number: position + 1,
    set_type: 'normal',
    parent_position: null,
    weight_kg: null,
    reps: null,
    rpe: null,
    target_rpe: null,
    duration_seconds: null,
    distance_metres: null,
    incline_percent: null,
    completed: true,
    ...fields,
  };
}
