// The athlete's access history (issue 14, part 4): what each connection read, counted per
// operation and hour rather than noted per request. Pure: folding calls into counts, merging
// counts that several service instances wrote, cutting off what retention removes, and grouping
// by the athlete's local day. Where the counts are kept is services/access-log.ts.
import { ACCESS_HISTORY_DAYS } from '../../contracts/policy.ts';
import { localDateOf } from './time.ts';

export { ACCESS_HISTORY_DAYS };

const HOUR_MS = 3_600_000;

/** What was counted for one bucket: successful calls, the items their answers held, the last call. */
export interface AccessCount {
  calls: number;
  items: number;
  /** ISO instant of the latest call counted. */
  last_at: string;
}

/** One bucket: a connection's reads with one operation within one UTC hour. */
export interface AccessBucketKey {
  athlete_id: string;
  grant_id: string;
  operation: string;
  /** The operation's area, null for those that read no area (the access context, write reads). */
  scope: string | null;
  /** ISO instant of the hour's start (UTC). */
  hour: string;
}

export type AccessBucket = AccessBucketKey & AccessCount;

/** The start of the UTC hour an instant falls in, as an ISO instant. */
export function hourOf(atMs: number): string {
  return new Date(Math.floor(atMs / HOUR_MS) * HOUR_MS).toISOString();
}

/** Two counts of the same bucket as one: sums, and the later of the two last calls. */
export function mergeCounts(a: AccessCount, b: AccessCount): AccessCount {
  return { calls: a.calls + b.calls, items: a.items + b.items, last_at: a.last_at >= b.last_at ? a.last_at : b.last_at };
}

/** One successful call answering `items` items, made at `atMs`. */
export function countOf(items: number, atMs: number): AccessCount {
  return { calls: 1, items, last_at: new Date(atMs).toISOString() };
}

/**
 * How many items an answer gave: the length of its page for a list, 1 for a single-item read.
 * Takes the envelope's `data`.
 */
export function itemsIn(data: unknown): number {
  const items = (data as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.length : 1;
}

/** The earliest hour retention keeps at `nowMs`: buckets before it are deleted, and never shown. */
export function retentionStart(nowMs: number, days = ACCESS_HISTORY_DAYS): string {
  return hourOf(nowMs - days * 24 * HOUR_MS);
}

/** Per operation over a whole period, and per local day and operation. */
export interface OperationTotal extends AccessCount {
  operation: string;
  scope: string | null;
}

export interface DayTotal extends OperationTotal {
  /** The athlete's local date (YYYY-MM-DD) of the bucket's hour. */
  date: string;
}

export interface ReadSummary {
  /** Newest first by last call. */
  operations: OperationTotal[];
  /** Newest day first; within a day, the most recently used operation first. */
  days: DayTotal[];
}

/**
 * Sums the buckets from `since` on (each instance wrote its own; a reader adds them up) into totals
 * per operation and per local day in `timeZone`. A bucket counts on the local day its hour starts
 * in: in a zone whose offset is not whole hours, calls of the half hour before local midnight land
 * on the day before.
 */
export function summariseReads(buckets: ReadonlyArray<AccessBucket>, since: string, timeZone: string): ReadSummary {
  const operations = new Map<string, OperationTotal>();
  const days = new Map<string, DayTotal>();
  for (const b of buckets) {
    if (b.hour < since) continue;
    const count: AccessCount = { calls: b.calls, items: b.items, last_at: b.last_at };
    const op = operations.get(b.operation);
    operations.set(b.operation, op ? { ...op, ...mergeCounts(op, count) } : { operation: b.operation, scope: b.scope, ...count });
    const date = localDateOf(b.hour, timeZone);
    const dayKey = `${date} ${b.operation}`;
    const day = days.get(dayKey);
    days.set(dayKey, day ? { ...day, ...mergeCounts(day, count) } : { date, operation: b.operation, scope: b.scope, ...count });
  }
  const byLast = (a: AccessCount, b: AccessCount) => b.last_at.localeCompare(a.last_at);
  return {
    operations: [...operations.values()].sort(byLast),
    days: [...days.values()].sort((a, b) => b.date.localeCompare(a.date) || byLast(a, b)),
  };
}
