// Where the athlete's own changes start from, on the pages that show the record: the address of
// each kind's forms, a "Change" link for an item, an "Add" button, and the card of the athlete's
// last change with the way to undo it.
import type { WriteKind } from '../../contracts/write.ts';
import type { Services } from '../api/services.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { undoDeadline } from '../domain/proposal-review.ts';
import { recordSubject, receiptLine } from '../words/changes.ts';
import type { WordsContext } from '../words/record-fields.ts';
import { dateTime } from '../words/units.ts';
import type { ShownEdit } from '../writes/edits.ts';
import { html, type Html } from './html.ts';

/** Each kind the athlete edits, by the name its addresses use, with the page that lists it. */
export const EDITABLE = {
  workout: { kind: 'completed_workout', page: (id: string | null) => (id ? `/workouts/${id}` : '/workouts') },
  routine: { kind: 'saved_routine', page: (id: string | null) => (id ? `/routines/${id}` : '/routines') },
  goal: { kind: 'goal', page: () => '/goals' },
  checkin: { kind: 'recovery_checkin', page: () => '/recovery' },
  meal: { kind: 'meal', page: () => '/nutrition' },
  measurement: { kind: 'body_measurement', page: () => '/body' },
  equipment: { kind: 'equipment_setup', page: () => '/preferences' },
  preferences: { kind: 'fitness_preferences', page: () => '/preferences' },
} as const satisfies Record<string, { kind: WriteKind; page: (id: string | null) => string }>;
export type Slug = keyof typeof EDITABLE;

const slugOf = (kind: WriteKind) => (Object.keys(EDITABLE) as Slug[]).find((s) => EDITABLE[s].kind === kind) ?? null;
/** Where the athlete sees an item of `kind`. */
export const pageOf = (kind: WriteKind, id: string | null) => {
  const slug = slugOf(kind);
  return slug ? EDITABLE[slug].page(id) : '/account';
};
/** The address of the form that adds an item of `kind`, and of the one that changes item `id`. */
const newPath = (kind: WriteKind) => `/record/${slugOf(kind)}/new`;
export const editPath = (kind: WriteKind, id: string) => `/record/${slugOf(kind)}/${id}`;

/** "Change" for an item, naming it for a screen reader (`subject`: "the meal “Lunch” of …"). */
export const changeLink = (kind: WriteKind, id: string, subject: string) =>
  html`<a href="${editPath(kind, id)}">Change<span class="visually-hidden"> ${subject}</span></a>`;

/** The button that opens the form adding an item of `kind`. */
export const addButton = (kind: WriteKind, label: string) => html`<a class="button add" href="${newPath(kind)}">${label}</a>`;

/** The athlete's last change, as a page shows it with the way to undo it; nothing when there is none to undo. */
function lastChangeCard(last: ShownEdit | null, ctx: WordsContext, now: Date, kinds?: readonly WriteKind[]): Html | '' {
  if (!last || now >= undoDeadline(last.saved_at)) return '';
  if (kinds && !last.changes.some((c) => kinds.includes(c.kind))) return '';
  const op = { created: 'create', updated: 'update', deleted: 'delete' } as const;
  return html`<aside class="notice neutral last-change" aria-label="Your last change"><p><strong>Your last change</strong>, ${dateTime(last.saved_at, ctx.profile.timezone)}:</p>
<ul>${last.changes.map((c) => html`<li>${receiptLine(op[c.change], recordSubject(c.kind, c.after ?? c.before, ctx))}</li>`)}</ul>
<p><a href="/record/undo">Undo this change…</a></p></aside>`;
}

/** The card of the athlete's last change on a page of `kinds` (every page, without). */
export async function lastChangeOn(app: Services, athlete: AthleteState, kinds?: readonly WriteKind[]): Promise<Html | ''> {
  const last = await app.edits.lastShown(athlete.athlete_id);
  if (!last) return '';
  return lastChangeCard(last, await editWords(app, athlete, last), app.clock.now(), kinds);
}

/** The words for a last edit: the athlete's units and zone, and the names of the exercises its goals name (read by id, not the catalog). */
export async function editWords(app: Services, athlete: AthleteState, last: ShownEdit | null): Promise<WordsContext> {
  const ids = [
    ...new Set((last?.changes ?? []).flatMap((c) => [c.after?.exercise_id, c.before?.exercise_id]).filter((id): id is string => typeof id === 'string')),
  ];
  const names = new Map((await app.reads.getMany<{ id: string; name: string }>('exercises', athlete.athlete_id, ids)).map((e) => [e.id, e.name]));
  return { profile: athlete.profile, exerciseName: (id) => names.get(id) ?? null };
}
