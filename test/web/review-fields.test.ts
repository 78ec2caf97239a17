// The review page is complete by construction: for random valid records of every write kind
// (generated from the write shapes themselves, test/support/write-arbitrary.ts), every field of the
// proposed body is on the page as the athlete reads it — in their units and timezone, enums in
// words, places as places — and for an update every old value that reads otherwise is there too.
// The expected text is worked out here, independently of the words layer, from the field's format
// in the words table; a field added to a write shape is generated at once, and fails here until
// the page shows it.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Profile } from '../../contracts/record.ts';
import { writeKinds, type WriteKind } from '../../contracts/write.ts';
import type { ProposalDoc } from '../../projections/proposals.ts';
import { RECORD_FIELDS, type FieldRow, type Format } from '../../services/words/record-fields.ts';
import { reviewPage } from '../../services/web/proposals.ts';
import type { ProposalReview } from '../../services/writes/proposals.ts';
import { EXERCISE_IDS, writeRecordArbitrary } from '../support/write-arbitrary.ts';

type Body = Record<string, unknown>;
type Row = FieldRow | { label: string; noun: string; key: string; fields: Record<string, Row> };

const ZONES = ['UTC', 'Europe/London', 'Pacific/Kiritimati', 'America/Adak', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
const profiles = fc.record({
  display_name: fc.constant('Ada'),
  timezone: fc.constantFrom(...ZONES),
  unit_preference: fc.constantFrom('kg' as const, 'lbs' as const),
  height_unit_preference: fc.constantFrom('cm' as const, 'ft_in' as const),
  bodyweight_unit_preference: fc.constantFrom('kg' as const, 'lbs' as const, 'stone' as const),
});
/** Each exercise id named in the catalog, or not (an exercise no longer there). */
const catalogs = fc
  .tuple(
    ...EXERCISE_IDS.map(() =>
      fc.option(
        fc.string({ unit: fc.constantFrom(...'abc XYZ<&é'), minLength: 1, maxLength: 12 }).filter((t) => t.trim() !== ''),
        { nil: null },
      ),
    ),
  )
  .map((names) => new Map(EXERCISE_IDS.map((id, i) => [id, names[i]!])));

// ---------------------------------------------------------------------------------------------
// What the athlete should read, worked out here

const KG_PER_LB = 0.45359237;
const fix = (n: number, digits: number) => {
  const r = Math.round(n * 10 ** digits) / 10 ** digits;
  return Object.is(r, -0) ? '0' : String(r);
};
const instant = (iso: string, tz: string) => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: tz }).format(new Date(iso));
const day = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );
const mass = (kg: number, p: Profile) => (p.unit_preference === 'lbs' ? `${fix(kg / KG_PER_LB, 1)} lb` : `${fix(kg, 2)} kg`);
function stonesOf(kg: number): string {
  let st = Math.floor(kg / 6.35029318);
  let lb = Math.round(((kg - st * 6.35029318) / KG_PER_LB) * 10) / 10;
  if (lb >= 14) [st, lb] = [st + 1, lb - 14];
  return `${st} st ${fix(lb, 1)} lb`;
}
const bodyweight = (kg: number, p: Profile) =>
  p.bodyweight_unit_preference === 'kg' ? `${fix(kg, 1)} kg` : p.bodyweight_unit_preference === 'lbs' ? `${fix(kg / KG_PER_LB, 1)} lb` : stonesOf(kg);
function clock(s: number): string {
  if (s < 60) return `${s} s`;
  const two = (n: number) => String(n).padStart(2, '0');
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}
function bodyLength(m: number, metric: string, p: Profile): string {
  if (p.height_unit_preference === 'cm') return `${fix(m * 100, 1)} cm`;
  const inches = m / 0.0254;
  if (metric !== 'height') return `${fix(inches, 1)} in`;
  let feet = Math.floor(inches / 12);
  let rest = Math.round(inches - feet * 12);
  if (rest === 12) [feet, rest] = [feet + 1, 0];
  return `${feet} ft ${rest} in`;
}
function goalTarget(v: number, goal: Body, p: Profile): string {
  if (goal.target_unit === 'kg' || goal.target_unit === 'lbs') {
    const kg = goal.target_unit === 'lbs' ? v * KG_PER_LB : v;
    const amount = goal.goal_type === 'target_bodyweight' ? bodyweight(kg, p) : mass(kg, p);
    return goal.goal_type === 'weekly_volume' ? `${amount} lifted a week` : amount;
  }
  if (goal.target_unit === 'sessions') return `${fix(v, 2)} ${v === 1 ? 'workout' : 'workouts'} a week`;
  if (goal.target_unit === 'kcal') return `${fix(v, 0)} kcal a day`;
  return `${fix(v, 1)} g of protein a day`;
}

interface Ctx {
  profile: Profile;
  names: Map<string, string | null>;
}

/** An item's place among the items of its list: 1 + the items with a smaller key. */
const rankOf = (items: Body[], key: string, item: Body) => 1 + items.filter((x) => (x[key] as number) < (item[key] as number)).length;

/** Expected text of one value; null where the page shows it by place (`order`) or inside another field (`within`). */
function expected(format: Format, value: unknown, siblings: Body, list: Body[] | null, ctx: Ctx): string | null {
  if (typeof format === 'object') return 'within' in format ? null : value === null ? '—' : format.words[String(value)]!;
  if (format === 'order') return null;
  if (Array.isArray(value)) return value.length ? value.map((v) => expected(format, v, siblings, list, ctx)).join(', ') : 'None';
  if (value === null) return format === 'superset' ? 'None' : '—';
  const p = ctx.profile;
  const n = value as number;
  switch (format) {
    case 'text':
      return String(value);
    case 'instant':
      return instant(String(value), p.timezone);
    case 'local_date':
      return day(String(value));
    case 'mass':
      return mass(n, p);
    case 'distance':
      return p.unit_preference === 'lbs' ? `${fix(n / 1609.344, 2)} mi` : n < 1000 ? `${fix(n, 0)} m` : `${fix(n / 1000, 2)} km`;
    case 'seconds':
      return clock(n);
    case 'minutes':
      return `${n} min`;
    case 'kcal':
      return `${fix(n, 0)} kcal`;
    case 'grams':
      return `${fix(n, 1)} g`;
    case 'count':
      return String(n);
    case 'rpe':
      return fix(n, 1);
    case 'percent':
      return `${fix(n, 1)} %`;
    case 'yes_no':
      return value ? 'Yes' : 'No';
    case 'check_in_scale':
      return `${n} of 5`;
    case 'training_days':
      return `${n} ${n === 1 ? 'day' : 'days'} a week`;
    case 'exercise':
      return ctx.names.get(String(value)) ?? 'an exercise not in your catalog';
    case 'superset': {
      // Lettered by the order of each superset's first exercise.
      const order = [...list!].sort((a, b) => (a.exercise_order as number) - (b.exercise_order as number));
      const ids = [...new Set(order.map((e) => e.superset_id).filter((id) => id !== null))];
      const i = ids.indexOf(value);
      return `Superset ${i < 26 ? String.fromCharCode(65 + i) : `A${String.fromCharCode(65 + i - 26)}`}`;
    }
    case 'parent_set': {
      const parent = list!.find((s) => s.position === value);
      return parent ? `Set ${String(parent.set_number)}` : 'a set not in this exercise';
    }
    case 'body_value':
      return siblings.metric === 'body_fat'
        ? `${fix(n, 1)} %`
        : siblings.metric === 'bodyweight'
          ? bodyweight(n, p)
          : bodyLength(n, String(siblings.metric), p);
    case 'goal_target':
      return goalTarget(n, siblings, p);
  }
}

interface Leaf {
  /** Where in the body: `exercises.1.sets.0.reps`. */
  path: string;
  /** The same, items named by their keys instead: `exercises[3].sets[0].reps`, to find it in another body. */
  keyed: string;
  format: Format;
  /** The field's usual value, which a table may leave out with nulls. */
  usual: unknown;
  /** In a list: a table may leave out a column of only nulls and usual values. */
  inList: boolean;
  text: string | null;
  rank: number | null;
}

/** Every field of a body, with the text the athlete should read. Fails on a field the words table has no row for. */
function leaves(rows: Record<string, Row>, body: Body, ctx: Ctx, prefix = '', keyedPrefix = '', list: Body[] | null = null): Leaf[] {
  return Object.entries(body).flatMap(([field, value]): Leaf[] => {
    const row = rows[field];
    assert.ok(row, `${prefix}${field} has no row in the words table (services/words/record-fields.ts)`);
    if ('fields' in row) {
      const items = value as Body[];
      return items.flatMap((item, i) => leaves(row.fields, item, ctx, `${prefix}${field}.${i}.`, `${keyedPrefix}${field}[${String(item[row.key])}].`, items));
    }
    const rank = row.format === 'order' ? rankOf(list!, field, body) : null;
    return [
      {
        path: `${prefix}${field}`,
        keyed: `${keyedPrefix}${field}`,
        format: row.format,
        usual: row.usual,
        inList: list !== null,
        text: expected(row.format, value, body, list, ctx),
        rank,
      },
    ];
  });
}

// ---------------------------------------------------------------------------------------------
// What the page shows

const unescapeHtml = (s: string) =>
  s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');

/** Each value the page marks with `data-field` (new or only) or `data-field-before` (old): its text and, for places, its rank. */
function shownOn(page: string): { after: Map<string, { text: string; rank: string | null }>; before: Map<string, { text: string; rank: string | null }> } {
  const after = new Map<string, { text: string; rank: string | null }>();
  const before = new Map<string, { text: string; rank: string | null }>();
  for (const m of page.matchAll(/(data-field(?:-before)?)="([^"]+)"(?: data-rank="(\d+)")?[^>]*>([^<]*)/g)) {
    const into = m[1] === 'data-field' ? after : before;
    assert.not.ok(into.has(m[2]!), `${m[1]}="${m[2]}" is on the page twice`);
    into.set(m[2]!, { text: unescapeHtml(m[4]!), rank: m[3] ?? null });
  }
  return { after, before };
}

/** The leaf is on the page as expected; a leaf in a list at null or its usual value may be left out with its column. */
function assertShown(leaf: Leaf, shown: Map<string, { text: string; rank: string | null }>, side: string): void {
  const found = shown.get(leaf.path);
  const mayBeLeftOut =
    leaf.inList &&
    (leaf.text === '—' ||
      leaf.text === 'None' ||
      (leaf.usual !== undefined && leaf.text === expected(leaf.format, leaf.usual, {}, null, { profile: null!, names: new Map() })));
  if (!found) {
    assert.ok(mayBeLeftOut, `${side} ${leaf.path} is not on the page (expected "${leaf.text ?? `place ${leaf.rank}`}")`);
    return;
  }
  if (leaf.rank !== null) assert.is(found.rank, String(leaf.rank), `${side} ${leaf.path} is at place ${found.rank}, expected ${leaf.rank}`);
  // An update whose value reads the same but is not says so after it: "100 kg (changed by less than is shown)".
  else if (leaf.text !== null)
    assert.ok(found.text === leaf.text || found.text.startsWith(`${leaf.text} (`), `${side} ${leaf.path} reads "${found.text}", expected "${leaf.text}"`);
}

/** The page's text without its markup: what a person reads. */
const readable = (page: string) => unescapeHtml(page.replace(/<script>[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' '));

// ---------------------------------------------------------------------------------------------

const NOW = new Date('2026-11-27T12:00:00.000Z');
const COMMAND = '0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11';
const ITEM = '5a3c2b1d-0000-4000-8000-000000000001';

function pageOf(kind: WriteKind, op: 'create' | 'update', record: Body, current: Body | null, ctx: Ctx): string {
  const doc: ProposalDoc = {
    id: COMMAND,
    grant_id: '7c1e0d2a-0000-4000-8000-000000000002',
    client_id: 'https://coach.example/client.json',
    client_name: 'Coach <Claude>',
    status: 'prepared',
    open: true,
    prepared_at: '2026-11-27T11:50:00.000Z',
    expires_at: '2026-11-27T12:20:00.000Z',
    decided_at: null,
    changes: [{ index: 0, op, kind, id: ITEM, area: 'training', base_revision: op === 'create' ? null : 3 }],
    prepared_revision: 4,
    receipt: null,
    affected: null,
    committed_revision: null,
    undone_at: null,
    conflict: null,
  };
  const review: ProposalReview = {
    doc,
    status: 'prepared',
    details: { actions: [{ op, kind, id: ITEM, base_revision: op === 'create' ? null : 3, ref: null, record: record as never }], reason: null },
    before: null,
    changes: [{ op, kind, record, current }],
    stale: [],
    exerciseName: (id) => ctx.names.get(id) ?? null,
    receipt: null,
    receiptItems: new Map(),
    undoDeadline: null,
  };
  return reviewPage(review, ctx.profile, NOW, 'csrf-token').value;
}

/** Whether the athlete's units hold no kilogram: then no kilogram may show, whatever the body says. */
const noKilograms = (p: Profile) => p.unit_preference === 'lbs' && p.bodyweight_unit_preference !== 'kg';

for (const kind of writeKinds) {
  test(`${kind}: every field of a proposed new record is on the review page as the athlete reads it`, () => {
    let lists = 0;
    fc.assert(
      fc.property(writeRecordArbitrary(kind), profiles, catalogs, (record, profile, names) => {
        const ctx = { profile, names };
        const page = pageOf(kind, 'create', record, null, ctx);
        const shown = shownOn(page);
        const all = leaves(RECORD_FIELDS[kind] as unknown as Record<string, Row>, record, ctx);
        if (all.some((l) => l.inList)) lists++;
        for (const leaf of all) assertShown(leaf, shown.after, 'new');
        const text = readable(page);
        assert.not.match(text, /\w_\w/, 'no internal names');
        if (noKilograms(profile)) assert.not.match(text, /\d kg\b/, 'no kilograms for an athlete who weighs in pounds');
      }),
      { numRuns: 120, includeErrorInReport: true },
    );
    if ('exercises' in RECORD_FIELDS[kind]) assert.ok(lists > 20, `lists with items were generated ${lists} times`);
  });

  test(`${kind}: a change shows every field of the new body, and every old value that reads otherwise`, () => {
    let differ = 0;
    fc.assert(
      fc.property(writeRecordArbitrary(kind), writeRecordArbitrary(kind), profiles, catalogs, (before, after, profile, names) => {
        const ctx = { profile, names };
        const page = pageOf(kind, 'update', after, before, ctx);
        const shown = shownOn(page);
        const rows = RECORD_FIELDS[kind] as unknown as Record<string, Row>;
        const now = leaves(rows, after, ctx);
        for (const leaf of now) assertShown(leaf, shown.after, 'new');
        const byKey = new Map(now.map((l) => [l.keyed, l]));
        for (const leaf of leaves(rows, before, ctx)) {
          const counterpart = byKey.get(leaf.keyed);
          if (counterpart && (counterpart.text === leaf.text || leaf.text === null)) continue;
          if (leaf.rank !== null) continue;
          differ++;
          assertShown(leaf, shown.before, 'old');
        }
        if (noKilograms(profile)) assert.not.match(readable(page), /\d kg\b/, 'no kilograms for an athlete who weighs in pounds');
      }),
      { numRuns: 120, includeErrorInReport: true },
    );
    assert.ok(differ > 100, `old values that read otherwise were checked ${differ} times`);
  });
}

test.run();
