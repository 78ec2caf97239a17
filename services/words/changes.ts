// A proposal's changes in sentences, from the same table and comparison as the review page's
// tables (record-fields.ts), made when they are read: the summary an agent relays, the lines of
// the proposal lists and the home banner, the overview and the Approve button, the receipt's lines
// and the refusals. Nothing here is stored, so nothing here can go stale or disagree with a table.
import type { WriteKind, WriteOp } from '../../contracts/write.ts';
import { localDateOf } from '../domain/time.ts';
import { dateTime, localDate } from './units.ts';
import {
  compareRecords,
  type GOAL_TYPES,
  BODY_METRICS,
  valueText,
  type FieldWords,
  type ItemWords,
  type RecordWords,
  type WordsContext,
} from './record-fields.ts';

type Body = Record<string, unknown>;

/** Each kind as the athlete calls it. */
export const KIND_NOUNS: Record<WriteKind, { one: string; many: string }> = {
  exercise: { one: 'exercise', many: 'exercises' },
  completed_workout: { one: 'workout', many: 'workouts' },
  saved_routine: { one: 'routine', many: 'routines' },
  meal: { one: 'meal', many: 'meals' },
  recovery_checkin: { one: 'recovery check-in', many: 'recovery check-ins' },
  body_measurement: { one: 'body measurement', many: 'body measurements' },
  goal: { one: 'goal', many: 'goals' },
  equipment_setup: { one: 'equipment setup', many: 'equipment setups' },
  fitness_preferences: { one: 'fitness preferences', many: 'fitness preferences' },
};

export const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const quoted = (s: unknown) => `“${String(s)}”`;

/**
 * How the athlete knows a record, with its noun: a workout by its title and day, a goal by its
 * exercise and target, a check-in or a measurement by its day. `record` is the body as the athlete
 * knows it (the record as it is, or as proposed when it does not exist yet); null when no body is
 * known any more (details removed after retention), which names the kind only.
 */
export function recordSubject(kind: WriteKind, record: Body | null, ctx: WordsContext): string {
  const noun = KIND_NOUNS[kind].one;
  if (!record) return `a ${noun}`;
  const tz = ctx.profile.timezone;
  const day = (instant: unknown) => localDate(localDateOf(String(instant), tz));
  switch (kind) {
    case 'exercise':
    case 'equipment_setup':
      return `${noun} ${quoted(record.name)}`;
    case 'saved_routine':
      return `${noun} ${quoted(record.title)}`;
    case 'completed_workout':
      return `${noun} ${quoted(record.title)} of ${day(record.started_at ?? record.ended_at)}`;
    case 'meal':
      return `${noun} ${quoted(record.name)} of ${dateTime(String(record.eaten_at), tz)}`;
    case 'recovery_checkin':
      return `${noun} of ${localDate(String(record.date))}`;
    case 'body_measurement':
      return `${(BODY_METRICS[record.metric as keyof typeof BODY_METRICS] ?? 'measurement').toLowerCase()} measured on ${day(record.measured_at)}`;
    case 'goal': {
      const target = valueText('goal_target', record.target_value, record, ctx);
      const type = record.goal_type as keyof typeof GOAL_TYPES;
      if (type === 'target_1rm')
        return `one-rep max goal of ${target} for ${record.exercise_id ? valueText('exercise', record.exercise_id, record, ctx) : 'an exercise'}`;
      if (type === 'target_bodyweight') return `bodyweight goal of ${target}`;
      return `goal of ${target}`;
    }
    case 'fitness_preferences':
      return 'your fitness preferences';
  }
}

/** A compared record's changes, in a few words each: "energy 3 of 5 → 5 of 5", "set 2 of Back Squat: weight 100 kg → 102.5 kg". */
export function changeWords(words: RecordWords, ctx: WordsContext): string[] {
  return describe(words.fields, words.lists, '', ctx);
}

function describe(fields: FieldWords[], lists: RecordWords['lists'], where: string, ctx: WordsContext): string[] {
  const out: string[] = [];
  for (const f of fields) {
    if (!f.changed || f.within !== null || f.order) continue;
    const label = f.label.replace(/ \(.*\)$/, '').toLowerCase();
    out.push(`${where}${label} ${f.before} → ${f.after}`);
  }
  // A field shown within another (a goal's unit) changed only: its host says how.
  for (const f of fields) {
    if (!f.changed || f.within === null) continue;
    const host = fields.find((h) => h.name === f.within);
    if (host && !host.changed) out.push(`${where}${host.label.toLowerCase()} ${host.before} → ${host.after}`);
  }
  for (const list of lists) {
    for (const item of list.items) {
      const name = itemName(list.noun, item);
      if (item.status === 'added') out.push(`${where}adds ${name}`);
      else if (item.status === 'removed') out.push(`${where}removes ${name}`);
      else if (item.status === 'changed') {
        const inner = describe(item.fields, item.lists, `${name}: `, ctx);
        const moved = item.fields.some((f) => f.order && f.changed);
        out.push(...inner, ...(moved && inner.length === 0 ? [`${where}moves ${name}`] : []));
      }
    }
  }
  return out;
}

/** An item of a list as a person names it: an exercise by its name, a set by its number. */
export function itemName(noun: string, item: ItemWords): string {
  const text = (name: string) => {
    const f = item.fields.find((x) => x.name === name);
    return f ? (f.after ?? f.before) : null;
  };
  if (noun === 'set') return `set ${text('set_number')}`;
  return text('exercise_id') ?? noun;
}

/** The facts a new record is announced with beyond its name: a workout's size, a measurement's value. */
function createFacts(kind: WriteKind, record: Body, ctx: WordsContext): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  switch (kind) {
    case 'completed_workout': {
      const exercises = record.exercises as Array<{ sets: unknown[] }>;
      return `: ${count(exercises.length, 'exercise')}, ${count(
        exercises.reduce((n, e) => n + e.sets.length, 0),
        'set',
      )}`;
    }
    case 'saved_routine': {
      const dates = record.scheduled_dates as string[];
      return `: ${count((record.exercises as unknown[]).length, 'exercise')}${dates.length ? `, scheduled on ${count(dates.length, 'day')}` : ''}`;
    }
    case 'body_measurement':
      return `: ${valueText('body_value', record.value, record, ctx)}`;
    case 'meal':
      return record.calories_kcal === null ? '' : `: ${valueText('kcal', record.calories_kcal, record, ctx)}`;
    default:
      return '';
  }
}

/** One change of a batch, as the body it proposes and the record it concerns. */
export interface ChangeInput {
  op: WriteOp;
  kind: WriteKind;
  /** The proposed body (create, update); null for a delete. */
  record: Body | null;
  /**
   * The item as it is (or was, for a saved batch) without its id; null when unknown: a create, or
   * an item whose earlier body is no longer kept.
   */
  current: Body | null;
}

/** At most this many field changes are spelled out in a summary; the page shows them all. */
const SPELLED_OUT = 4;

/** The record a change concerns, as the athlete knows it: as it is (or was), else as proposed. */
export function changeSubject(change: ChangeInput, ctx: WordsContext): string {
  return recordSubject(change.kind, change.current ?? change.record, ctx);
}

const the = (subject: string) => (subject.startsWith('your ') ? subject : `the ${subject}`);
const a = (subject: string) => (subject.startsWith('your ') ? subject : /^(?!one)[aeiou]/i.test(subject) ? `an ${subject}` : `a ${subject}`);

/** What a change does to which record, in a few words: "Change the goal of 4 workouts a week". Each card's heading. */
export function changeHeading(change: ChangeInput, ctx: WordsContext): string {
  const subject = changeSubject(change, ctx);
  return change.op === 'create' ? `Add ${a(subject)}` : change.op === 'update' ? `Change ${the(subject)}` : `Remove ${the(subject)}`;
}

/** What a saved change did, for a receipt's line. */
export function receiptLine(op: WriteOp, subject: string): string {
  return op === 'create' ? `Added ${a(subject)}` : op === 'update' ? `Changed ${the(subject)}` : `Removed ${the(subject)}`;
}

/** What undoing a batch (or the athlete's own change) does to one record it changed. */
export function undoLine(change: 'created' | 'updated' | 'deleted', subject: string, noun: 'batch' | 'change' = 'batch'): string {
  return change === 'created'
    ? `Remove ${the(subject)} (added by this ${noun})`
    : change === 'deleted'
      ? `Bring back ${the(subject)} (removed by this ${noun})`
      : `Set ${the(subject)} back as it was`;
}

/**
 * The one-line summary of a change: what it does to which record, and for an update what changes,
 * before and after, in the athlete's units. What `get_write_proposal` answers; the page shows the same comparison as tables.
 */
export function changeSummary(change: ChangeInput, ctx: WordsContext): string {
  const heading = changeHeading(change, ctx);
  if (change.op === 'delete') return heading;
  if (change.op === 'create') return `${heading}${createFacts(change.kind, change.record!, ctx)}`;
  if (!change.current) return heading;
  const words = changeWords(compareRecords(change.kind, change.current, change.record, ctx), ctx);
  if (words.length === 0) return `${heading}: nothing differs from the record as it is`;
  const shown = words.slice(0, SPELLED_OUT).join('; ');
  return `${heading}: ${shown}${words.length > SPELLED_OUT ? `; and ${words.length - SPELLED_OUT} more` : ''}`;
}

/** How many changes of each operation a batch holds. */
export interface Tally {
  create: number;
  update: number;
  delete: number;
}

export function tally(changes: ReadonlyArray<{ op: WriteOp }>): Tally {
  const t: Tally = { create: 0, update: 0, delete: 0 };
  for (const c of changes) t[c.op]++;
  return t;
}

/** "2 added, 1 changed, 3 removed": the batch at a glance, from its changes' operations alone. */
export function overview(changes: ReadonlyArray<{ op: WriteOp; kind: WriteKind }>): string {
  const t = tally(changes);
  const parts = [t.create ? `${t.create} added` : null, t.update ? `${t.update} changed` : null, t.delete ? `${t.delete} removed` : null].filter(Boolean);
  const kinds = new Map<WriteKind, number>();
  for (const c of changes) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  const what = [...kinds].map(([kind, n]) => `${n} ${n === 1 ? KIND_NOUNS[kind].one : KIND_NOUNS[kind].many}`).join(', ');
  return `${parts.join(', ')} (${what})`;
}

/** What the Approve button says it does. */
export function approveLabel(changes: ReadonlyArray<{ op: WriteOp }>): string {
  const n = changes.length;
  const removals = tally(changes).delete;
  if (n === 1) return removals ? 'Approve the removal' : 'Approve this change';
  if (removals === n) return `Approve all ${n} removals`;
  if (removals === 0) return `Approve all ${n} changes`;
  return `Approve ${n} changes, including ${removals} ${removals === 1 ? 'removal' : 'removals'}`;
}

/** Who last changed a record, as a stale batch's notice names it. */
export type ChangedBy =
  | { type: 'proposal'; client_name: string; command_id: string; move: 'approved' | 'undid' }
  | { type: 'import' }
  | { type: 'athlete' }
  | { type: 'operator' }
  | { type: 'unknown' };

export function changedByWords(by: ChangedBy): string {
  switch (by.type) {
    case 'proposal':
      return `a batch from ${by.client_name} that you ${by.move}`;
    case 'import':
      return 'an import';
    case 'athlete':
      return 'you';
    case 'operator':
      return 'whoever runs this RepLedger';
    case 'unknown':
      return 'another change';
  }
}

/** Why a record blocks a batch (stale before approval, conflicted at approval, or blocking an undo). */
export type BlockReason = 'changed' | 'removed' | 'taken' | 'in_use';

/** "the recovery check-in of Sun 22 Nov 2026 changed": a blocking record in words. */
export function blockWords(subject: string, reason: BlockReason): string {
  switch (reason) {
    case 'changed':
      return `${the(subject)} changed`;
    case 'removed':
      return `${the(subject)} was removed`;
    case 'taken':
      return subject.startsWith('your ') ? `${subject} already exist` : `your record already holds ${a(subject)}`;
    case 'in_use':
      return `${the(subject)} is used by a workout, routine or goal saved since`;
  }
}

export { dateTime as instantWords };
