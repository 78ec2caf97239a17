// Nutrition and body-measurement reads (our design: the spec shows neither). Meals and
// measurements are windowed on their local date, newest first; daily nutrition totals come from
// the nutrition_days projection, one item per local day that has a meal.
import type { KeyObject } from 'node:crypto';
import { BODY_MEASUREMENT_UNITS, type BodyMeasurements, type DailyNutritionSummaries, type ListQuery, type Meals } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { type NUTRIENTS, NUTRITION_DAYS, type NutritionDayDoc } from '../../projections/nutrition.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import { windowedPage } from './lists.ts';
import { recordText } from './text.ts';

export const NUTRITION_VERSION = 'daily-nutrition.v1';

type MealDoc = ItemDoc & RecordItem<'meal'> & { local_date: string };
type MeasurementDoc = ItemDoc & RecordItem<'body_measurement'> & { local_date: string };

export async function listMeals(reads: ReadStore, owner: RecordOwner, query: ListQuery, now: Date, cursorKey: KeyObject): Promise<Meals> {
  const { window, docs, next_cursor } = await windowedPage<MealDoc>(reads, owner, query, now, cursorKey, {
    operation: 'list_meals',
    collection: 'meals',
    index: 'by_local_date',
    keyOf: (m) => [m.local_date, m.eaten_at, m.id],
  });
  return {
    window,
    items: docs.map((m) => ({
      id: m.id,
      eaten_at: m.eaten_at,
      local_date: m.local_date,
      name: recordText(m.name),
      calories_kcal: m.calories_kcal,
      protein_g: m.protein_g,
      carbohydrate_g: m.carbohydrate_g,
      fat_g: m.fat_g,
      updated_at: m.updated_at,
      revision: m.revision,
      provenance: 'self_reported',
    })),
    next_cursor,
  };
}

export async function listDailyNutrition(
  reads: ReadStore,
  owner: RecordOwner,
  query: ListQuery,
  now: Date,
  cursorKey: KeyObject,
): Promise<DailyNutritionSummaries> {
  const { window, docs, next_cursor } = await windowedPage<NutritionDayDoc>(reads, owner, query, now, cursorKey, {
    operation: 'list_daily_nutrition',
    collection: NUTRITION_DAYS,
    index: 'by_id',
    keyOf: (d) => [d.id],
  });
  const computedAt = now.toISOString();
  const total = (d: NutritionDayDoc, n: (typeof NUTRIENTS)[number]) => ({
    value: d.totals[n].count === 0 ? null : d.totals[n].sum,
    metadata: {
      provenance: 'derived' as const,
      calculation_version: NUTRITION_VERSION,
      computed_at: computedAt,
      window: { from: d.id, to: d.id },
      sample_count: d.totals[n].count,
    },
  });
  return {
    window,
    items: docs.map((d) => ({
      date: d.id,
      meal_count: d.meals,
      calories_kcal: total(d, 'calories_kcal'),
      protein_g: total(d, 'protein_g'),
      carbohydrate_g: total(d, 'carbohydrate_g'),
      fat_g: total(d, 'fat_g'),
    })),
    next_cursor,
  };
}

export async function listBodyMeasurements(reads: ReadStore, owner: RecordOwner, query: ListQuery, now: Date, cursorKey: KeyObject): Promise<BodyMeasurements> {
  const { window, docs, next_cursor } = await windowedPage<MeasurementDoc>(reads, owner, query, now, cursorKey, {
    operation: 'list_body_measurements',
    collection: 'body_measurements',
    index: 'by_local_date',
    keyOf: (m) => [m.local_date, m.measured_at, m.id],
  });
  return {
    window,
    items: docs.map((m) => ({
      id: m.id,
      measured_at: m.measured_at,
      metric: m.metric,
      value: m.value,
      unit: BODY_MEASUREMENT_UNITS[m.metric],
      revision: m.revision,
      updated_at: m.updated_at,
      provenance: 'self_reported',
    })),
    next_cursor,
  };
}
