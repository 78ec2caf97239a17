// Nutrition and body-measurement reads over HTTP against the strict contract.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

async function setup(areas: string[]) {
  const s = await startServer({ clock: fixedClock('2026-06-15T10:00:00.000Z') });
  const athleteId = await registerPro(s.app);
  const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, areas);
  const get = (path: string) => fetch(`${s.base}/v1/agent-access${path}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  return { s, athleteId, get, actor: { type: 'athlete' as const, id: athleteId } };
}

const meal = (eatenAt: string, kcal: number | null, protein: number | null, name = 'Oats') => ({
  id: randomUUID(),
  eaten_at: eatenAt,
  name,
  calories_kcal: kcal,
  protein_g: protein,
  carbohydrate_g: null,
  fat_g: null,
});

test('empty records are valid answers for every nutrition and body read', async () => {
  const { s, get } = await setup(['nutrition', 'body_measurements']);
  try {
    for (const [path, schema] of [
      ['/nutrition/meals', agentAccessResponses.list_meals],
      ['/nutrition/daily', agentAccessResponses.list_daily_nutrition],
      ['/body-measurements', agentAccessResponses.list_body_measurements],
    ] as const) {
      const res = await get(path);
      assert.is(res.status, 200, path);
      const body = schema.parse(await res.json());
      assert.equal(body.data.items, [], path);
      assert.is(body.data.next_cursor, null);
    }
  } finally {
    await s.close();
  }
});

test('meals newest first; daily totals over the meals that recorded each nutrient', async () => {
  const { s, athleteId, get, actor } = await setup(['nutrition']);
  try {
    const breakfast = meal('2026-06-14T07:00:00.000Z', 400, 20, 'Porridge <i>with</i> honey');
    const lunch = meal('2026-06-14T12:00:00.000Z', 650.5, null);
    const late = meal('2026-06-14T23:30:00.000Z', 200, 10); // 00:30 on 15 June in London
    const old = meal('2026-06-10T12:00:00.000Z', 500, 30);
    await s.app.records.change(
      athleteId,
      [breakfast, lunch, late, old].map((item) => ({ op: 'create' as const, kind: 'meal' as const, item })),
      actor,
    );

    const meals = agentAccessResponses.list_meals.parse(await (await get('/nutrition/meals?limit=10')).json()).data;
    assert.equal(
      meals.items.map((m) => [m.id, m.local_date]),
      [
        [late.id, '2026-06-15'],
        [lunch.id, '2026-06-14'],
        [breakfast.id, '2026-06-14'],
        [old.id, '2026-06-10'],
      ],
    );
    assert.equal(meals.items[2]!.name, { value: 'Porridge <i>with</i> honey', handling: 'untrusted_record_text' });

    const daily = agentAccessResponses.list_daily_nutrition.parse(await (await get('/nutrition/daily?from=2026-06-01&to=2026-06-15')).json()).data;
    assert.equal(
      daily.items.map((d) => d.date),
      ['2026-06-15', '2026-06-14', '2026-06-10'],
      'days without meals are not listed',
    );
    const june14 = daily.items[1]!;
    assert.is(june14.meal_count, 2);
    assert.is(june14.calories_kcal.value, 1050.5);
    assert.is(june14.calories_kcal.metadata.sample_count, 2);
    assert.is(june14.protein_g.value, 20);
    assert.is(june14.protein_g.metadata.sample_count, 1, 'lunch did not record protein');
    assert.is(june14.fat_g.value, null, 'no meal recorded fat: unknown, not zero');

    await s.app.records.change(
      athleteId,
      [
        { op: 'delete', kind: 'meal', id: breakfast.id, base_revision: 1 },
        { op: 'update', kind: 'meal', item: { ...lunch, calories_kcal: 600 }, base_revision: 1 },
      ],
      actor,
    );
    const after = agentAccessResponses.list_daily_nutrition.parse(await (await get('/nutrition/daily?from=2026-06-14&to=2026-06-14')).json()).data;
    assert.equal([after.items[0]!.meal_count, after.items[0]!.calories_kcal.value, after.items[0]!.protein_g.value], [1, 600, null]);
  } finally {
    await s.close();
  }
});

test('body measurements newest first, each in its canonical unit; scopes are enforced', async () => {
  const { s, athleteId, get, actor } = await setup(['body_measurements']);
  try {
    const items = [
      { id: randomUUID(), measured_at: '2026-06-01T07:00:00.000Z', metric: 'bodyweight' as const, value: 81.2 },
      { id: randomUUID(), measured_at: '2026-06-08T07:00:00.000Z', metric: 'waist' as const, value: 0.86 },
      { id: randomUUID(), measured_at: '2026-06-12T07:00:00.000Z', metric: 'body_fat' as const, value: 17.5 },
    ];
    await s.app.records.change(
      athleteId,
      items.map((item) => ({ op: 'create' as const, kind: 'body_measurement' as const, item })),
      actor,
    );
    const body = agentAccessResponses.list_body_measurements.parse(await (await get('/body-measurements')).json()).data;
    assert.equal(
      body.items.map((m) => [m.metric, m.value, m.unit]),
      [
        ['body_fat', 17.5, 'percent'],
        ['waist', 0.86, 'metres'],
        ['bodyweight', 81.2, 'kg'],
      ],
    );
    const meals = await get('/nutrition/meals');
    assert.is(meals.status, 403);
    assert.match(meals.headers.get('www-authenticate') ?? '', /scope="nutrition body_measurements"/);
  } finally {
    await s.close();
  }
});

test.run();
