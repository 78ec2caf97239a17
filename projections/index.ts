import { activityProjection } from './activity.ts';
import { athletesProjection } from './athletes.ts';
import { botTokensProjection } from './bot-tokens.ts';
import { connectionsProjection } from './connections.ts';
import { nutritionProjection } from './nutrition.ts';
import { proposalsProjection } from './proposals.ts';
import { recordsProjection } from './records.ts';
import { itemProjections } from './items.ts';
import type { Projection } from './projection.ts';
import { exerciseHistoryProjection, workoutsProjection } from './workouts.ts';

/** Every projection, in the order each event is applied: `athletes` first (see projection.ts). */
export const projections: Projection[] = [athletesProjection, ...itemProjections, workoutsProjection, exerciseHistoryProjection, recordsProjection, activityProjection, nutritionProjection, connectionsProjection, botTokensProjection, proposalsProjection];
