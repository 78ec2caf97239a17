// The record, read-only: workouts (paged, newest first) and each workout with every field the
// record keeps of its exercises and sets (notes, supersets, set types, RPE and target RPE,
// incline, sets not done) in the athlete's units, and its record badges; routines with their
// scheduled dates; goals. Everything
// the athlete or a client wrote is interpolated by `html`, so it is shown as text, never markup.
import { addButton, changeLink, editPath, lastChangeOn } from './record-links.ts';
import { recordSubject } from '../words/changes.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WorkoutDetail } from '../../contracts/agent-access.ts';
import { canonicalGoalTarget, type Profile, type RecordItem, type WorkoutSet } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import { WORKOUT_DETAILS, WORKOUTS, type WorkoutDetailDoc, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { APP_NAMES } from '../import/types.ts';
import { getSavedRoutine } from '../reads/routines.ts';
import { getCompletedWorkout } from '../reads/workouts.ts';
import { RECORD_FIELDS, supersetLetter } from '../words/record-fields.ts';
import type { Indicator } from '../domain/record-indicators.ts';
import { todayIn } from '../domain/time.ts';
import { html, scrollTable, type Html } from './html.ts';
import { workoutLine } from './home.ts';
import type { Show } from './layout.ts';
import { ownerOf } from '../reads/owner.ts';
import { keysetPage, positionOf, positionParam, type KeysetPage } from './record-reads.ts';
import type { Session } from '../identity/sessions.ts';
import { bodyweight, clock, count, dateTime, distance, duration, localDate, shortDate, timeOfDay, trim, weight, type WeightUnit } from '../words/units.ts';

export const WORKOUTS_PER_PAGE = 20;
const ROUTINES_PER_PAGE = 20;
const GOALS_PER_STATUS = 50;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The signed-in athlete, or null after sending the browser to sign in (and back here). */
export async function signedInAthlete(
  app: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ session: Session; athlete: AthleteState } | null> {
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
export function trainingNav(here: '/workouts' | '/routines' | '/goals' | '/preferences'): Html {
  const links = [
    ['/workouts', 'Workouts'],
    ['/routines', 'Routines'],
    ['/goals', 'Goals'],
    ['/preferences', 'Preferences'],
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

const DIFFICULTY: Record<string, string> = {
  easier_than_expected: 'easier than expected',
  as_expected: 'as expected',
  harder_than_expected: 'harder than expected',
};

/** A set's and an exercise's fields as the words layer labels them (the review's set tables use the same). */
const SET_FIELDS = RECORD_FIELDS.completed_workout.exercises.fields.sets.fields;
const EXERCISE_FIELDS = RECORD_FIELDS.completed_workout.exercises.fields;
/** A set's type in words (the words layer's too); a normal set says nothing. */
const SET_TYPE_WORDS: Record<WorkoutSet['set_type'], string> = { normal: 'Normal', warmup: 'Warm-up', failure: 'To failure', drop_set: 'Drop set' };

/** More value columns than this and a set table turns into one block per set on a phone (table.stack), instead of hiding columns. */
const COLUMNS_BEFORE_STACKING = 3;

type DetailExercise = WorkoutDetail['exercises'][number];
type DetailSet = DetailExercise['sets'][number];
/** A set as the page shows it: the Agent Access set, and whether it was done (kept by the record, not on the wire). */
type ShownSet = DetailSet & { completed: boolean };

interface Column {
  head: string;
  cell: (s: ShownSet) => string;
}

/** "Warm-up", "To failure", "Drop set from set 2"; nothing for a normal set. */
function setTypeWords(s: DetailSet, sets: readonly DetailSet[]): string | null {
  if (s.set_type === 'normal') return null;
  const words = SET_TYPE_WORDS[s.set_type];
  if (s.set_type !== 'drop_set' || s.parent_position === null) return words;
  const parent = sets.find((p) => p.position === s.parent_position);
  return parent ? `${words} from set ${parent.set_number}` : words;
}

/** The columns some set of the exercise fills, in the athlete's units; Done only when a set was not done. */
function columnsOf(sets: readonly ShownSet[], unit: WeightUnit): Column[] {
  const columns: Column[] = [];
  const add = <T>(value: (s: ShownSet) => T | null, head: string, shown: (v: T) => string) => {
    if (sets.some((s) => value(s) !== null))
      columns.push({
        head,
        cell: (s) => {
          const v = value(s);
          return v === null ? '—' : shown(v);
        },
      });
  };
  add(
    (s) => s.weight_kg,
    SET_FIELDS.weight_kg.label,
    (kg) => weight(kg, unit),
  );
  add((s) => s.reps, SET_FIELDS.reps.label, String);
  add(
    (s) => s.distance_metres,
    SET_FIELDS.distance_metres.label,
    (m) => distance(m, unit),
  );
  add((s) => s.duration_seconds, SET_FIELDS.duration_seconds.label, clock);
  add(
    (s) => s.incline_percent,
    SET_FIELDS.incline_percent.label,
    (p) => `${trim(p, 1)} %`,
  );
  add(
    (s) => s.rpe,
    SET_FIELDS.rpe.label,
    (v) => trim(v, 1),
  );
  add(
    (s) => s.target_rpe,
    SET_FIELDS.target_rpe.label,
    (v) => trim(v, 1),
  );
  if (sets.some((s) => !s.completed)) columns.push({ head: SET_FIELDS.completed.label, cell: (s) => (s.completed ? 'Yes' : 'No') });
  return columns;
}

/** Supersets lettered by the order of their first exercise, as the review names them: "Superset A". */
function supersetNames(workout: WorkoutDetail): Map<string, { name: string; exercises: DetailExercise[] }> {
  const names = new Map<string, { name: string; exercises: DetailExercise[] }>();
  for (const e of workout.exercises) {
    if (e.superset_id === null) continue;
    const known = names.get(e.superset_id) ?? { name: `Superset ${supersetLetter(names.size)}`, exercises: [] };
    known.exercises.push(e);
    names.set(e.superset_id, known);
  }
  return names;
}

/**
 * A workout's exercises: each with its muscle group, superset and notes, and its sets as a table of
 * the columns some set fills (a set's type and what a drop set drops from beside its number).
 * Per-exercise notes and whether each set was done are the record's (`detail`): the wire shape
 * has neither.
 */
function exerciseTables(workout: WorkoutDetail, detail: WorkoutDetailDoc | null, unit: WeightUnit): Html {
  if (workout.exercises.length === 0) return html`<div class="card"><p>This workout has no exercises.</p></div>`;
  const supersets = supersetNames(workout);
  return html`${workout.exercises.map((e) => {
    const stored = detail?.exercises.find((x) => x.exercise_order === e.exercise_order) ?? null;
    const sets: ShownSet[] = e.sets.map((s) => ({ ...s, completed: stored?.sets.find((x) => x.position === s.position)?.completed ?? true }));
    const columns = columnsOf(sets, unit);
    const stack = columns.length > COLUMNS_BEFORE_STACKING;
    const superset = e.superset_id ? supersets.get(e.superset_id) : undefined;
    const others = superset ? superset.exercises.filter((x) => x !== e).map((x) => x.name.value) : [];
    const facts: Array<[string, string]> = [];
    if (e.muscle_group) facts.push(['Muscle group', e.muscle_group]);
    if (superset) facts.push([EXERCISE_FIELDS.superset_id.label, others.length ? `${superset.name}, done with ${others.join(', ')}` : superset.name]);
    const id = `exercise-${e.exercise_order}`;
    return html`<section class="card exercise" aria-labelledby="${id}"><h2 id="${id}">${e.name.value}</h2>
${facts.length ? html`<dl class="fields">${facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>` : ''}
${stored?.notes ? html`<div class="exercise-notes"><h3>${EXERCISE_FIELDS.notes.label}</h3><p class="notes">${stored.notes}</p></div>` : ''}
${
  sets.length === 0
    ? html`<p>No sets.</p>`
    : scrollTable(
        `Sets of ${e.name.value}`,
        html`<table${stack ? html` class="stack sets-stack"` : ''}><caption class="visually-hidden">Sets of ${e.name.value}</caption><thead><tr><th scope="col">${SET_FIELDS.set_number.label}</th>${columns.map((c) => html`<th scope="col" class="num">${c.head}</th>`)}<th scope="col">Records</th></tr></thead><tbody>
${sets.map((s) => {
  const type = setTypeWords(s, sets);
  const badges = s.historical_record_at_completion.indicators;
  return html`<tr><th scope="row"${stack ? html` data-label="${SET_FIELDS.set_number.label}"` : ''}>${s.set_number}${type ? html` <span class="meta">${type}</span>` : ''}</th>${columns.map(
    (c) => {
      const value = c.cell(s);
      // Stacked on a phone, a set's empty fields are left out of its block; the table shows them as —.
      return html`<td class="${value === '—' ? 'num empty' : 'num'}"${stack ? html` data-label="${c.head}"` : ''}>${value}</td>`;
    },
  )}<td${stack && badges.length ? html` data-label="Records"` : ''}>${badges.map((i) => html`<span class="badge">${RECORD_NAMES[i]}</span>`)}</td></tr>`;
})}</tbody></table>`,
      )
}
</section>`;
  })}`;
}

export function registerRecordPages(web: FastifyInstance, app: Services, show: Show): void {
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
<p>${addButton('completed_workout', 'Log a workout')}</p>
${await lastChangeOn(app, who.athlete, ['completed_workout'])}
<div class="card">${
        page.docs.length
          ? html`<ul class="plain">${page.docs.map(workoutLine)}</ul>`
          : html`<p>No workouts here yet. <a href="/import">Import your history from Hevy or Strong</a>.</p>`
      }
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
      show(
        reply,
        'Workout not found',
        session,
        html`<div class="card"><h1>Workout not found</h1><p>There is no workout at this address in your record. It may have been deleted.</p><a class="button" href="/workouts">Your workouts</a></div>`,
        404,
      );
    if (!UUID.test(id)) return notFound();
    let workout: WorkoutDetail;
    try {
      workout = (await getCompletedWorkout(app.reads, ownerOf(athlete), id)).workout;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return notFound();
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
<p class="meta">${facts.join(' · ')}${detail?.source ? ` · ${detail.source.id ? 'synced' : 'imported'} from ${APP_NAMES[detail.source.app]}` : ''}</p>
<p class="edit-links"><a href="${editPath('completed_workout', id)}">Change this workout</a><a class="danger" href="${editPath('completed_workout', id)}/remove">Remove it…</a></p>
${await lastChangeOn(app, athlete, ['completed_workout'])}
${detail?.notes ? html`<div class="card"><h2>Notes</h2><p class="notes">${detail.notes}</p></div>` : ''}
${workout.feedback ? html`<p>You found it <strong>${DIFFICULTY[workout.feedback.difficulty]}</strong> and chose to <strong>${workout.feedback.next_time_intent === 'keep' ? 'keep it' : 'review it'}</strong> next time.</p>` : ''}
${exerciseTables(workout, detail, unit)}
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
<p>${addButton('saved_routine', 'Add a routine')}</p>
${await lastChangeOn(app, who.athlete, ['saved_routine'])}
<div class="card">${
        page.docs.length
          ? html`<ul class="plain">${page.docs.map((r) => {
              const upcoming = [...r.scheduled_dates].filter((d) => d >= today).sort();
              return html`<li><a href="/routines/${r.id}"><strong>${r.title}</strong></a><br><span class="meta">${count(r.exercise_count, 'exercise')}${
                upcoming.length
                  ? ` · next on ${shortDate(upcoming[0]!)}${upcoming.length > 1 ? ` and ${upcoming.length - 1} more ${upcoming.length === 2 ? 'date' : 'dates'}` : ''}`
                  : ' · not scheduled'
              }</span></li>`;
            })}</ul>`
          : html`<p>No saved routines yet. An AI client you connect can suggest one for you to approve.</p>`
      }
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
      show(
        reply,
        'Routine not found',
        who.session,
        html`<div class="card"><h1>Routine not found</h1><p>There is no routine at this address in your record.</p><a class="button" href="/routines">Your routines</a></div>`,
        404,
      );
    if (!UUID.test(id)) return notFound();
    let routine: Awaited<ReturnType<typeof getSavedRoutine>>['routine'];
    try {
      routine = (await getSavedRoutine(app.reads, ownerOf(who.athlete), id)).routine;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return notFound();
      throw error;
    }
    const doc = await app.reads.get<ItemDoc & RecordItem<'routine'>>(ITEM_COLLECTIONS.routine, who.athlete.athlete_id, id);
    const dates = [...(doc?.scheduled_dates ?? [])].sort();
    const rest = (s: number | null) => (s === null ? '—' : clock(s));
    return show(
      reply,
      routine.title.value,
      who.session,
      html`${trainingNav('/routines')}<p><a href="/routines">← All routines</a></p>
<h1>${routine.title.value}</h1>
<p class="edit-links"><a href="${editPath('saved_routine', id)}">Change this routine</a><a class="danger" href="${editPath('saved_routine', id)}/remove">Remove it…</a></p>
${await lastChangeOn(app, who.athlete, ['saved_routine'])}
<div class="card"><h2>Exercises</h2>${
        routine.exercises.length
          ? scrollTable(
              'Exercises of the routine',
              html`<table><thead><tr><th scope="col">Exercise</th><th scope="col" class="num">Sets</th><th scope="col" class="num">Reps</th><th scope="col" class="num">Target RPE</th><th scope="col" class="num">Rest</th></tr></thead><tbody>${routine.exercises.map(
                (e) =>
                  html`<tr><th scope="row">${e.name.value}</th><td class="num">${e.sets}</td><td class="num">${e.reps}</td><td class="num">${e.target_rpe === null ? '—' : trim(e.target_rpe, 1)}</td><td class="num">${rest(e.rest_seconds)}</td></tr>`,
              )}</tbody></table>`,
            )
          : html`<p>This routine has no exercises.</p>`
      }</div>
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
      statuses.map((status) =>
        app.reads.page<GoalDoc>(ITEM_COLLECTIONS.goal, {
          partition: athleteId,
          index: 'by_status',
          prefix: [status],
          direction: 'desc',
          limit: GOALS_PER_STATUS,
        }),
      ),
    );
    const exerciseIds = [...new Set(byStatus.flat().flatMap((g) => (g.exercise_id ? [g.exercise_id] : [])))];
    const names = new Map((await app.reads.getMany<ItemDoc & RecordItem<'exercise'>>('exercises', athleteId, exerciseIds)).map((e) => [e.id, e.name]));
    const p = who.athlete.profile;
    const section = (title: string, goals: GoalDoc[], empty: string) =>
      html`<section class="card"><h2>${title}</h2>${
        goals.length
          ? html`<ul class="plain">${goals.map(
              (g) =>
                html`<li>${goalText(g, names, p)}${
                  g.achieved_at ? html`<br><span class="meta">Achieved ${dateTime(g.achieved_at, p.timezone)}</span>` : ''
                }<br>${changeLink('goal', g.id, `the ${recordSubject('goal', g, { profile: p, exerciseName: (id) => names.get(id) ?? null })}`)}</li>`,
            )}</ul>`
          : html`<p>${empty}</p>`
      }</section>`;
    return show(
      reply,
      'Goals',
      who.session,
      html`${trainingNav('/goals')}<h1>Goals</h1>
<p>${addButton('goal', 'Add a goal')}</p>
${await lastChangeOn(app, who.athlete, ['goal'])}
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
