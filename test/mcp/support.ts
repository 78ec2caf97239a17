// Calling the same operation over MCP and over REST, and comparing what came back.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'uvu/assert';
import { operations, type ImplementedOperation } from '../../contracts/operations.ts';

/** The REST URL of an operation for tool arguments: path parameters in the path, the rest as query. */
export function restUrl(base: string, name: ImplementedOperation, args: Record<string, unknown>): string {
  const op = operations[name];
  const query = new URLSearchParams();
  let path = op.path;
  for (const [key, value] of Object.entries(args)) {
    if (path.includes(`{${key}}`)) path = path.replace(`{${key}}`, encodeURIComponent(String(value)));
    else query.set(key, String(value));
  }
  return `${base}${path}${query.size ? `?${query}` : ''}`;
}

/** An MCP SDK client on /mcp with a bearer token the test already has. */
export async function mcpClient(base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** An envelope without what differs between two calls: the request id and the time of the answer. */
export function comparable(envelope: unknown): unknown {
  const { request_id: _id, as_of: _asOf, ...rest } = envelope as Record<string, unknown>;
  return rest;
}

/** A successful tool result: structured content valid against the operation's strict contract, and the same JSON as text. */
export function envelopeOf(name: ImplementedOperation, result: CallToolResult): Record<string, unknown> {
  assert.not.ok(result.isError, JSON.stringify(result.content));
  const parsed = operations[name].response.safeParse(result.structuredContent);
  assert.ok(parsed.success, `${name}: ${parsed.error?.message}`);
  const text = result.content.find((c) => c.type === 'text');
  assert.equal(JSON.parse(text?.type === 'text' ? text.text : 'null'), result.structuredContent, `${name}: the text is the structured content`);
  return result.structuredContent as Record<string, unknown>;
}

/** A tool error's shared error body. */
export function toolErrorOf(result: CallToolResult): { code: string; message: string; request_id: string } {
  assert.ok(result.isError, 'expected a tool error');
  const text = result.content.find((c) => c.type === 'text');
  return (JSON.parse(text?.type === 'text' ? text.text : '{}') as { error: { code: string; message: string; request_id: string } }).error;
}
