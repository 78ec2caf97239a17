// The record, read-only: workouts (paged, newest first) and each workout with its sets in the
// athlete's units and its record badges; routines with their scheduled dates; goals. Everything
// the athlete or a client wrote is interpolated by `html`, so it is shown as text, never markup.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WorkoutDetail } from '../../contracts/agent-access.ts';
import { canonicalGoalTarget, type Profile, type RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { WORKOUT_DETAILS, WORKOUTS, type WorkoutDetailDoc, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import type { App } from '../app.ts';
import { ApiError } from '../api/errors.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { getSavedRoutine } from '../reads/routines.ts';
import { getCompletedWorkout } from '../reads/workouts.ts';
import type { Indicator } from '../domain/records.ts';
import { todayIn } from '../domain/time.ts';
import { html, scrollTable, type Html } from './html.ts';
import { workoutLine } from './home.ts';
import type { Show } from './layout.ts';
import { keysetPage, positionOf, positionParam, webCaller, type KeysetPage } from './record-reads.ts';
import type { Session } from './sessions.ts';
import { bodyweight, clock, count, dateTime, distance, duration, localDate, shortDate, timeOfDay, trim, weight, type WeightUnit } from './units.ts';

export const WORKOUTS_PER_PAGE = 20;
const ROUTINES_PER_PAGE = 20;
const GOALS_PER_STATUS = 50;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The signed-in athlete, or null after sending the browser to sign in (and back here). */
export async function signedInAthlete(app: App, request: FastifyRequest, reply: FastifyReply): Promise<{ session: Session; athlete: AthleteState } | null> {
  const session = request.session;
  const athlete = session ? await app.athletes.get(session.athlete_id) : null;
  if (!session || !athlete) {
    void reply.redirect(`/sign-in?return_to=${encodeURIComponent(request.url)}`);
    return null;
  }
  return { session, athlete };
}

/** "Newer" and "Older" links of a paged list (other words for a list that is not by date). */
export function pager(path: string, page: KeysetPage<unknown>, what: string, words = { newer: `Newer ${what}`, older: `Older ${what}` }): Html {
  if (!page.newer && !page.older) return html``;
  return html`<nav class="pager" aria-label="${what} pages">${page.newer ? html`<a href="${path}?${positionParam('newer', page.newer)}">← ${words.newer}</a>` : html`<span></span>`}${
    page.older ? html`<a href="${path}?${positionParam('older', page.older)}">${words.older} →</a>` : ''
  }</nav>`;
}

/** Links between the training pages. */
function trainingNav(here: '/workouts' | '/routines' | '/goals'): Html {
  const links = [
    ['/workouts', 'Workouts'],
    ['/routines', 'Routines'],
    ['/goals', 'Goals'],
  ] as const;
  return html`<nav class="subnav" aria-label="Training">${links.map(([href, label]) => html`<a href="${href}"${href === here ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;
}

/** The record badges' words. */
export const RECORD_NAMES: Record<Indicator, string> = {
  weight: 'Heaviest weight',
  reps: 'Most reps',
  set_volume: 'Best set volume',
  estimated_1rm: 'Best est. 1RM',
};

const SET_TYPES: Record<string, string | null> = { normal: null, warmup: 'Warm-up', failure: 'To failure', drop_set: 'Drop set' };
const DIFFICULTY: Record<string, string> = { easier_than_expected: 'easier than expected', as_expected: 'as expected', harder_than_expected: 'harder than expected' };

type DetailSet = WorkoutDetail['exercises'][number]['sets'][number];

/** A workout's exercises as tables: only the columns some set fills. */
function exerciseTables(workout: WorkoutDetail, unit: WeightUnit): Html {
  if (workout.exercises.length === 0) return html`<div class="card"><p>This workout has no exercises.</p></div>`;
  return html`${workout.exercises.map((e) => {
    const has = (f: (s: DetailSet) => unknown) => e.sets.some((s) => f(s) !== null);
    const columns: Array<{ head: string; cell: (s: DetailSet) => string }> = [];
    if (has((s) => s.weight_kg)) columns.push({ head: `Weight`, cell: (s) => (s.weight_kg === null ? '—' : weight(s.weight_kg, unit)) });
    if (has((s) => s.reps)) columns.push({ head: 'Reps', cell: (s) => (s.reps === null ? '—' : String(s.reps)) });
    if (has((s) => s.distance_metres)) columns.push({ head: 'Distance', cell: (s) => (s.distance_metres === null ? '—' : distance(s.distance_metres, unit)) });
    if (has((s) => s.duration_seconds)) columns.push({ head: 'Time', cell: (s) => (s.duration_seconds === null ? '—' : clock(s.duration_seconds)) });
    if (has((s) => s.rpe)) columns.push({ head: 'RPE', cell: (s) => (s.rpe === null ? '—' : trim(s.rpe, 1)) });
    const id = `exercise-${e.exercise_order}`;
    return html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${e.name.value}</h2>
${e.muscle_group || e.superset_id ? html`<p class="meta">${[e.muscle_group, e.superset_id ? 'In a superset' : null].filter(Boolean).join(' · ')}</p>` : ''}
${e.sets.length === 0
  ? html`<p>No sets.</p>`
  : scrollTable(`Sets of ${e.name.value}`, html`<table><caption class="visually-hidden">Sets of ${e.name.value}</caption><thead><tr><th scope="col">Set</th>${columns.map((c) => html`<th scope="col" class="num">${c.head}</th>`)}<th scope="col">Records</th></tr></thead><tbody>
${e.sets.map(
  (s) => html`<tr><th scope="row">${s.set_number}${SET_TYPES[s.set_type] ? html` <span class="meta">${SET_TYPES[s.set_type]}</span>` : ''}</th>${columns.map((c) => html`<td class="num">${c.cell(s)}</td>`)}<td>${s.historical_record_at_completion.indicators.map(
    (i) => html`<span class="badge">${RECORD_NAMES[i]}</span>`,
  )}</td></tr>`,
)}</tbody></table>`)}
</section>`;
  })}`;
}

export function registerRecordPages(web: FastifyInstance, app: App, show: Show): void {
  web.get('/workouts', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const page = await keysetPage<WorkoutSummaryDoc>(
      app.reads,
      WORKOUTS,
      { partition: who.athlete.athlete_id, index: 'by_local_date', keyOf: (w) => [w.local_date, w.ended_at, w.id], limit: WORKOUTS_PER_PAGE },
      positionOf(request.query, 3),
    );
    return show(
      reply,
      'Workouts',
      who.session,
      html`${trainingNav('/workouts')}<h1>Workouts</h1>
<div class="card">${page.docs.length
        ? html`<ul class="plain">${page.docs.map(workoutLine)}</ul>`
        : html`<p>No workouts here yet. <a href="/import">Import your history from Hevy or Strong</a>.</p>`}
${pager('/workouts', page, 'workouts')}</div>`,
      200,
      { wide: true },
    );
  });

  web.get('/workouts/:id', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const { id } = request.params as { id: string };
    const { athlete, session } = who;
    const notFound = () =>
      show(reply, 'Workout not found', session, html`<div class="card"><h1>Workout not found</h1><p>There is no workout at this address in your record. It may have been deleted.</p><a class="button" href="/workouts">Your workouts</a></div>`, 404);
    if (!UUID.test(id)) return notFound();
    let workout: WorkoutDetail;
    try {
      workout = (await getCompletedWorkout(app.reads, webCaller(athlete), id)).workout;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return notFound();
      throw error;
    }
    const [summary, detail] = await Promise.all([
      app.reads.get<WorkoutSummaryDoc>(WORKOUTS, athlete.athlete_id, id),
      app.reads.get<WorkoutDetailDoc>(WORKOUT_DETAILS, athlete.athlete_id, id),
    ]);
    const tz = athlete.profile.timezone;
    const unit = athlete.profile.unit_preference;
    const records = workout.exercises.reduce((n, e) => n + e.sets.filter((s) => s.historical_record_at_completion.indicators.length > 0).length, 0);
    const facts = [
      summary ? localDate(summary.local_date) : null,
      workout.started_at ? `${timeOfDay(workout.started_at, tz)}–${timeOfDay(workout.ended_at, tz)}` : `finished ${timeOfDay(workout.ended_at, tz)}`,
      duration(workout.duration.seconds),
      count(workout.achieved_set_count, 'set'),
      records ? count(records, 'record set') : null,
    ].filter((f): f is string => !!f);
    return show(
      reply,
      workout.title.value,
      session,
      html`${trainingNav('/workouts')}<p><a href="/workouts">← All workouts</a></p>
<h1>${workout.title.value}</h1>
<p class="meta">${facts.join(' · ')}${detail?.source ? ` · imported from ${detail.source.app === 'hevy' ? 'Hevy' : 'Strong'}` : ''}</p>
${detail?.notes ? html`<div class="card"><h2>Notes</h2><p>${detail.notes}</p></div>` : ''}
${workout.feedback ? html`<p>You found it <strong>${DIFFICULTY[workout.feedback.difficulty]}</strong> and chose to <strong>${workout.feedback.next_time_intent === 'keep' ? 'keep it' : 'review it'}</strong> next time.</p>` : ''}
${exerciseTables(workout, unit)}
<p class="hint">Weights in ${unit === 'lbs' ? 'pounds' : 'kilograms'} (change it in <a href="/settings">Settings</a>). A record badge means the set beat every earlier set of that exercise when it was done.</p>`,
      200,
      { wide: true },
    );
  });

  web.get('/routines', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    type RoutineDoc = ItemDoc & RecordItem<'routine'> & { exercise_count: number };
    const page = await keysetPage<RoutineDoc>(
      app.reads,
      'routines',
      { partition: who.athlete.athlete_id, index: 'by_updated', keyOf: (r) => [r.updated_at, r.id], limit: ROUTINES_PER_PAGE },
      positionOf(request.query, 2),
    );
    const today = todayIn(who.athlete.profile.timezone, app.clock.now().getTime());
    return show(
      reply,
      'Routines',
      who.session,
      html`${trainingNav('/routines')}<h1>Routines</h1>
<div class="card">${page.docs.length
        ? html`<ul class="plain">${page.docs.map((r) => {
            const upcoming = [...r.scheduled_dates].filter((d) => d >= today).sort();
            return html`<li><a href="/routines/${r.id}"><strong>${r.title}</strong></a><br><span class="meta">${count(r.exercise_count, 'exercise')}${
              upcoming.length ? ` · next on ${shortDate(upcoming[0]!)}${upcoming.length > 1 ? ` and ${upcoming.length - 1} more ${upcoming.length === 2 ? 'date' : 'dates'}` : ''}` : ' · not scheduled'
            }</span></li>`;
          })}</ul>`
        : html`<p>No saved routines yet. An AI client you connect can suggest one for you to approve.</p>`}
${pager('/routines', page, 'routines')}</div>`,
      200,
      { wide: true },
    );
  });

  web.get('/routines/:id', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const { id } = request.params as { id: string };
    const notFound = () =>
      show(reply, 'Routine not found', who.session, html`<div class="card"><h1>Routine not found</h1><p>There is no routine at this address in your record.</p><a class="button" href="/routines">Your routines</a></div>`, 404);
    if (!UUID.test(id)) return notFound();
    let routine;
    try {
      routine = (await getSavedRoutine(app.reads, webCaller(who.athlete), id)).routine;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return notFound();
      throw error;
    }
    const doc = await app.reads.get<ItemDoc & RecordItem<'routine'>>('routines', who.athlete.athlete_id, id);
    const dates = [...(doc?.scheduled_dates ?? [])].sort();
    const rest = (s: number | null) => (s === null ? '—' : clock(s));
    return show(
      reply,
      routine.title.value,
      who.session,
      html`${trainingNav('/routines')}<p><a href="/routines">← All routines</a></p>
<h1>${routine.title.value}</h1>
<div class="card"><h2>Exercises</h2>${routine.exercises.length
        ? scrollTable('Exercises of the routine', html`<table><thead><tr><th scope="col">Exercise</th><th scope="col" class="num">Sets</th><th scope="col" class="num">Reps</th><th scope="col" class="num">Target RPE</th><th scope="col" class="num">Rest</th></tr></thead><tbody>${routine.exercises.map(
            (e) => html`<tr><th scope="row">${e.name.value}</th><td class="num">${e.sets}</td><td class="num">${e.reps}</td><td class="num">${e.target_rpe === null ? '—' : trim(e.target_rpe, 1)}</td><td class="num">${rest(e.rest_seconds)}</td></tr>`,
          )}</tbody></table>`)
        : html`<p>This routine has no exercises.</p>`}</div>
<div class="card"><h2>Scheduled dates</h2>${dates.length ? html`<ul>${dates.map((d) => html`<li>${localDate(d)}</li>`)}</ul>` : html`<p>Not scheduled on any date.</p>`}</div>`,
      200,
      { wide: true },
    );
  });

  web.get('/goals', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const athleteId = who.athlete.athlete_id;
    type GoalDoc = ItemDoc & RecordItem<'goal'>;
    const statuses = ['active', 'achieved', 'archived'] as const;
    const byStatus = await Promise.all(
      statuses.map((status) => app.reads.page<GoalDoc>('goals', { partition: athleteId, index: 'by_status', prefix: [status], direction: 'desc', limit: GOALS_PER_STATUS })),
    );
    const exerciseIds = [...new Set(byStatus.flat().flatMap((g) => (g.exercise_id ? [g.exercise_id] : [])))];
    const names = new Map((await app.reads.getMany<ItemDoc & RecordItem<'exercise'>>('exercises', athleteId, exerciseIds)).map((e) => [e.id, e.name]));
    const p = who.athlete.profile;
    const section = (title: string, goals: GoalDoc[], empty: string) =>
      html`<section class="card"><h2>${title}</h2>${goals.length ? html`<ul class="plain">${goals.map((g) => html`<li>${goalText(g, names, p)}${
        g.achieved_at ? html`<br><span class="meta">Achieved ${dateTime(g.achieved_at, p.timezone)}</span>` : ''
      }</li>`)}</ul>` : html`<p>${empty}</p>`}</section>`;
    return show(
      reply,
      'Goals',
      who.session,
      html`${trainingNav('/goals')}<h1>Goals</h1>
${section('Active', byStatus[0]!, 'No active goals.')}
${section('Achieved', byStatus[1]!, 'None achieved yet.')}
${byStatus[2]!.length ? section('Archived', byStatus[2]!, '') : ''}`,
      200,
      { wide: true },
    );
  });
}

/** A goal in words, its target in the unit it was set in (a weight also in the athlete's unit). */
function goalText(g: RecordItem<'goal'>, names: Map<string, string>, units: Profile): Html {
  const target = (() => {
    if (g.target_unit === 'kg' || g.target_unit === 'lbs') {
      const kg = canonicalGoalTarget(g).value;
      return g.goal_type === 'target_bodyweight' ? bodyweight(kg, units.bodyweight_unit_preference) : weight(kg, units.unit_preference);
    }
    if (g.target_unit === 'sessions') return count(g.target_value, 'session');
    return `${trim(g.target_value, 1)} ${g.target_unit}`;
  })();
  const exercise = g.exercise_id ? (names.get(g.exercise_id) ?? 'an exercise') : null;
  switch (g.goal_type) {
    case 'target_1rm':
      return html`<strong>One-rep max of ${target}</strong>${exercise ? html` in ${exercise}` : ''}`;
    case 'target_bodyweight':
      return html`<strong>Bodyweight of ${target}</strong>`;
    case 'weekly_session_count':
      return html`<strong>${target} a week</strong>`;
    case 'weekly_volume':
      return html`<strong>Weekly volume of ${target}</strong>${exercise ? html` in ${exercise}` : ''}`;
    case 'daily_calories':
      return html`<strong>${target} a day</strong> (calories)`;
    case 'daily_protein':
      return html`<strong>${target} of protein a day</strong>`;
  }
}
