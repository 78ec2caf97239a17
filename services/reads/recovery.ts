// list_recovery_checkins: the athlete's daily check-ins in a window, newest date first.
import type { KeyObject } from 'node:crypto';
import type { ListQuery, RecoveryCheckins } from '../../contracts/agent-access.ts';
import type { ItemDoc } from '../../projections/items.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { windowedPage, type WindowedList } from './lists.ts';

type CheckinDoc = ItemDoc & RecordItem<'checkin'>;

export const checkinsList: WindowedList<CheckinDoc> = {
  operation: 'list_recovery_checkins',
  collection: 'checkins',
  index: 'by_date',
  keyOf: (c) => [c.date, c.id],
};

export async function listRecoveryCheckins(reads: ReadStore, owner: RecordOwner, query: ListQuery, now: Date, cursorKey: KeyObject): Promise<RecoveryCheckins> {
  const { window, docs, next_cursor } = await windowedPage(reads, owner, query, now, cursorKey, checkinsList);
  return {
    window,
    scale: { minimum: 1, maximum: 5, higher_is_better: true, soreness_five_means: 'no_soreness' },
    items: docs.map((c) => ({
      date: c.date,
      sleep_quality: c.sleep_quality,
      energy: c.energy,
      soreness: c.soreness,
      stress: c.stress,
      updated_at: c.updated_at,
      provenance: 'self_reported',
    })),
    next_cursor,
  };
}
