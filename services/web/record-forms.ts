// The athlete's forms for their own record, made from the one table of fields the review page reads
// (words/record-fields.ts): a field's label and format say which control it gets and how what was
// typed reads back. Controls show canonical values in the athlete's units and zone. A value left
// as it was shown reads back as the canonical value it was shown from (100 kg shown as 220.5 lb
// stays 100 kg), so that changing one field changes only that one.
//
// A form is a tree of texts (`Tree`): made from an item, or from a posted body whose flat names
// (`exercises.1.sets.0.reps`) say where each text goes; grown or cut by the buttons that work
// without script (add a set, remove an exercise) and shown again; and at last read into the write
// shape an agent would send, which the same checks then decide.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { KG_PER_LB } from '../../contracts/common.ts';
import type { Profile } from '../../contracts/record.ts';
import { writeRecordSchemas, type WriteAction, type WriteKind } from '../../contracts/write.ts';
import { localParts, zonedTimeToUtc } from '../domain/time.ts';
import { RECORD_FIELDS, supersetLetter, TRACKING_TYPES, type FieldRow, type Format, type ListRow } from '../words/record-fields.ts';
import { exerciseNameKey } from '../domain/record.ts';
import { trim } from '../words/units.ts';
import { html, type Html } from './html.ts';

/** A form's values as typed: each field's text (several for a list of texts), or a list's items. */
export interface Tree {
  [field: string]: string | string[] | Tree[] | undefined;
}

/** What the controls need besides the values: the athlete's units and zone, and their exercises to pick from. */
export interface FormContext {
  profile: Profile;
  exercises: ReadonlyArray<{ id: string; name: string }>;
}

/** A field the form could not read, named as the athlete sees it. */
export interface FormProblem {
  /** The control's name (`exercises.0.sets.1.reps`), for its id. */
  name: string;
  message: string;
}

/** The most items a list of the form holds (a workout's exercises, an exercise's sets, dates). */
const MAX_ITEMS = 200;
/** The suffix of the hidden field that keeps the text a field was shown with and the value behind it (`[shown, value]` as JSON). */
const WAS = '~was';
/** Blank inputs offered after a list of texts or dates. */
const SPARE_TEXTS = 2;

type Body = Record<string, unknown>;
type Fields = Record<string, FieldRow | ListRow<Body>>;
const isList = (row: FieldRow | ListRow<Body>): row is ListRow<Body> => 'fields' in row;
const fieldsOf = (kind: WriteKind) => RECORD_FIELDS[kind] as unknown as Fields;

// ---------------------------------------------------------------------------------------------
// Canonical values as the athlete reads and types them

const METRES_PER_MILE = 1609.344;
const METRES_PER_INCH = 0.0254;

/** The unit a field is typed in, shown beside it. */
function unitOf(format: Format, siblings: Tree, p: Profile): string | null {
  switch (format) {
    case 'mass':
      return p.unit_preference === 'lbs' ? 'lb' : 'kg';
    case 'distance':
      return p.unit_preference === 'lbs' ? 'mi' : 'km';
    case 'minutes':
      return 'min';
    case 'kcal':
      return 'kcal';
    case 'grams':
      return 'g';
    case 'percent':
      return '%';
    case 'body_value': {
      const metric = text(siblings.metric);
      if (metric === 'body_fat') return '%';
      if (metric === 'bodyweight') return p.bodyweight_unit_preference === 'kg' ? 'kg' : 'lb';
      return p.height_unit_preference === 'cm' ? 'cm' : 'in';
    }
    default:
      return null;
  }
}

/** How many of the canonical unit one typed unit is (kg per lb, metres per mile), for the number formats. */
function factorOf(format: Format, siblings: Tree, p: Profile): number {
  const unit = unitOf(format, siblings, p);
  switch (unit) {
    case 'lb':
      return KG_PER_LB;
    case 'mi':
      return METRES_PER_MILE;
    case 'km':
      return 1000;
    case 'cm':
      return 0.01;
    case 'in':
      return METRES_PER_INCH;
    default:
      return 1;
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A canonical value as the control shows it. */
function shownText(format: Format, value: unknown, siblings: Tree, p: Profile): string {
  if (value === null || value === undefined) return '';
  if (format === 'instant') {
    const t = localParts(Date.parse(String(value)), p.timezone);
    return `${t.year}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}`;
  }
  if (format === 'seconds') {
    const s = Number(value);
    const h = Math.floor(s / 3600);
    return h ? `${h}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}` : `${Math.floor(s / 60)}:${pad(s % 60)}`;
  }
  if (format === 'yes_no') return value ? 'on' : '';
  if (typeof value === 'number') return trim(value / factorOf(format, siblings, p), 3);
  return String(value);
}

/** What the athlete typed, as a canonical value; a string is a problem with it. */
type Read = { value: unknown } | { problem: string };

function readText(format: Format, typed: string, siblings: Tree, p: Profile): Read {
  if (format === 'instant') {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(typed);
    if (!m) return { problem: 'give a date and time, such as 2026-03-01 18:30' };
    const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return { problem: 'this is not a date and time' };
    return { value: zonedTimeToUtc({ year, month, day, hour, minute, second }, p.timezone) };
  }
  if (format === 'local_date') return /^\d{4}-\d{2}-\d{2}$/.test(typed) ? { value: typed } : { problem: 'give a date, such as 2026-03-01' };
  if (format === 'seconds') {
    const m = /^(?:(?:(\d+):)?(\d+):)?(\d+)$/.exec(typed);
    if (!m) return { problem: 'give a time as minutes:seconds (3:05) or seconds' };
    return { value: Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3]) };
  }
  if (format === 'check_in_scale' || format === 'count' || format === 'training_days' || format === 'minutes' || format === 'parent_set') {
    return /^\d{1,9}$/.test(typed) ? { value: Number(typed) } : { problem: 'give a whole number' };
  }
  if (typeof format === 'object' || format === 'text' || format === 'exercise' || format === 'superset') return { value: typed };
  const n = Number(typed.replace(',', '.'));
  if (typed === '' || !Number.isFinite(n)) return { problem: 'give a number' };
  // Fifteen significant digits: what was typed, converted, without the binary noise of the product (82.5 cm is 0.825 m, not 0.8250000000000001).
  return { value: Number((n * factorOf(format, siblings, p)).toPrecision(15)) };
}

// ---------------------------------------------------------------------------------------------
// Trees: from an item, from a posted body, and back

/** The text a field was shown with and the value behind it, kept in a hidden input beside it. */
const wasOf = (shown: string, value: unknown) => JSON.stringify([shown, value]);

function keptValue(was: string, typed: string): { value: unknown } | null {
  try {
    const parsed: unknown = JSON.parse(was);
    return Array.isArray(parsed) && parsed.length === 2 && parsed[0] === typed ? { value: parsed[1] } : null;
  } catch {
    return null;
  }
}

/** The form's tree of an item (a write shape), its texts as shown. */
export function treeOf(kind: WriteKind, record: Body, p: Profile): Tree {
  return toTree(fieldsOf(kind), record, p, new Map());
}

function toTree(fields: Fields, record: Body, p: Profile, supersets: Map<string, string>): Tree {
  const tree: Tree = {};
  for (const [name, row] of Object.entries(fields)) {
    const value = record[name];
    if (isList(row)) {
      const items = (value as Body[] | undefined) ?? [];
      // Drop sets name their parent by position; the form names it by its place in the list.
      const placeOf = new Map(items.map((item, i) => [item[row.key], i]));
      tree[name] = items.map((item) => {
        const t = toTree(row.fields as Fields, item, p, supersets);
        if (typeof item.parent_position === 'number') t.parent_position = String(placeOf.get(item.parent_position) ?? '');
        return t;
      });
      continue;
    }
    if (Array.isArray(value)) {
      tree[name] = value.map(String);
      continue;
    }
    if (row.format === 'superset' && typeof value === 'string') {
      // Lettered in the order the exercises come; the letter's id is kept beside it.
      const letter = supersets.get(value) ?? supersetLetter(supersets.size);
      supersets.set(value, letter);
      tree[name] = letter;
      tree[`${name}${WAS}`] = wasOf(letter, value);
      continue;
    }
    const shown = shownText(row.format, value, tree, p);
    tree[name] = shown;
    if (typeof value === 'number' || typeof value === 'string') tree[`${name}${WAS}`] = wasOf(shown, value);
  }
  return tree;
}

const FIELD_NAME = /^[a-z][a-z_]*(?:~was)?$/;

/**
 * The tree of a posted body: each `f.`-prefixed name put where its path says. Names of no field
 * shape, and indexes past the form's limits, are dropped; lists are closed up, so that no name
 * makes a list of holes.
 */
export function treeOfBody(body: unknown): Tree {
  const root: Tree = {};
  if (!body || typeof body !== 'object') return root;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (!key.startsWith('f.') || key.length > 200) continue;
    const path = key.slice(2).split('.');
    if (path.length % 2 === 0 || !path.every((part, i) => (i % 2 ? /^\d{1,3}$/.test(part) && Number(part) < MAX_ITEMS : FIELD_NAME.test(part)))) continue;
    let at: Tree = root;
    for (let i = 0; i < path.length - 1; i += 2) {
      const field = path[i]!;
      const list = Array.isArray(at[field]) && typeof (at[field] as unknown[])[0] !== 'string' ? (at[field] as Tree[]) : [];
      at[field] = list;
      at = list[Number(path[i + 1])] ??= {};
    }
    const leaf = path[path.length - 1]!;
    if (typeof value === 'string') at[leaf] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) at[leaf] = (value as string[]).slice(0, MAX_ITEMS);
  }
  return closeUp(root);
}

function closeUp(tree: Tree): Tree {
  for (const [k, v] of Object.entries(tree)) if (Array.isArray(v) && typeof v[0] !== 'string') tree[k] = (v as Tree[]).filter(Boolean).map(closeUp);
  return tree;
}

const text = (v: Tree[string]): string => (typeof v === 'string' ? v : '');

/** What a new item of a list starts as: the usual values (a set done, of the normal type); an exercise with one set. */
function blankItem(row: ListRow<Body>): Tree {
  const item: Tree = {};
  for (const [name, field] of Object.entries(row.fields as Fields)) {
    if (isList(field)) item[name] = field.noun === 'set' ? [blankItem(field)] : [];
    else if (field.usual !== undefined) item[name] = field.usual === true ? 'on' : String(field.usual);
  }
  return item;
}

/** The list a path (`exercises.2.sets`) names in the tree, with its row; null if none. */
function listAt(kind: WriteKind, tree: Tree, path: string): { list: Tree[]; row: ListRow<Body> } | null {
  const parts = path.split('.');
  let fields = fieldsOf(kind);
  let at: Tree = tree;
  for (let i = 0; i < parts.length; i += 2) {
    const row = fields[parts[i]!];
    if (!row || !isList(row)) return null;
    const list = (Array.isArray(at[parts[i]!]) ? at[parts[i]!] : (at[parts[i]!] = [])) as Tree[];
    if (i === parts.length - 1) return { list, row };
    const item = list[Number(parts[i + 1])];
    if (!item) return null;
    at = item;
    fields = row.fields as Fields;
  }
  return null;
}

/**
 * Applies a form button (`add:exercises`, `remove:exercises.2.sets.1`): the tree with an item
 * added or removed, or null when the button names no list of the form.
 */
export function applyButton(kind: WriteKind, tree: Tree, button: string): Tree | null {
  const m = /^(add|remove):([a-z_]+(?:\.\d{1,3}\.[a-z_]+)*)(?:\.(\d{1,3}))?$/.exec(button);
  if (!m) return null;
  const [, move, path, index] = m;
  const found = listAt(kind, tree, path!);
  if (!found) return null;
  if (move === 'add' && index === undefined && found.list.length < MAX_ITEMS) found.list.push(blankItem(found.row));
  else if (move === 'remove' && index !== undefined && Number(index) < found.list.length) found.list.splice(Number(index), 1);
  else return null;
  return tree;
}

/**
 * Reads the tree into the write shape of `kind`, with an action creating each new exercise it
 * names first (referred to by `ref`; a name already in the catalog is that exercise). Problems are
 * named by label; the record's own rules are checked afterwards, as an agent's actions are.
 */
export function readTree(
  kind: WriteKind,
  tree: Tree,
  ctx: FormContext,
): { ok: true; record: Body; exercises: WriteAction[] } | { ok: false; problems: FormProblem[] } {
  const reading: Reading = { ctx, problems: [], exercises: [], supersets: new Map(), refs: new Map() };
  const record = fromTree(fieldsOf(kind), writeRecordSchemas[kind] as unknown as z.ZodObject, tree, '', reading);
  return reading.problems.length ? { ok: false, problems: reading.problems } : { ok: true, record, exercises: reading.exercises };
}

interface Reading {
  ctx: FormContext;
  problems: FormProblem[];
  exercises: WriteAction[];
  /** Superset letters and their ids, across the form. */
  supersets: Map<string, string>;
  /** New exercises' refs by name, so that one named twice is made once. */
  refs: Map<string, string>;
}

/** The schema of a field of an object schema, and of the items of a list field. */
const shapeOf = (schema: z.ZodObject, name: string) => (schema.shape as Record<string, z.ZodType>)[name]!;
const elementOf = (schema: z.ZodType) => (schema as z.ZodArray<z.ZodObject>).element;
const nullable = (schema: z.ZodType) => schema.safeParse(null).success;

function fromTree(fields: Fields, schema: z.ZodObject, tree: Tree, prefix: string, r: Reading): Body {
  const out: Body = {};
  for (const [name, row] of Object.entries(fields)) {
    const at = `${prefix}${name}`;
    const fieldSchema = shapeOf(schema, name);
    if (isList(row)) {
      const items = (Array.isArray(tree[name]) ? tree[name] : []) as Tree[];
      const positions = positionsOf(items, row.key);
      const bodies = items.map((item, i) => {
        const body = fromTree(row.fields as Fields, elementOf(fieldSchema), item, `${at}.${i}.`, r);
        body[row.key] = positions[i];
        // A set keeps its number; a new one is numbered by its place.
        if ('set_number' in (row.fields as Fields)) body.set_number = /^\d{1,3}$/.test(text(item.set_number)) ? Number(item.set_number) : i + 1;
        return body;
      });
      // A drop set names its parent by its place in the form; the record names it by position.
      for (const body of bodies) if (typeof body.parent_position === 'number') body.parent_position = positions[body.parent_position] ?? body.parent_position;
      out[name] = bodies;
      continue;
    }
    const format = row.format;
    if (format === 'order' || name === 'set_number') continue;
    if (typeof format === 'object' && 'within' in format) {
      out[name] = text(tree[name]);
      continue;
    }
    const value = tree[name];
    if (fieldSchema instanceof z.ZodArray) {
      // A list of texts or dates: the inputs filled in, each read alone.
      const typed = (Array.isArray(value) ? (value as string[]) : [text(value)]).map((v) => v.trim()).filter(Boolean);
      out[name] = typed.flatMap((v) => {
        const read = readText(format, v, tree, r.ctx.profile);
        if ('problem' in read) r.problems.push({ name: at, message: `${row.label}: ${read.problem}` });
        return 'value' in read ? [read.value] : [];
      });
      continue;
    }
    if (format === 'yes_no') {
      out[name] = text(value) === 'on';
      continue;
    }
    if (format === 'exercise' && prefix !== '') {
      const created = text(tree.new_exercise_name).trim();
      if (created) {
        out[name] = newExercise(created, text(tree.new_exercise_tracking), r);
        continue;
      }
    }
    const typed = text(value).trim();
    const kept = keptValue(text(tree[`${name}${WAS}`]), typed);
    if (kept) {
      // Left as shown: the value it was shown from, exactly.
      out[name] = kept.value;
      if (format === 'superset') r.supersets.set(typed, String(kept.value));
      continue;
    }
    if (typed === '') {
      if (nullable(fieldSchema)) out[name] = null;
      else
        r.problems.push({ name: at, message: `${row.label}: ${format === 'exercise' ? 'choose an exercise, or name a new one' : 'this field is required'}` });
      continue;
    }
    if (format === 'superset') {
      // A letter the form had not shown (a new superset) gets a new id, the same for every exercise in it.
      let id = r.supersets.get(typed);
      if (!id) r.supersets.set(typed, (id = randomUUID()));
      out[name] = id;
      continue;
    }
    const read = readText(format, typed, tree, r.ctx.profile);
    if ('problem' in read) r.problems.push({ name: at, message: `${row.label}: ${read.problem}` });
    else out[name] = read.value;
  }
  return out;
}

/**
 * The positions of a list's items: each keeps the one it had (carried in a hidden input), a new
 * one follows the largest, so that saving a workout unchanged keeps an imported workout's
 * positions; the places in the form where kept ones are missing or repeated.
 */
function positionsOf(items: readonly Tree[], key: string): number[] {
  const kept = items.map((item) => (/^\d{1,4}$/.test(text(item[key])) ? Number(item[key]) : null));
  let next = Math.max(-1, ...kept.filter((k) => k !== null)) + 1;
  const positions = kept.map((k) => k ?? next++);
  return new Set(positions).size === positions.length ? positions : items.map((_, i) => i);
}

/** The exercise a typed new name stands for: the catalog's of that name, or one this save creates. */
function newExercise(name: string, tracking: string, r: Reading): string | { ref: string } {
  const key = exerciseNameKey(name);
  const known = r.ctx.exercises.find((e) => exerciseNameKey(e.name) === key);
  if (known) return known.id;
  let ref = r.refs.get(key);
  if (!ref) {
    r.refs.set(key, (ref = `new-${r.refs.size}`));
    const trackingType = (tracking in TRACKING_TYPES ? tracking : 'weight_reps') as keyof typeof TRACKING_TYPES;
    r.exercises.push({ op: 'create', kind: 'exercise', ref, record: { name, muscle_group: null, tracking_type: trackingType } });
  }
  return { ref };
}

// ---------------------------------------------------------------------------------------------
// Controls

/** The controls of every field of `kind`, with `tree`'s texts in them. */
export function formControls(kind: WriteKind, tree: Tree, ctx: FormContext, problems: readonly FormProblem[]): Html {
  const wrong = new Set(problems.map((p) => p.name));
  return controls(fieldsOf(kind), writeRecordSchemas[kind] as unknown as z.ZodObject, tree, '', { ctx, wrong, listSize: 0 });
}

interface Showing {
  ctx: FormContext;
  wrong: ReadonlySet<string>;
  /** How many items the list the fields are in holds (a drop set picks its parent among them). */
  listSize: number;
}

const idOf = (name: string) => `f-${name.replace(/[^a-z0-9]+/gi, '-')}`;

function controls(fields: Fields, schema: z.ZodObject, tree: Tree, prefix: string, s: Showing): Html {
  return html`${Object.entries(fields).map(([name, row]) => {
    const at = `${prefix}${name}`;
    const fieldSchema = shapeOf(schema, name);
    if (isList(row)) return listControls(row, elementOf(fieldSchema), (Array.isArray(tree[name]) ? tree[name] : []) as Tree[], at, s);
    // What the form does not show but keeps: an item's position and a set's number.
    if (row.format === 'order' || name === 'set_number')
      return tree[name] === undefined ? '' : html`<input type="hidden" name="f.${at}" value="${text(tree[name])}">`;
    if (typeof row.format === 'object' && 'within' in row.format) return '';
    if (fieldSchema instanceof z.ZodArray) return textsControl(row, at, (Array.isArray(tree[name]) ? tree[name] : []) as string[], s.wrong);
    // A field's label and control together: laid out side by side (a set's fields), a label stays with its box.
    return html`<div class="field">${control(row, name, at, tree, fields, schema, s)}</div>`;
  })}`;
}

/** A field's hidden companion: the text it was shown with and the value behind it. */
const wasInput = (name: string, tree: Tree, at: string) =>
  tree[`${name}${WAS}`] === undefined ? '' : html`<input type="hidden" name="f.${at}${WAS}" value="${text(tree[`${name}${WAS}`])}">`;

function control(row: FieldRow, name: string, at: string, tree: Tree, fields: Fields, schema: z.ZodObject, s: Showing): Html {
  const id = idOf(at);
  const value = text(tree[name]);
  const optional = nullable(shapeOf(schema, name));
  const invalid = s.wrong.has(at) ? html` aria-invalid="true"` : '';
  const label = html`<label for="${id}">${row.label}${optional ? html` <span class="meta">(optional)</span>` : ''}</label>`;
  const format = row.format;
  const choose = (choices: ReadonlyArray<readonly [string, string]>) =>
    html`${label}<select id="${id}" name="f.${at}"${invalid}>${optional || !value ? html`<option value="">${optional ? 'None' : 'Choose…'}</option>` : ''}${choices.map(
      ([v, words]) => html`<option value="${v}"${v === value ? html` selected` : ''}>${words}</option>`,
    )}</select>${wasInput(name, tree, at)}`;
  if (typeof format === 'object' && 'words' in format) return choose(Object.entries(format.words));
  switch (format) {
    case 'yes_no':
      return html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="f.${at}"${value === 'on' ? html` checked` : ''}> ${row.label}</label>`;
    case 'check_in_scale':
      return choose(['1', '2', '3', '4', '5'].map((n) => [n, `${n} of 5`] as const));
    case 'exercise': {
      const known = s.ctx.exercises.map((e) => [e.id, e.name] as const);
      const unknown = value && !known.some(([v]) => v === value) ? [[value, 'An exercise not in your catalog'] as const] : [];
      const picker = choose([...known, ...unknown]);
      if (!at.includes('.')) return picker;
      // An exercise of a workout or routine may be a new one, made with the same save.
      const named = text(tree.new_exercise_name);
      const base = at.replace(/exercise_id$/, '');
      return html`${picker}<details class="new-exercise"${named ? html` open` : ''}><summary>Not in the list? Name a new exercise</summary>
<label for="${id}-new">New exercise</label><input type="text" id="${id}-new" name="f.${base}new_exercise_name" value="${named}" maxlength="200">
<label for="${id}-tracking">Tracked by</label><select id="${id}-tracking" name="f.${base}new_exercise_tracking">${Object.entries(TRACKING_TYPES).map(
        ([v, words]) => html`<option value="${v}"${v === text(tree.new_exercise_tracking) ? html` selected` : ''}>${words}</option>`,
      )}</select><p class="hint">A name given here is used instead of the choice above, and added to your exercises when you save.</p></details>`;
    }
    case 'superset':
      return choose(Array.from({ length: 8 }, (_, i) => [supersetLetter(i), `Superset ${supersetLetter(i)}`] as const));
    case 'parent_set':
      return choose(Array.from({ length: s.listSize }, (_, i) => [String(i), `Set ${i + 1}`] as const));
    case 'text':
      return name === 'notes'
        ? html`${label}<textarea id="${id}" name="f.${at}" maxlength="2000" rows="3"${invalid}>${value}</textarea>`
        : html`${label}<input type="text" id="${id}" name="f.${at}" value="${value}" maxlength="200"${optional ? '' : html` required`}${invalid}>${wasInput(name, tree, at)}`;
    case 'instant':
      return html`${label}<input type="datetime-local" id="${id}" name="f.${at}" value="${value}"${optional ? '' : html` required`}${invalid}>${wasInput(name, tree, at)}`;
    case 'local_date':
      return html`${label}<input type="date" id="${id}" name="f.${at}" value="${value}"${optional ? '' : html` required`}${invalid}>`;
    case 'seconds':
      return html`${label}<input type="text" inputmode="numeric" id="${id}" name="f.${at}" value="${value}" placeholder="m:ss"${invalid}>${wasInput(name, tree, at)}`;
    case 'goal_target': {
      const [unitName, unitRow] = Object.entries(fields).find(([, r]) => !isList(r) && typeof r.format === 'object' && 'within' in r.format)! as [
        string,
        FieldRow,
      ];
      return html`${label}<div class="with-unit"><input type="text" inputmode="decimal" id="${id}" name="f.${at}" value="${value}" required${invalid}>${wasInput(name, tree, at)}
<label class="visually-hidden" for="${id}-unit">${unitRow.label}</label><select id="${id}-unit" name="f.${at.slice(0, at.length - name.length)}${unitName}">${GOAL_UNITS.map(
        ([u, words]) => html`<option value="${u}"${u === text(tree[unitName]) ? html` selected` : ''}>${words}</option>`,
      )}</select></div>`;
    }
    case 'body_value': {
      // Its unit follows the measurement chosen above, which a form without script cannot follow as
      // it changes: every measurement's unit is named beside it instead.
      const p = s.ctx.profile;
      const hint = `${id}-units`;
      return html`${label}<input type="text" inputmode="decimal" id="${id}" name="f.${at}" value="${value}"${optional ? '' : html` required`} aria-describedby="${hint}"${invalid}>${wasInput(name, tree, at)}<p class="hint" id="${hint}">Bodyweight in ${unitOf(format, { metric: 'bodyweight' }, p)}, body fat in %, height and the others in ${unitOf(format, { metric: 'height' }, p)}.</p>`;
    }
    default: {
      const unit = unitOf(format, tree, s.ctx.profile);
      return html`${label}<div class="with-unit"><input type="text" inputmode="decimal" id="${id}" name="f.${at}" value="${value}"${optional ? '' : html` required`}${invalid}>${
        unit ? html`<span class="unit">${unit}</span>` : ''
      }${wasInput(name, tree, at)}</div>`;
    }
  }
}

const GOAL_UNITS = [
  ['kg', 'kg'],
  ['lbs', 'lb'],
  ['sessions', 'workouts'],
  ['kcal', 'kcal'],
  ['g', 'g'],
] as const;

function textsControl(row: FieldRow, at: string, values: readonly string[], wrong: ReadonlySet<string>): Html {
  const type = row.format === 'local_date' ? 'date' : 'text';
  // The boxes left empty are not shown again: the spare ones follow what was typed, however often the form comes back.
  const shown = [...values.filter((v) => v.trim() !== ''), ...Array<string>(SPARE_TEXTS).fill('')];
  return html`<fieldset class="texts"><legend>${row.label} <span class="meta">(one a box; leave the rest empty)</span></legend>${shown.map(
    (v, i) =>
      html`<label class="visually-hidden" for="${idOf(`${at}.${i}`)}">${row.label} ${i + 1}</label><input type="${type}" id="${idOf(`${at}.${i}`)}" name="f.${at}" value="${v}" maxlength="100"${wrong.has(at) ? html` aria-invalid="true"` : ''}>`,
  )}</fieldset>`;
}

function listControls(row: ListRow<Body>, schema: z.ZodObject, items: readonly Tree[], at: string, s: Showing): Html {
  const noun = row.noun;
  const title = noun === 'set' ? 'Set' : 'Exercise';
  return html`<fieldset class="list list-${noun}"><legend>${row.label}</legend>${items.map(
    (item, i) =>
      html`<fieldset class="item item-${noun}"><legend>${title} ${i + 1}</legend><div class="fields">${controls(
        row.fields as Fields,
        schema,
        item,
        `${at}.${i}.`,
        {
          ...s,
          listSize: items.length,
        },
      )}</div>
<button type="submit" class="secondary small" name="_do" value="remove:${at}.${i}" formnovalidate>Remove ${noun} ${i + 1}</button></fieldset>`,
  )}<button type="submit" class="secondary small" name="_do" value="add:${at}" formnovalidate>Add ${noun === 'set' ? 'a set' : 'an exercise'}</button></fieldset>`;
}
