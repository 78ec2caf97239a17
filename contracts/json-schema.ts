// JSON Schemas as MCP tools carry them: every tool's schemas go into a model's context on each
// tools/list, so they are kept small. Patterns that restate a standard format (uuid, date,
// date-time: the SDK's validator checks formats) and the safe-integer bounds zod adds to every
// integer are dropped; a subschema that repeats within a schema (a workout's set, a text wrapper,
// a metadata block) is written once under $defs and referred to. A few zod schemas are shown to
// tools in a shorter form of their own (`withToolJsonSchema`).
import { z } from 'zod';

type Node = Record<string, unknown>;

const toolForms = new WeakMap<z.core.$ZodType, Readonly<Node> | (() => Readonly<Node>)>();

/**
 * Registers the JSON Schema tools show for `schema` instead of zod's: the JSON form of a value
 * whose zod schema also reads a query string's text, or a pointer to where a long shape is given
 * when it is needed (the write shapes of record kinds, in get_write_context). A function is called
 * when the form is first needed: a form built with `toolJsonSchema` costs milliseconds that every
 * process loading the contract would pay, and only the MCP server's tool list asks.
 */
export function withToolJsonSchema<T extends z.ZodType>(schema: T, json: Readonly<Node> | (() => Readonly<Node>)): T {
  toolForms.set(schema, json);
  return schema;
}

function toolForm(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Node }): void {
  let form = toolForms.get(ctx.zodSchema);
  if (typeof form === 'function') toolForms.set(ctx.zodSchema, (form = form()));
  if (!form) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, form);
}

/**
 * A JSON Schema object for an MCP tool: no `$schema`, so validators of any draft accept it;
 * nullable values as `anyOf` branches of one type each, which clients that map tool schemas onto
 * single-type dialects (Gemini function declarations, for one) understand; compact. `exact`
 * leaves the registered tool forms out, for a schema that must spell out every field.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output', exact = false): Node {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', ...(exact ? {} : { override: toolForm }) });
  return shareRepeated(singleTyped(withoutRedundancy(rest)) as Node);
}

function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).map(
    ([key, value]) => [key, key === 'const' || key === 'enum' || key === 'default' ? value : singleTyped(value)] as const,
  );
  const { type, ...rest } = Object.fromEntries(entries) as { type?: unknown } & Record<string, unknown>;
  if (!Array.isArray(type)) return Object.fromEntries(entries);
  return { anyOf: type.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...rest })) };
}

const FORMATS_WITHOUT_PATTERN = new Set(['uuid', 'date', 'date-time']);

/** Keywords whose value is a subschema, a list of them, or a map of them (JSON Schema 2020-12). */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs'];

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each subschema slot of a node: its value, and how to replace it. */
function slots(node: Node): Array<{ value: Node; set: (v: Node) => void }> {
  const out: Array<{ value: Node; set: (v: Node) => void }> = [];
  for (const key of ONE) {
    const v = node[key];
    if (isNode(v)) out.push({ value: v, set: (n) => (node[key] = n) });
  }
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((v, i) => isNode(v) && out.push({ value: v, set: (n) => (list[i] = n) }));
  }
  for (const key of MAP) {
    const map = node[key];
    if (isNode(map)) for (const [name, v] of Object.entries(map)) if (isNode(v)) out.push({ value: v, set: (n) => (map[name] = n) });
  }
  return out;
}

/** Drops what restates a format or the safe-integer range, and `type` beside a `const`. */
export function withoutRedundancy(node: Node): Node {
  const out: Node = { ...node };
  if (typeof out.format === 'string' && FORMATS_WITHOUT_PATTERN.has(out.format)) delete out.pattern;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  // A const or an enum of strings says the type already.
  if ('const' in out || (Array.isArray(out.enum) && out.enum.every((v) => typeof v === 'string'))) delete out.type;
  for (const slot of slots(out)) slot.set(withoutRedundancy(slot.value));
  return constObject(out) ?? out;
}

/** An object whose every property is required and constant is one constant: `units.canonical`. */
function constObject(node: Node): Node | null {
  const properties = node.properties;
  if (
    node.type !== 'object' ||
    node.additionalProperties !== false ||
    !isNode(properties) ||
    Object.keys(node).some((k) => !['type', 'properties', 'required', 'additionalProperties'].includes(k))
  )
    return null;
  const names = Object.keys(properties);
  const required = Array.isArray(node.required) ? node.required : [];
  if (
    names.length === 0 ||
    required.length !== names.length ||
    !names.every((n) => isNode(properties[n]) && 'const' in (properties[n] as Node) && Object.keys(properties[n] as Node).length === 1)
  )
    return null;
  return { const: Object.fromEntries(names.map((n) => [n, (properties[n] as Node).const])) };
}

/** `JSON.stringify(node)`, with the JSON of its subschemas from `key`. */
function serialise(node: Node, key: (n: Node) => string): string {
  const value = (k: string, v: unknown): string => {
    if (ONE.includes(k) && isNode(v)) return key(v);
    if (LIST.includes(k) && Array.isArray(v)) return `[${v.map((x) => (isNode(x) ? key(x) : JSON.stringify(x))).join(',')}]`;
    if (MAP.includes(k) && isNode(v))
      return `{${Object.entries(v)
        .map(([name, x]) => `${JSON.stringify(name)}:${isNode(x) ? key(x) : JSON.stringify(x)}`)
        .join(',')}}`;
    return JSON.stringify(v);
  };
  return `{${Object.entries(node)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${value(k, v)}`)
    .join(',')}}`;
}

/** Shorter than this, a $ref saves too little to be worth the indirection. */
const SHARE_AT_LEAST = 40;
const REF_COST = '{"$ref":"#/$defs/s00"}'.length;

/**
 * Moves subschemas that occur more than once into `$defs`, the largest saving first, until none
 * saves anything. The root keeps its own keywords; `$defs` holds the shared ones.
 */
function shareRepeated(schema: Node): Node {
  const { $defs: existing, ...rest } = schema;
  const root: Node = structuredClone(rest);
  const defs: Node = isNode(existing) ? structuredClone(existing) : {};
  const holders = () => [root, ...Object.values(defs).filter(isNode)];
  for (let n = 0; ; n++) {
    const counts = new Map<string, number>();
    // Each subschema's JSON once, built from its children's: stringifying every subtree afresh
    // costs its depth over again, and tools are listed on every server start.
    const keys = new Map<Node, string>();
    const key = (node: Node): string => {
      let k = keys.get(node);
      if (k === undefined) {
        k = serialise(node, key);
        keys.set(node, k);
      }
      return k;
    };
    const count = (node: Node) => {
      for (const { value } of slots(node)) {
        const k = key(value);
        counts.set(k, (counts.get(k) ?? 0) + 1);
        count(value);
      }
    };
    for (const h of holders()) count(h);
    let best: string | null = null;
    let saving = 0;
    for (const [key, c] of counts) {
      const s = (c - 1) * key.length - c * REF_COST;
      if (c > 1 && key.length >= SHARE_AT_LEAST && s > saving) [best, saving] = [key, s];
    }
    if (best === null) break;
    const name = `s${n}`;
    const ref = { $ref: `#/$defs/${name}` };
    const replace = (node: Node) => {
      for (const slot of slots(node)) {
        if (key(slot.value) === best) slot.set(ref);
        else replace(slot.value);
      }
    };
    for (const h of holders()) replace(h);
    defs[name] = JSON.parse(best);
  }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}
