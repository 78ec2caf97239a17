// One HTTP exchange with node:http, keeping the response bytes exactly as they came: the ceiling
// server replays them, so they must not pass through a client that decodes or re-encodes them.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';

/**
 * Stands in a request body for a uuid that must be new on every request sent: a command id,
 * which the server would otherwise answer as a replay of the first request's command.
 */
export const FRESH_UUID = '{{fresh-uuid}}';

export interface BenchRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** Without the Authorization header: tokens are added when the request is sent. */
  headers: Record<string, string>;
  /** May hold FRESH_UUID, replaced by a new uuid in every request sent (see `bodyToSend`). */
  body?: string;
  /** The HTTP status of a success: the operation's own (201 for a prepare), 200 for an MCP call. */
  expectedStatus: number;
}

export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function withBearer(request: BenchRequest, token: string): BenchRequest {
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
}

/** Whether each request sent must differ from the last (see FRESH_UUID). */
export function varies(req: BenchRequest): boolean {
  return req.body?.includes(FRESH_UUID) ?? false;
}

/** The body as one request sends it: each FRESH_UUID replaced by a new uuid. */
export function bodyToSend(req: BenchRequest): string | undefined {
  return varies(req) ? req.body!.replaceAll(FRESH_UUID, randomUUID()) : req.body;
}

export function send(base: string, req: BenchRequest): Promise<CapturedResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL(req.path, base), { method: req.method, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(bodyToSend(req));
  });
}

/** `send`, insisting on the request's success status and a JSON body. */
export async function getJson(base: string, req: BenchRequest): Promise<unknown> {
  const res = await send(base, req);
  if (res.status !== req.expectedStatus) throw new Error(`${req.method} ${req.path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(res.body.toString('utf8')) as unknown;
}
