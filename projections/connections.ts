// The athlete's connected AI clients, for the connection settings page and the per-request check
// that a grant is still connected.
import type { ConnectionEvent, DisconnectReason } from '../contracts/events.ts';
import type { ReadScope } from '../contracts/common.ts';
import type { Doc } from '../services/store/read-store.ts';
import { athleteOf, occurredAt, type Projection } from './projection.ts';

export const CONNECTIONS = 'connections';

export interface ConnectionDoc extends Doc {
  oauth_grant_id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  scopes: ReadScope[];
  status: 'connected' | 'disconnected';
  connected_at: string;
  updated_at: string;
  disconnected_at: string | null;
  /** Absent on connections disconnected before reasons were recorded. */
  disconnect_reason?: DisconnectReason | null;
}

export const connectionsProjection: Projection = {
  name: 'connections',
  collections: [{ name: CONNECTIONS, indexes: [{ name: 'by_connected', fields: ['connected_at', 'id'] }] }],
  handles: (type) => type.startsWith('grant.'),
  async apply(stored, docs) {
    const event = stored as unknown as ConnectionEvent;
    const athleteId = athleteOf(stored);
    const at = occurredAt(stored);
    if (event.type === 'grant.connected') {
      const { grant_id, oauth_grant_id, client_id, client_name, redirect_host, scopes } = event.data;
      await docs.upsert(CONNECTIONS, athleteId, {
        id: grant_id,
        oauth_grant_id,
        client_id,
        client_name,
        redirect_host,
        scopes,
        status: 'connected',
        connected_at: at,
        updated_at: at,
        disconnected_at: null,
      } satisfies ConnectionDoc);
      return;
    }
    const current = await docs.get<ConnectionDoc>(CONNECTIONS, athleteId, event.data.grant_id);
    if (!current) return;
    const change =
      event.type === 'grant.scopes_changed'
        ? { scopes: event.data.scopes }
        : { status: 'disconnected' as const, disconnected_at: at, disconnect_reason: event.data.reason ?? null };
    await docs.upsert(CONNECTIONS, athleteId, { ...current, ...change, updated_at: at });
  },
};
