// Random records of every write kind, generated from the write-shape schemas themselves
// (contracts/write.ts): a field added to a schema is generated with no change here, so a test that
// checks every generated field (test/web/review-fields.test.ts) fails until the field is shown.
// Rules across fields the schemas cannot state (each list key once) come from the words table's
// list keys; the values stay within each field's bounds.
import fc from 'fast-check';
import { writeRecordSchemas, type WriteKind } from '../../contracts/write.ts';
import { RECORD_FIELDS } from '../../services/words/record-fields.ts';

/** Zod's own description of a schema (zod 4's `_zod.def`), as far as the write shapes use it. */
interface Def {
  type: string;
  innerType?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
  options?: Schema[];
  entries?: Record<string, string>;
  format?: string;
  checks?: Array<{ _zod: { def: { check: string; maximum?: number; minimum?: number } } }>;
}
interface Schema {
  _zod: { def: Def };
  minLength?: number | null;
  maxLength?: number | null;
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
  shape?: Record<string, Schema>;
}

/** Text the client may write, markup and quotes included: a page must show it as text. */
const TEXT_UNITS = fc.constantFrom(...'abcXYZ <>&"\'é1 ');

/** The exercise ids records refer to: a test names some of them and leaves the rest unknown. */
export const EXERCISE_IDS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];

const INSTANTS = fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2030-12-31T23:59:59Z') }).map((ms) => new Date(ms).toISOString());
const DATES = INSTANTS.map((iso) => iso.slice(0, 10));

/** The words table's row of a field: a list's row says the key its items are told apart by. */
type Row = { fields?: Record<string, Row>; key?: string } | undefined;

/**
 * A generator for `schema`, walked beside the field's row of the words table: lists of objects
 * hold each key once (a workout's exercise orders, an exercise's set positions), as valid records do.
 */
function arbitraryOf(schema: Schema, name: string, row: Row): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  switch (def.type) {
    case 'nullable':
      return fc.option(arbitraryOf(def.innerType!, name, row), { nil: null, freq: 3 });
    case 'object': {
      const shape = schema.shape ?? def.shape!;
      return fc.record(Object.fromEntries(Object.entries(shape).map(([field, s]) => [field, arbitraryOf(s, field, row?.fields?.[field])])));
    }
    case 'array': {
      const max = Math.min(4, def.checks?.find((c) => c._zod.def.check === 'max_length')?._zod.def.maximum ?? 4);
      const element = arbitraryOf(def.element!, name, row);
      const key = row?.key;
      if (key) return fc.uniqueArray(element as fc.Arbitrary<Record<string, unknown>>, { maxLength: max, selector: (item) => item[key] });
      return fc.uniqueArray(element, { maxLength: max });
    }
    case 'union': {
      // A reference is an id or a {ref} that preparation resolves: a proposal's actions hold ids.
      const id = def.options!.find((o) => o._zod.def.type === 'string')!;
      return arbitraryOf(id, name, row);
    }
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries!));
    case 'boolean':
      return fc.boolean();
    case 'string':
      if (def.format === 'datetime') return INSTANTS;
      if (def.format === 'date') return DATES;
      if (def.format === 'uuid') return name === 'exercise_id' ? fc.constantFrom(...EXERCISE_IDS) : fc.uuid({ version: 4 });
      return fc
        .string({ unit: TEXT_UNITS, minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) })
        .filter((t) => t.trim().length > 0);
    case 'number': {
      const min = Math.max(schema.minValue ?? -1e6, -1e6);
      const max = Math.min(schema.maxValue ?? 1e6, 1e6);
      // Small places and set numbers, so that drop sets often name sets that are there.
      if (schema.isInt)
        return fc.integer({
          min,
          max: ['position', 'parent_position', 'exercise_order', 'set_number'].includes(name) ? Math.min(max, 6) : Math.min(max, 10_000),
        });
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0) && (min > 0 ? n > 0 : true));
    }
    default:
      throw new Error(`no generator for a ${def.type} (${name}): teach test/support/write-arbitrary.ts the new schema type`);
  }
}

/** A random record of `kind` in its write shape. */
export function writeRecordArbitrary(kind: WriteKind): fc.Arbitrary<Record<string, unknown>> {
  return arbitraryOf(writeRecordSchemas[kind] as unknown as Schema, kind, { fields: RECORD_FIELDS[kind] as unknown as Record<string, Row> }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}
