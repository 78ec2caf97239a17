// An example for each operation of /openapi.json, derived from the JSON Schema the contracts give
// it: the smallest value the schema admits (required fields only, null where null is allowed, no
// more array items than required), with plausible strings for the formats. The tests check that
// each example passes the operation's zod schema, so an example cannot drift from the contract.

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const FORMATS: Record<string, string> = {
  'date-time': '2026-03-02T07:30:00Z',
  date: '2026-03-02',
  uuid: '0b5a4e52-6c1f-4d7e-9a3b-2f8c1d0e4a57',
  uri: 'https://repledger.example/review/0b5a4e52',
  url: 'https://repledger.example/review/0b5a4e52',
};

/** Strings for the patterns the contracts use, where a plain word would not match. */
function fromPattern(pattern: string, length: number): string {
  for (const candidate of ['a'.repeat(length), 'A'.repeat(length), '1'.repeat(length), 'a1b2c3d4e5f6a7b8'.slice(0, Math.max(length, 1))])
    if (new RegExp(pattern).test(candidate)) return candidate;
  return 'a'.repeat(length);
}

/**
 * What a JSON Schema cannot say: a rule across fields (zod refinements) or a value no pattern
 * gives (an IANA time zone). By property name, each turns the generated value into one that passes.
 */
export type ExampleHints = Record<string, (generated: unknown, example: (schema: unknown) => unknown) => unknown>;

/** The smallest value `schema` admits; `$ref`s are resolved against `schemas` (components.schemas). */
export function exampleOf(schema: unknown, schemas: Record<string, unknown>, hints: ExampleHints = {}, depth = 0): unknown {
  const ex = (s: unknown) => exampleOf(s, schemas, hints, depth + 1);
  if (!isNode(schema) || depth > 40) return null;
  if (typeof schema.$ref === 'string') return ex(schemas[schema.$ref.split('/').pop()!]);
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    const nullable = branches.some((b) => isNode(b) && b.type === 'null');
    return nullable ? null : ex(branches[0]);
  }
  const type = Array.isArray(schema.type) ? (schema.type.includes('null') ? 'null' : schema.type[0]) : schema.type;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      if (typeof schema.minimum === 'number') return schema.minimum;
      if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + 1;
      return 0;
    }
    case 'string': {
      if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format];
      const length = typeof schema.minLength === 'number' ? Math.max(schema.minLength, 1) : 1;
      return typeof schema.pattern === 'string' ? fromPattern(schema.pattern, length) : 'a'.repeat(length);
    }
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, () => ex(schema.items));
    }
    default: {
      const properties = isNode(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(
        required.map((name) => {
          const generated = ex(properties[name]);
          const hint = hints[name];
          return [name, hint ? hint(generated, ex) : generated];
        }),
      );
    }
  }
}
