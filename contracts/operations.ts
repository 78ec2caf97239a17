// The operations table: one entry per Agent Access operation. It drives the tRPC procedures, the
// REST routes, the MCP tools and the OpenAPI document, so no surface defines an operation itself.
// Entries are added as operations are implemented.
import { z } from 'zod';
import { agentAccessData, envelope, type AgentAccessOperation } from './agent-access.ts';
import type { ReadScope } from './common.ts';

export interface Operation<Op extends AgentAccessOperation = AgentAccessOperation> {
  operationId: Op;
  method: 'GET';
  /** With `{name}` placeholders for path parameters. */
  path: string;
  scope: ReadScope | null;
  summary: string;
  description: string;
  /** Path and query parameters together; any other parameter is refused. */
  input: z.ZodObject;
  /** The whole response: the envelope of spec 2.1 around the operation's `data`. */
  response: z.ZodType;
}

function operation<Op extends AgentAccessOperation>(o: Omit<Operation<Op>, 'response' | 'method'>): Operation<Op> {
  return { ...o, method: 'GET', response: envelope(o.operationId, agentAccessData[o.operationId]) };
}

export const operations = {
  get_access_context: operation({
    operationId: 'get_access_context',
    path: '/v1/agent-access/context',
    scope: null,
    summary: 'What this connection may read',
    description:
      'The grant behind the token: its scopes, the record timezone and units, and the limits every read keeps (read-only, no background sync, at most 10 items a page, at most 90 days a range).',
    input: z.strictObject({}),
  }),
} as const satisfies Partial<Record<AgentAccessOperation, Operation>>;

export type ImplementedOperation = keyof typeof operations;
export const operationList: Operation[] = Object.values(operations);
