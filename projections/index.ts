import { activityProjection } from './activity.ts';
import { athletesProjection } from './athletes.ts';
import { botTokensProjection } from './bot-tokens.ts';
import { connectionsProjection } from './connections.ts';
import { hevyConnectionsProjection } from './hevy-connections.ts';
import { nutritionProjection } from './nutrition.ts';
import { proposalsProjection } from './proposals.ts';
import { recordsProjection } from './record-entries.ts';
import { itemProjections } from './items.ts';
import type { Projection } from './projection.ts';
import type { Retired } from './runner.ts';
import { workoutsProjection } from './workouts.ts';

/** Every projection, in the order each event is applied: `athletes` first (see projection.ts). */
export const projections: Projection[] = [
  athletesProjection,
  ...itemProjections,
  workoutsProjection,
  recordsProjection,
  activityProjection,
  nutritionProjection,
  connectionsProjection,
  botTokensProjection,
  proposalsProjection,
  hevyConnectionsProjection,
];

/** exercise_history (and its workouts' creation times): each exercise's history is the record projection's entries now. */
export const retired: Retired = { projections: ['exercise_history'], collections: ['exercise_history', 'exercise_history_workouts'] };
