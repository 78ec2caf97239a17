// What a model reads of the tools, for a connection with every area and every write permission:
// tools/list within its budgets, and every input property described and bounded, so that a model
// learns the limits (a page of 10, a 90-day window) from the schema instead of from a refusal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_SCOPES } from '../../contracts/common.ts';
import { operationList } from '../../contracts/operations.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { mcpClient } from './support.ts';

/** What a model reads to choose and call a tool: its name, description and input schema. */
const MODEL_BUDGET = 16 * 1024;
/**
 * The whole answer to tools/list, output schemas included. Exact output schemas of 17 tools need
 * about 46 KB (each envelope alone is ~0.9 KB, and no $ref reaches from one tool to another), so
 * this is a ceiling that keeps them from growing back (they were 160 KB), not the 40 KB aimed at.
 */
const LIST_BUDGET = 68 * 1024;

type Schema = Record<string, unknown>;

/** A schema with its $refs followed (to the tool's own $defs). */
function resolved(schema: Schema, defs: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return resolved(defs[ref.replace('#/$defs/', '')] as Schema, defs);
}

/** Why a property's schema leaves a model to guess its limits, or null when it states them. */
function unbounded(schema: Schema, defs: Schema): string | null {
  const s = resolved(schema, defs);
  if ('const' in s || 'enum' in s) return null;
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    for (const branch of [...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])]) {
      const why = unbounded(branch, defs);
      if (why) return why;
    }
    return null;
  }
  switch (s.type) {
    case 'null':
    case 'boolean':
    case 'object':
      return null;
    case 'integer':
    case 'number':
      return s.minimum !== undefined || s.exclusiveMinimum !== undefined
        ? s.maximum !== undefined
          ? null
          : 'a number without maximum'
        : 'a number without minimum';
    case 'string':
      return s.format !== undefined || s.maxLength !== undefined || s.pattern !== undefined ? null : 'a string without format, maxLength or pattern';
    case 'array':
      return s.maxItems === undefined ? 'an array without maxItems' : unbounded(s.items as Schema, defs);
    default:
      return `no type (${JSON.stringify(s).slice(0, 80)})`;
  }
}

test('tools/list fits its budgets, and every input property has a description and bounds', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/mcp`, [...READ_SCOPES]);
    const [grant] = await s.app.connections.list(athleteId);
    await s.app.connections.setWritePermissions(athleteId, grant!.id, WRITE_PERMISSIONS, { onlyRemove: false });
    const client = await mcpClient(s.base, tokens.access_token);
    const listed = await client.listTools();
    await client.close();

    assert.equal(listed.tools.map((t) => t.name).sort(), operationList.map((op) => op.operationId).sort(), 'every operation is a tool');
    const modelBytes = listed.tools.reduce(
      (n, t) => n + Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
      0,
    );
    const listBytes = Buffer.byteLength(JSON.stringify(listed));
    console.log(`tools/list: ${listed.tools.length} tools; names, descriptions and input schemas ${modelBytes} bytes; whole list ${listBytes} bytes`);
    assert.ok(modelBytes < MODEL_BUDGET, `names, descriptions and input schemas: ${modelBytes} bytes, budget ${MODEL_BUDGET}`);
    assert.ok(listBytes < LIST_BUDGET, `the whole tools/list: ${listBytes} bytes, budget ${LIST_BUDGET}`);

    const faults: string[] = [];
    for (const tool of listed.tools) {
      const defs = (tool.inputSchema.$defs ?? {}) as Schema;
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}) as Array<[string, Schema]>) {
        const described = typeof property.description === 'string' || typeof resolved(property, defs).description === 'string';
        if (!described) faults.push(`${tool.name}.${name}: no description`);
        const why = unbounded(property, defs);
        if (why) faults.push(`${tool.name}.${name}: ${why}`);
      }
    }
    assert.equal(faults, []);
  } finally {
    await s.close();
  }
});

test.run();
