// Daily nutrition totals by local date: how many meals, and for each nutrient the sum over the
// meals that recorded it and how many did. Each meal's contribution is remembered so that an
// edit, a delete or a timezone change moves it.
import type { RecordItem } from '../contracts/record.ts';
import { localDateOf } from '../services/domain/time.ts';
import type { Doc, Documents } from '../services/store/read-store.ts';
import { timezoneOf } from './athletes.ts';
import { athleteOf, BY_ID, forEachDoc, type Projection } from './projection.ts';

export const NUTRITION_DAYS = 'nutrition_days';
const NUTRITION_MEALS = 'nutrition_meals';
export const NUTRIENTS = ['calories_kcal', 'protein_g', 'carbohydrate_g', 'fat_g'] as const;
export type Nutrient = (typeof NUTRIENTS)[number];

/** One local date: its id is the date. */
export interface NutritionDayDoc extends Doc {
  meals: number;
  totals: Record<Nutrient, { sum: number; count: number }>;
}

interface MealContribution extends Doc {
  eaten_at: string;
  local_date: string;
  values: Record<Nutrient, number | null>;
}

const empty = (): NutritionDayDoc['totals'] => ({
  calories_kcal: { sum: 0, count: 0 },
  protein_g: { sum: 0, count: 0 },
  carbohydrate_g: { sum: 0, count: 0 },
  fat_g: { sum: 0, count: 0 },
});

async function add(docs: Documents, athleteId: string, c: MealContribution, sign: 1 | -1): Promise<void> {
  const day = (await docs.get<NutritionDayDoc>(NUTRITION_DAYS, athleteId, c.local_date)) ?? { id: c.local_date, meals: 0, totals: empty() };
  const totals = { ...day.totals };
  for (const n of NUTRIENTS) {
    const v = c.values[n];
    // Rounded to micro-units so that adding and removing leaves no floating-point residue.
    if (v !== null) totals[n] = { sum: Math.round((totals[n].sum + sign * v) * 1e6) / 1e6, count: totals[n].count + sign };
  }
  const meals = day.meals + sign;
  if (meals === 0) await docs.delete(NUTRITION_DAYS, athleteId, day.id);
  else await docs.upsert(NUTRITION_DAYS, athleteId, { id: day.id, meals, totals } satisfies NutritionDayDoc);
}

export const nutritionProjection: Projection = {
  name: 'nutrition_days',
  collections: [
    { name: NUTRITION_DAYS, indexes: [BY_ID] },
    { name: NUTRITION_MEALS, indexes: [BY_ID] },
  ],
  handles: (type) => type.startsWith('meal.') || type === 'athlete.profile_updated',
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const tz = await timezoneOf(docs, athleteId);
    if (event.type === 'athlete.profile_updated') {
      await forEachDoc<MealContribution>(docs, NUTRITION_MEALS, athleteId, BY_ID, async (c) => {
        const local = localDateOf(c.eaten_at, tz);
        if (local === c.local_date) return;
        await add(docs, athleteId, c, -1);
        await add(docs, athleteId, { ...c, local_date: local }, 1);
        await docs.upsert(NUTRITION_MEALS, athleteId, { ...c, local_date: local });
      });
      return;
    }
    const data = event.data as { item?: RecordItem<'meal'>; id?: string };
    const mealId = data.item?.id ?? data.id!;
    const previous = await docs.get<MealContribution>(NUTRITION_MEALS, athleteId, mealId);
    if (previous) await add(docs, athleteId, previous, -1);
    if (!data.item) {
      await docs.delete(NUTRITION_MEALS, athleteId, mealId);
      return;
    }
    const m = data.item;
    const next: MealContribution = {
      id: mealId,
      eaten_at: m.eaten_at,
      local_date: localDateOf(m.eaten_at, tz),
      values: { calories_kcal: m.calories_kcal, protein_g: m.protein_g, carbohydrate_g: m.carbohydrate_g, fat_g: m.fat_g },
    };
    await add(docs, athleteId, next, 1);
    await docs.upsert(NUTRITION_MEALS, athleteId, next);
  },
};
