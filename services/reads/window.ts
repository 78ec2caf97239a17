// The date window of a list: local dates in the record timezone, both included.
import type { ListQuery } from '../../contracts/agent-access.ts';
import { DomainError } from '../domain/errors.ts';
import { addDays, todayIn } from '../domain/time.ts';

/** Without from/to, a list covers the 30 local days ending today. */
export const DEFAULT_WINDOW_DAYS = 30;

export interface Window {
  from: string;
  to: string;
}

export function resolveWindow(query: Pick<ListQuery, 'from' | 'to'>, timezone: string, now: Date): Window {
  if (query.from !== null && query.to !== null) return { from: query.from, to: query.to };
  const today = todayIn(timezone, now.getTime());
  return { from: addDays(today, -(DEFAULT_WINDOW_DAYS - 1)), to: today };
}

/**
 * The window of a follow-up page: the one its cursor was issued for. A request that names a window
 * must name the same one.
 */
export function windowOfCursor(query: Pick<ListQuery, 'from' | 'to'>, issued: Record<string, string | null>): Window {
  const from = issued.from ?? null;
  const to = issued.to ?? null;
  if (from === null || to === null) throw new DomainError('invalid_input', 'cursor: not a cursor of a windowed list');
  if (query.from !== null && (query.from !== from || query.to !== to)) {
    throw new DomainError('invalid_input', 'cursor: it was issued for another from/to window; pass the same window or none');
  }
  return { from, to };
}
