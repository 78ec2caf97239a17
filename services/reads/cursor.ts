// Opaque, tamper-evident cursors. A cursor names the operation, the athlete and the window it was
// issued for, and the position after which the next page starts; an HMAC makes a forged, altered
// or foreign cursor a 400, never another athlete's data.
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LIMITS } from '../../contracts/common.ts';
import type { KeyValue } from '../store/read-store.ts';
import { DomainError } from '../domain/errors.ts';

export interface CursorBinding {
  operation: string;
  athleteId: string;
  /** Everything else that selects the items: the resolved window, a path id. */
  filters: Record<string, string | null>;
}

interface Payload {
  o: string;
  a: string;
  f: Record<string, string | null>;
  k: KeyValue[];
}

const sign = (key: KeyObject, body: string) => createHmac('sha256', key).update(body).digest().subarray(0, 16);

export function encodeCursor(key: KeyObject, binding: CursorBinding, after: KeyValue[]): string {
  const body = Buffer.from(JSON.stringify({ o: binding.operation, a: binding.athleteId, f: binding.filters, k: after } satisfies Payload)).toString(
    'base64url',
  );
  const cursor = `${body}.${sign(key, body).toString('base64url')}`;
  if (cursor.length > LIMITS.cursorLength.max) throw new Error('cursor longer than the spec allows');
  return cursor;
}

/** The keyset position and the filters the cursor was issued for; refuses any other cursor. */
export function decodeCursor(
  key: KeyObject,
  expected: Omit<CursorBinding, 'filters'>,
  cursor: string,
): { after: KeyValue[]; filters: Record<string, string | null> } {
  const refuse = () => new DomainError('invalid_input', 'cursor: not a cursor this operation issued; pass next_cursor back unchanged');
  const [body, mac] = cursor.split('.');
  if (!body || !mac) throw refuse();
  const given = Buffer.from(mac, 'base64url');
  const wanted = sign(key, body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw refuse();
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  if (payload.o !== expected.operation || payload.a !== expected.athleteId) throw refuse();
  return { after: payload.k, filters: payload.f };
}
