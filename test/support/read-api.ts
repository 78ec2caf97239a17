// Read API v1 calls for tests: a bot token, a GET that checks the response contract and headers,
// and a refusal checked for its status, shape and headers.
import * as assert from 'uvu/assert';
import type { z } from 'zod';
import { readApiError, readApiOperations, type ReadApiOperationId } from '../../contracts/read-api.ts';
import type { App } from '../../services/app.ts';

export async function botToken(app: App, athleteId: string, name = 'Stats bot'): Promise<string> {
  return (await app.botTokens.create(athleteId, name, { type: 'athlete', id: athleteId })).token;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Every Read API answer, success or refusal, carries these. */
function assertCommonHeaders(res: Response): void {
  assert.is(res.headers.get('cache-control'), 'private, no-store');
  assert.ok(res.headers.get('x-request-id'), 'X-Request-Id');
}

/** GET a route as a bot: a 200 whose body the route's strict contract accepts, with its request id. */
export async function readApi<Op extends ReadApiOperationId>(
  base: string,
  token: string,
  op: Op,
  path: string,
): Promise<z.infer<(typeof readApiOperations)[Op]['response']>['data']> {
  const res = await fetch(`${base}${path}`, { headers: bearer(token) });
  const text = await res.text();
  assert.is(res.status, 200, `${path}: ${text}`);
  assertCommonHeaders(res);
  // What the bot token has left, as Agent Access states a connection's (services/http/rate-limit.ts).
  assert.match(res.headers.get('ratelimit-policy') ?? '', /^"bot_token";q=\d+;w=\d+$/, 'RateLimit-Policy');
  assert.match(res.headers.get('ratelimit') ?? '', /^"bot_token";r=\d+;t=\d+$/, 'RateLimit');
  const parsed = readApiOperations[op].response.safeParse(JSON.parse(text));
  assert.ok(parsed.success, parsed.success ? '' : `${path}: ${JSON.stringify(parsed.error.issues, null, 1)}`);
  const body = parsed.data as { data: unknown; request_id: string };
  assert.is(body.request_id, res.headers.get('x-request-id'));
  return body.data as never;
}

/** A refusal: its status, the Read API error shape with its code, and the headers it must carry. */
export async function assertRefusal(res: Response, status: number, code: string): Promise<{ code: string; message: string; request_id: string }> {
  const text = await res.text();
  assert.is(res.status, status, text);
  assertCommonHeaders(res);
  const parsed = readApiError.safeParse(JSON.parse(text));
  assert.ok(parsed.success, `error shape: ${text}`);
  const { error } = parsed.data!;
  assert.is(error.code, code, text);
  assert.is(error.request_id, res.headers.get('x-request-id'));
  if (status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="RepLedger Read API"/);
  if (status === 429 || status === 503) assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  return error;
}

/** Every page of a list route, `limit` at a time; the items in the order served. */
export async function pageAll<Op extends 'list_workouts' | 'list_saved_workouts'>(base: string, token: string, op: Op, path: string, limit: number) {
  type Item = z.infer<(typeof readApiOperations)[Op]['response']>['data']['items'][number];
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const data = (await readApi(base, token, op, `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as {
      items: Item[];
      next_cursor: string | null;
    };
    assert.ok(data.items.length === limit || data.next_cursor === null, 'only the last page is short');
    items.push(...data.items);
    cursor = data.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}
