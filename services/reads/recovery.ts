// list_recovery_checkins: the athlete's daily check-ins in a window, newest date first.
import type { ListQuery, RecoveryCheckins } from '../../contracts/agent-access.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { decodeCursor, encodeCursor } from '../api/cursor.ts';
import type { Caller } from '../http/agent-access.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { resolveWindow, windowOfCursor } from './window.ts';

type CheckinDoc = ItemDoc & RecordItem<'checkin'>;
const OPERATION = 'list_recovery_checkins';

export async function listRecoveryCheckins(reads: ReadStore, caller: Caller, query: ListQuery, now: Date, cursorKey: Buffer): Promise<RecoveryCheckins> {
  const athleteId = caller.athlete.athlete_id;
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: OPERATION, athleteId }, query.cursor) : null;
  const window = issued ? windowOfCursor(query, issued.filters) : resolveWindow(query, caller.athlete.profile.timezone, now);
  const docs = await reads.page<CheckinDoc>('checkins', {
    partition: athleteId,
    index: 'by_date',
    direction: 'desc',
    range: { gte: window.from, lte: window.to },
    limit: query.limit + 1,
    ...(issued ? { after: issued.after } : {}),
  });
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    window,
    scale: { minimum: 1, maximum: 5, higher_is_better: true, soreness_five_means: 'no_soreness' },
    items: page.map((c) => ({
      date: c.date,
      sleep_quality: c.sleep_quality,
      energy: c.energy,
      soreness: c.soreness,
      stress: c.stress,
      updated_at: c.updated_at,
      provenance: 'self_reported',
    })),
    next_cursor: docs.length > query.limit && last ? encodeCursor(cursorKey, { operation: OPERATION, athleteId, filters: { ...window } }, [last.date, last.id]) : null,
  };
}
