// Opaque, tamper-evident cursors. A cursor names the operation, the athlete and the window it was
// issued for, and the position after which the next page starts; an HMAC makes a forged, altered
// or foreign cursor a 400, never another athlete's data.
import type { KeyObject } from 'node:crypto';
import { LIMITS } from '../../contracts/common.ts';
import type { KeyValue } from '../store/read-store.ts';
import { DomainError } from '../domain/errors.ts';
import { signedPayload, signedToken } from '../domain/signed.ts';

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

export function encodeCursor(key: KeyObject, binding: CursorBinding, after: KeyValue[]): string {
  const cursor = signedToken(key, { o: binding.operation, a: binding.athleteId, f: binding.filters, k: after } satisfies Payload);
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
  const payload = signedPayload(key, cursor) as Payload | null;
  if (!payload || payload.o !== expected.operation || payload.a !== expected.athleteId) throw refuse();
  return { after: payload.k, filters: payload.f };
}
