// Recovery check-ins, meals with their daily totals, and body measurements: read-only, newest
// first, paged through the whole history. Daily totals come from the nutrition_days read model
// that Agent Access's list_daily_nutrition reads.
import { addButton, changeLink, editPath, lastChangeOn } from './record-links.ts';
import type { FastifyInstance } from 'fastify';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import { NUTRITION_DAYS, type NutritionDayDoc } from '../../projections/nutrition.ts';
import type { Services } from '../api/services.ts';
import { html, scrollTable, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { pager, signedInAthlete } from './record-pages.ts';
import { keysetPage, positionOf } from './record-reads.ts';
import { bodyweight, count, length, localDate, shortDate, timeOfDay, trim } from '../words/units.ts';
import type { Profile } from '../../contracts/record.ts';
import { BODY_METRICS } from '../words/record-fields.ts';

const CHECKINS_PER_PAGE = 30;
const NUTRITION_DAYS_PER_PAGE = 7;
/** Meals read for one page of days; a page of days with more is shown with a note. */
const MEALS_PER_PAGE = 200;
const MEASUREMENTS_PER_PAGE = 40;

type CheckinDoc = ItemDoc & RecordItem<'checkin'>;
type MealDoc = ItemDoc & RecordItem<'meal'> & { local_date: string };
type MeasurementDoc = ItemDoc & RecordItem<'body_measurement'> & { local_date: string };

function recoveryNav(here: '/recovery' | '/nutrition'): Html {
  const links = [
    ['/recovery', 'Recovery check-ins'],
    ['/nutrition', 'Meals and daily totals'],
  ] as const;
  return html`<nav class="subnav" aria-label="Recovery and nutrition">${links.map(([href, label]) => html`<a href="${href}"${href === here ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;
}

/** A measurement's value in the athlete's units. */
export function measurementValue(m: Pick<RecordItem<'body_measurement'>, 'metric' | 'value'>, p: Profile): string {
  if (m.metric === 'bodyweight') return bodyweight(m.value, p.bodyweight_unit_preference);
  if (m.metric === 'body_fat') return `${trim(m.value, 1)} %`;
  return length(m.value, p.height_unit_preference, m.metric === 'height');
}

const scale = (v: number | null) => (v === null ? '—' : `${v} / 5`);
const grams = (v: number | null) => (v === null ? '—' : `${trim(v, 1)} g`);
const kcal = (v: number | null) => (v === null ? '—' : `${Math.round(v).toLocaleString('en-GB')} kcal`);

export function registerRecoveryBodyPages(web: FastifyInstance, app: Services, show: Show): void {
  web.get('/recovery', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const page = await keysetPage<CheckinDoc>(
      app.reads,
      'checkins',
      { partition: who.athlete.athlete_id, index: 'by_date', keyOf: (c) => [c.date, c.id], limit: CHECKINS_PER_PAGE },
      positionOf(request.query, 2),
    );
    return show(
      reply,
      'Recovery check-ins',
      who.session,
      html`${recoveryNav('/recovery')}<h1>Recovery check-ins</h1>
<p>${addButton('recovery_checkin', 'Add a check-in')}</p>
${await lastChangeOn(app, who.athlete, ['recovery_checkin'])}
<div class="card"><p class="hint">Each is scored 1 to 5, higher is better: for soreness, 5 means no soreness. Choose a day to change or remove its check-in.</p>
${
  page.docs.length
    ? scrollTable(
        'Recovery check-ins',
        html`<table><thead><tr><th scope="col">Date</th><th scope="col" class="num">Sleep</th><th scope="col" class="num">Energy</th><th scope="col" class="num">Soreness</th><th scope="col" class="num">Stress</th></tr></thead><tbody>${page.docs.map(
          (c) =>
            html`<tr><th scope="row"><a href="${editPath('recovery_checkin', c.id)}"><span class="visually-hidden">Change the check-in of </span>${localDate(c.date)}</a></th><td class="num">${scale(c.sleep_quality)}</td><td class="num">${scale(c.energy)}</td><td class="num">${scale(c.soreness)}</td><td class="num">${scale(c.stress)}</td></tr>`,
        )}</tbody></table>`,
      )
    : html`<p>No check-ins yet.</p>`
}
${pager('/recovery', page, 'check-ins')}</div>`,
      200,
      { wide: true },
    );
  });

  web.get('/nutrition', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const athleteId = who.athlete.athlete_id;
    const tz = who.athlete.profile.timezone;
    const days = await keysetPage<NutritionDayDoc>(
      app.reads,
      NUTRITION_DAYS,
      { partition: athleteId, index: 'by_id', keyOf: (d) => [d.id], limit: NUTRITION_DAYS_PER_PAGE },
      positionOf(request.query, 1),
    );
    const newest = days.docs[0]?.id;
    const oldest = days.docs[days.docs.length - 1]?.id;
    const meals =
      newest && oldest
        ? await app.reads.page<MealDoc>(ITEM_COLLECTIONS.meal, {
            partition: athleteId,
            index: 'by_local_date',
            direction: 'asc',
            range: { gte: oldest, lte: newest },
            limit: MEALS_PER_PAGE + 1,
          })
        : [];
    const byDay = new Map<string, MealDoc[]>();
    for (const m of meals.slice(0, MEALS_PER_PAGE)) byDay.set(m.local_date, [...(byDay.get(m.local_date) ?? []), m]);
    const total = (d: NutritionDayDoc, n: keyof NutritionDayDoc['totals'], fmt: (v: number | null) => string) => {
      const t = d.totals[n];
      if (t.count === 0) return '—';
      return t.count < d.meals ? `${fmt(t.sum)} (${t.count} of ${d.meals} meals)` : fmt(t.sum);
    };
    return show(
      reply,
      'Meals and daily totals',
      who.session,
      html`${recoveryNav('/nutrition')}<h1>Meals and daily totals</h1>
<p>${addButton('meal', 'Add a meal')}</p>
${await lastChangeOn(app, who.athlete, ['meal'])}
${days.docs.length ? '' : html`<div class="card"><p>No meals yet.</p></div>`}
${days.docs.map(
  (d) => html`<section class="card" aria-labelledby="day-${d.id}"><h2 id="day-${d.id}">${localDate(d.id)}</h2>
<p><strong>${total(d, 'calories_kcal', kcal)}</strong> · protein ${total(d, 'protein_g', grams)} · carbohydrate ${total(d, 'carbohydrate_g', grams)} · fat ${total(d, 'fat_g', grams)} <span class="meta">from ${count(d.meals, 'meal')}</span></p>
${scrollTable(
  `Meals on ${shortDate(d.id)}`,
  html`<table class="stack"><caption class="visually-hidden">Meals on ${shortDate(d.id)}</caption><thead><tr><th scope="col">Time</th><th scope="col">Meal</th><th scope="col" class="num">Energy</th><th scope="col" class="num">Protein</th><th scope="col" class="num">Carbohydrate</th><th scope="col" class="num">Fat</th><th scope="col"><span class="visually-hidden">Change</span></th></tr></thead><tbody>${(
    byDay.get(d.id) ?? []
  ).map(
    (m) =>
      html`<tr><td>${timeOfDay(m.eaten_at, tz)}</td><td class="lead">${m.name}</td><td class="num" data-label="Energy">${kcal(m.calories_kcal)}</td><td class="num" data-label="Protein">${grams(m.protein_g)}</td><td class="num" data-label="Carbohydrate">${grams(m.carbohydrate_g)}</td><td class="num" data-label="Fat">${grams(m.fat_g)}</td><td>${changeLink('meal', m.id, `the meal “${m.name}” at ${timeOfDay(m.eaten_at, tz)}`)}</td></tr>`,
  )}</tbody></table>`,
)}</section>`,
)}
${meals.length > MEALS_PER_PAGE ? html`<p class="hint">Only the first ${MEALS_PER_PAGE} meals of these days are listed; the totals count them all.</p>` : ''}
${pager('/nutrition', days, 'days')}`,
      200,
      { wide: true },
    );
  });

  web.get('/body', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const p = who.athlete.profile;
    const page = await keysetPage<MeasurementDoc>(
      app.reads,
      'body_measurements',
      { partition: who.athlete.athlete_id, index: 'by_local_date', keyOf: (m) => [m.local_date, m.measured_at, m.id], limit: MEASUREMENTS_PER_PAGE },
      positionOf(request.query, 3),
    );
    return show(
      reply,
      'Body measurements',
      who.session,
      html`<h1>Body measurements</h1>
<p>${addButton('body_measurement', 'Add a measurement')}</p>
${await lastChangeOn(app, who.athlete, ['body_measurement'])}
<div class="card">${
        page.docs.length
          ? scrollTable(
              'Body measurements',
              html`<table><thead><tr><th scope="col">Date</th><th scope="col">Time</th><th scope="col">Measurement</th><th scope="col" class="num">Value</th></tr></thead><tbody>${page.docs.map(
                (m) =>
                  html`<tr><td class="nowrap">${shortDate(m.local_date)}</td><td>${timeOfDay(m.measured_at, p.timezone)}</td><th scope="row"><a href="${editPath('body_measurement', m.id)}"><span class="visually-hidden">Change the </span>${BODY_METRICS[m.metric]}<span class="visually-hidden"> of ${shortDate(m.local_date)}</span></a></th><td class="num">${measurementValue(m, p)}</td></tr>`,
              )}</tbody></table>`,
            )
          : html`<p>No body measurements yet.</p>`
      }
${pager('/body', page, 'measurements')}
<p class="hint">Shown in your units (change them in <a href="/settings">Settings</a>). Choose a measurement to change or remove it.</p></div>`,
      200,
      { wide: true },
    );
  });
}
