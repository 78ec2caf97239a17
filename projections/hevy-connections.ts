// Athletes' Hevy connections, for the background sync to find whom to sync (one partition, by
// state) and for the settings page: connected, paused or disconnected, whose Hevy account, and
// the last run that changed the record (its `hevy.synced`). Never the key: the sealed API key is
// in the connection's events only.
import type { HevyConnectionEvent, HevySyncedEvent } from '../contracts/events.ts';
import type { Doc } from '../services/store/read-store.ts';
import { athleteOf, occurredAt, type Projection } from './projection.ts';

export const HEVY_CONNECTIONS = 'hevy_connections';
/** One partition for every athlete: the background sync lists the connected ones. */
export const HEVY_CONNECTIONS_PARTITION = 'all';

export interface HevyConnectionDoc extends Doc {
  /** The athlete's id. */
  athlete_id: string;
  connection_id: string | null;
  state: 'connected' | 'paused' | 'disconnected';
  hevy_user_name: string | null;
  connected_at: string | null;
  /** The last run that wrote to the record, and what it did. */
  last_synced_at: string | null;
  last_summary: HevySyncedEvent['data'] | null;
  /** The latest runs that wrote to the record, newest first (at most HISTORY_KEPT): the page's history. */
  history: Array<{ at: string; summary: HevySyncedEvent['data'] }>;
}

/** Runs kept in a connection's history; the log keeps every one. */
export const HISTORY_KEPT = 10;

export const hevyConnectionsProjection: Projection = {
  name: 'hevy_connections',
  collections: [{ name: HEVY_CONNECTIONS, indexes: [{ name: 'by_state', fields: ['state', 'id'] }] }],
  handles: (type) => type.startsWith('hevy.'),
  async apply(stored, docs) {
    const athleteId = athleteOf(stored);
    const current = await docs.get<HevyConnectionDoc>(HEVY_CONNECTIONS, HEVY_CONNECTIONS_PARTITION, athleteId);
    const doc: HevyConnectionDoc = current ?? {
      id: athleteId,
      athlete_id: athleteId,
      connection_id: null,
      state: 'disconnected',
      hevy_user_name: null,
      connected_at: null,
      last_synced_at: null,
      last_summary: null,
      history: [],
    };
    const event = stored as unknown as HevyConnectionEvent | HevySyncedEvent;
    const next: HevyConnectionDoc = { ...doc };
    switch (event.type) {
      case 'hevy.synced':
        next.last_synced_at = occurredAt(stored);
        next.last_summary = event.data;
        // An event seen twice (projections tolerate it) is not listed twice.
        next.history = [
          { at: occurredAt(stored), summary: event.data },
          ...(doc.history ?? []).filter((h) => h.at !== occurredAt(stored) || h.summary.next_since !== event.data.next_since),
        ].slice(0, HISTORY_KEPT);
        break;
      case 'hevy.connected':
        Object.assign(next, {
          connection_id: event.data.connection_id,
          state: 'connected',
          hevy_user_name: event.data.hevy_user.name,
          connected_at: occurredAt(stored),
        });
        break;
      case 'hevy.paused':
        next.state = 'paused';
        break;
      case 'hevy.resumed':
        next.state = 'connected';
        break;
      case 'hevy.disconnected':
        Object.assign(next, { connection_id: null, state: 'disconnected', hevy_user_name: null, connected_at: null });
        break;
      default:
        return;
    }
    await docs.upsert(HEVY_CONNECTIONS, HEVY_CONNECTIONS_PARTITION, next);
  },
};
