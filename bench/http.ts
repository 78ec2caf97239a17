// One HTTP exchange with node:http, keeping the response bytes exactly as they came: the ceiling
// server replays them, so they must not pass through a client that decodes or re-encodes them.
import { request as httpRequest } from 'node:http';

export interface BenchRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** Without the Authorization header: tokens are added when the request is sent. */
  headers: Record<string, string>;
  body?: string;
}

export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function withBearer(request: BenchRequest, token: string): BenchRequest {
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
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
    outgoing.end(req.body);
  });
}

/** `send`, insisting on a 200 with a JSON body. */
export async function getJson(base: string, req: BenchRequest): Promise<unknown> {
  const res = await send(base, req);
  if (res.status !== 200) throw new Error(`${req.method} ${req.path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(res.body.toString('utf8')) as unknown;
}
