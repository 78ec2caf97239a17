// Progress: workouts a week over the last year, bodyweight over time, and for each exercise its
// best estimated one-rep max and top set session by session, with the records marked. Every
// figure comes from a read model Agent Access reads too (activity weeks, body measurements,
// record indicators, exercise history), a bounded number of documents per page: never a scan of
// the history.
import type { FastifyInstance } from 'fastify';
import type { RecordItem } from '../../contracts/record.ts';
import { ACTIVITY_WEEKS, type ActivityWeekDoc } from '../../projections/activity.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import { BY_EXERCISE, RECORD_INDICATORS, type RecordEntryDoc } from '../../projections/record-entries.ts';
import type { Services } from '../api/services.ts';
import { sessionProgress, type SessionProgress } from '../domain/progress.ts';
import { addDays, todayIn, weekStart } from '../domain/time.ts';
import { lineChart, weekBarChart, type Point } from './charts.ts';
import { html, scrollTable, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { pager, RECORD_NAMES, signedInAthlete, UUID } from './record-pages.ts';
import { keysetPage, positionOf } from './record-reads.ts';
import { bodyweight, bodyweightValue, count, shortDate, weight, weightUnitName, weightValue, type BodyweightUnit, type WeightUnit } from '../words/units.ts';

/** This week and the 52 before it. */
export const WEEKS_CHARTED = 53;
/** The latest bodyweights charted: a year of daily weighing. */
export const BODYWEIGHTS_CHARTED = 366;
/** The latest sessions of an exercise charted: years of training it twice a week. */
export const SESSIONS_CHARTED = 250;
export const EXERCISES_PER_PAGE = 20;

type ExerciseDoc = ItemDoc & RecordItem<'exercise'>;
type MeasurementDoc = ItemDoc & RecordItem<'body_measurement'> & { local_date: string };

const figures = (summary: string, table: Html) => html`<details class="figures"><summary>${summary}</summary>${table}</details>`;

export function registerProgress(web: FastifyInstance, app: Services, show: Show): void {
  web.get('/progress', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const { athlete, session } = who;
    const athleteId = athlete.athlete_id;
    const thisWeek = weekStart(todayIn(athlete.profile.timezone, app.clock.now().getTime()));
    const firstWeek = addDays(thisWeek, -7 * (WEEKS_CHARTED - 1));
    const [weeks, weights, exercises] = await Promise.all([
      app.reads.page<ActivityWeekDoc>(ACTIVITY_WEEKS, {
        partition: athleteId,
        index: 'by_id',
        direction: 'asc',
        range: { gte: firstWeek, lte: thisWeek },
        limit: WEEKS_CHARTED,
      }),
      app.reads.page<MeasurementDoc>(ITEM_COLLECTIONS.body_measurement, {
        partition: athleteId,
        index: 'by_metric',
        prefix: ['bodyweight'],
        direction: 'desc',
        limit: BODYWEIGHTS_CHARTED,
      }),
      keysetPage<ExerciseDoc>(
        app.reads,
        'exercises',
        { partition: athleteId, index: 'by_name', keyOf: (e) => [e.name, e.id], limit: EXERCISES_PER_PAGE, order: 'asc' },
        positionOf(request.query, 2),
      ),
    ]);
    const byWeek = new Map(weeks.map((w) => [w.id, w.workouts]));
    const bars: Point[] = Array.from({ length: WEEKS_CHARTED }, (_, i) => addDays(firstWeek, 7 * i)).map((monday) => ({
      date: monday,
      value: byWeek.get(monday) ?? 0,
    }));
    return show(
      reply,
      'Progress',
      session,
      html`<h1>Progress</h1>
${weeklyCard(bars)}
${bodyweightCard([...weights].reverse(), athlete.profile.bodyweight_unit_preference)}
<section class="card" aria-labelledby="exercises-title"><h2 id="exercises-title">Exercises</h2>
${
  exercises.docs.length
    ? html`<p>Choose an exercise to see its best estimated one-rep max and heaviest set over time, with your records marked.</p>
<ul class="columns">${exercises.docs.map((e) => html`<li><a href="/progress/exercises/${e.id}">${e.name}</a>${e.muscle_group ? html` <span class="meta">${e.muscle_group}</span>` : ''}</li>`)}</ul>
${pager('/progress', exercises, 'exercises', { newer: 'Previous exercises', older: 'More exercises' })}`
    : html`<p>No exercises in your record yet. <a href="/import">Import your history from Hevy or Strong</a> and each exercise you trained gets its own chart here.</p>`
}
</section>`,
      200,
      { wide: true },
    );
  });

  web.get('/progress/exercises/:id', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const { athlete, session } = who;
    const { id } = request.params as { id: string };
    const notFound = () =>
      show(
        reply,
        'Exercise not found',
        session,
        html`<div class="card"><h1>Exercise not found</h1><p>There is no exercise at this address in your record.</p><a class="button" href="/progress">Your progress</a></div>`,
        404,
      );
    if (!UUID.test(id)) return notFound();
    const athleteId = athlete.athlete_id;
    const latest = { partition: athleteId, prefix: [id], direction: 'desc' as const, limit: SESSIONS_CHARTED + 1 };
    const [exercise, entries] = await Promise.all([
      app.reads.get<ExerciseDoc>(ITEM_COLLECTIONS.exercise, athleteId, id),
      app.reads.page<RecordEntryDoc>(RECORD_INDICATORS, { ...latest, index: BY_EXERCISE }),
    ]);
    if (!exercise) return notFound();
    const sessions = entries
      .slice(0, SESSIONS_CHARTED)
      .map((e) => sessionProgress({ workout_id: e.workout_id, local_date: e.local_date, sets: e.sets, labels: Object.values(e.labels) }))
      .reverse();
    return show(
      reply,
      `${exercise.name}: progress`,
      session,
      html`<p><a href="/progress">← Progress</a></p>
<h1>${exercise.name}</h1>
<p class="meta">${[exercise.muscle_group, sessions.length ? `${count(sessions.length, 'session')} from ${shortDate(sessions[0]!.local_date)} to ${shortDate(sessions[sessions.length - 1]!.local_date)}` : null].filter(Boolean).join(' · ')}</p>
${entries.length > SESSIONS_CHARTED ? html`<p class="hint">Your latest ${SESSIONS_CHARTED} sessions of this exercise are shown.</p>` : ''}
${exerciseCard(exercise.name, sessions, athlete.profile.unit_preference)}`,
      200,
      { wide: true },
    );
  });
}

function weeklyCard(bars: Point[]): Html {
  const total = bars.reduce((n, b) => n + b.value, 0);
  const active = bars.filter((b) => b.value > 0).length;
  const most = Math.max(...bars.map((b) => b.value));
  const from = bars[0]!.date;
  return html`<section class="card" aria-labelledby="weekly-title"><h2 id="weekly-title">Workouts a week</h2>
${
  total === 0
    ? html`<p>No workouts in the last year yet. Once you have trained, or <a href="/import">imported your history</a>, each week gets a bar here.</p>`
    : html`<p class="meta">The last ${WEEKS_CHARTED} weeks, Monday to Sunday: ${count(total, 'workout')} in ${count(active, 'active week')}.</p>
${weekBarChart(
  {
    id: 'weekly',
    title: 'Workouts each week over the last year',
    description: `Weeks from ${shortDate(from)} to this week: ${count(total, 'workout')}, ${count(active, 'week')} with at least one; the most in one week was ${most}.`,
  },
  bars,
)}
${figures(
  'Workouts each week as a table',
  scrollTable(
    'Workouts each week',
    html`<table><thead><tr><th scope="col">Week of</th><th scope="col" class="num">Workouts</th></tr></thead><tbody>${[...bars]
      .reverse()
      .map((b) => html`<tr><th scope="row">${shortDate(b.date)}</th><td class="num">${b.value}</td></tr>`)}</tbody></table>`,
  ),
)}`
}
</section>`;
}

function bodyweightCard(measurements: MeasurementDoc[], unit: BodyweightUnit): Html {
  if (measurements.length === 0) {
    return html`<section class="card" aria-labelledby="bodyweight-title"><h2 id="bodyweight-title">Bodyweight</h2><p>No bodyweight in your record yet. When you log it (an AI client you connect can suggest entries for you to approve), it is charted here.</p></section>`;
  }
  const points = measurements.map((m) => ({ date: m.local_date, value: bodyweightValue(m.value, unit).value }));
  const chartUnit = bodyweightValue(measurements[0]!.value, unit).unit;
  const first = measurements[0]!;
  const last = measurements[measurements.length - 1]!;
  return html`<section class="card" aria-labelledby="bodyweight-title"><h2 id="bodyweight-title">Bodyweight</h2>
<p class="meta">${count(measurements.length, 'measurement')} from ${shortDate(first.local_date)} to ${shortDate(last.local_date)}${measurements.length === BODYWEIGHTS_CHARTED ? ' (your latest)' : ''}, in ${chartUnit === 'kg' ? 'kilograms' : 'pounds'}.</p>
${lineChart(
  {
    id: 'bodyweight',
    title: `Bodyweight over time, in ${chartUnit}`,
    description: `${count(measurements.length, 'measurement')} from ${shortDate(first.local_date)} to ${shortDate(last.local_date)}: from ${bodyweight(first.value, unit)} to ${bodyweight(last.value, unit)}.`,
  },
  [{ points, look: 'first' }],
)}
${figures(
  'Bodyweight as a table',
  scrollTable(
    'Bodyweight measurements',
    html`<table><thead><tr><th scope="col">Date</th><th scope="col" class="num">Bodyweight</th></tr></thead><tbody>${[...measurements]
      .reverse()
      .map((m) => html`<tr><th scope="row">${shortDate(m.local_date)}</th><td class="num">${bodyweight(m.value, unit)}</td></tr>`)}</tbody></table>`,
  ),
)}
</section>`;
}

function exerciseCard(name: string, sessions: SessionProgress[], unit: WeightUnit): Html {
  if (sessions.length === 0) {
    return html`<div class="card"><p>No sessions of this exercise in your record yet. Once a workout has it, its best sets are charted here.</p></div>`;
  }
  const weighted = sessions.some((s) => s.top_set !== null);
  const withReps = sessions.some((s) => s.most_reps !== null);
  const u = weightUnitName(unit);
  const records = sessions.filter((s) => s.records.length > 0).length;
  const chart = weighted
    ? html`${lineChart(
        {
          id: 'exercise',
          title: `${name}: best estimated one-rep max and heaviest set of each session, in ${u}`,
          description: describe(
            sessions,
            (s) => s.best_e1rm_kg,
            (kg) => weight(kg, unit),
            'best estimated one-rep max',
            records,
          ),
        },
        [
          {
            look: 'first',
            points: sessions.flatMap((s) =>
              s.best_e1rm_kg === null ? [] : [{ date: s.local_date, value: weightValue(s.best_e1rm_kg, unit), marked: s.records.includes('estimated_1rm') }],
            ),
          },
          {
            look: 'second',
            points: sessions.flatMap((s) =>
              s.top_set === null ? [] : [{ date: s.local_date, value: weightValue(s.top_set.weight_kg, unit), marked: s.records.includes('weight') }],
            ),
          },
        ],
      )}
<ul class="legend"><li><span class="key"></span>Best estimated one-rep max</li><li><span class="key second"></span>Heaviest set</li><li><span class="key record"></span>New record</li></ul>
<p class="hint">The estimated one-rep max is the session's best set by Epley's formula, weight × (1 + reps ÷ 30). Warm-ups and sets not completed are left out, as for record badges.</p>`
    : withReps
      ? html`${lineChart(
          {
            id: 'exercise',
            title: `${name}: most reps in a set, each session`,
            description: describe(
              sessions,
              (s) => s.most_reps,
              (n) => count(n, 'rep'),
              'most reps in a set',
              records,
            ),
          },
          [
            {
              look: 'first',
              points: sessions.flatMap((s) => (s.most_reps === null ? [] : [{ date: s.local_date, value: s.most_reps, marked: s.records.includes('reps') }])),
            },
          ],
        )}
<ul class="legend"><li><span class="key"></span>Most reps in a set</li><li><span class="key record"></span>New record</li></ul>`
      : html`<p>This exercise is done for time or distance, which the charts do not draw yet: each session's sets are on its workout's page, linked below.</p>`;
  return html`<section class="card" aria-labelledby="chart-title"><h2 id="chart-title">${weighted ? 'Best estimated one-rep max and heaviest set' : withReps ? 'Most reps in a set' : 'Sessions'}</h2>
${chart}
${figures(
  `Each session as a table (${count(records, 'session')} with a record)`,
  scrollTable(
    `Sessions of ${name}`,
    html`<table><thead><tr><th scope="col">Date</th><th scope="col" class="num">Heaviest set</th><th scope="col" class="num">Best est. 1RM</th><th scope="col">Records</th></tr></thead><tbody>${[
      ...sessions,
    ]
      .reverse()
      .map(
        (s) =>
          html`<tr><th scope="row"><a href="/workouts/${s.workout_id}">${shortDate(s.local_date)}</a></th><td class="num">${s.top_set ? `${weight(s.top_set.weight_kg, unit)}${s.top_set.reps !== null ? ` × ${s.top_set.reps}` : ''}` : s.most_reps !== null ? count(s.most_reps, 'rep') : '—'}</td><td class="num">${
            s.best_e1rm_kg === null ? '—' : weight(s.best_e1rm_kg, unit)
          }</td><td>${s.records.map((r) => html`<span class="badge">${RECORD_NAMES[r]}</span>`)}</td></tr>`,
      )}</tbody></table>`,
  ),
)}
</section>`;
}

/** A chart's description: its span, where the figure started and ended, its best, and the records. */
function describe(
  sessions: SessionProgress[],
  value: (s: SessionProgress) => number | null,
  show: (v: number) => string,
  what: string,
  records: number,
): string {
  const valued = sessions.filter((s) => value(s) !== null);
  const first = valued[0];
  const last = valued[valued.length - 1];
  if (!first || !last) return `${count(sessions.length, 'session')}.`;
  const best = valued.reduce((b, s) => (value(s)! > value(b)! ? s : b));
  return `${count(sessions.length, 'session')} from ${shortDate(sessions[0]!.local_date)} to ${shortDate(sessions[sessions.length - 1]!.local_date)}: the ${what} went from ${show(value(first)!)} to ${show(value(last)!)}, at best ${show(value(best)!)} on ${shortDate(best.local_date)}; ${count(records, 'session')} set a record.`;
}
