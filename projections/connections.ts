// The athlete's connected AI clients, for the connection settings page and the per-request check
// that a grant is still connected, with the name the athlete gave each.
import type { ConnectionEvent, DisconnectReason } from '../contracts/events.ts';
import type { ReadScope } from '../contracts/common.ts';
import type { WritePermission } from '../contracts/write-permissions.ts';
import type { Doc } from '../services/store/read-store.ts';
import { athleteOf, occurredAt, type Projection } from './projection.ts';

export const CONNECTIONS = 'connections';
/**
 * Which athlete's connection an authorization-server grant belongs to (one partition, keyed by
 * the grant id): oidc-provider names only the grant when it revokes one by itself.
 */
export const CONNECTION_GRANTS = 'connection_grants';
export const CONNECTION_GRANTS_PARTITION = 'oauth';

export interface ConnectionGrantDoc extends Doc {
  athlete_id: string;
  grant_id: string;
}

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
  /** The changes it may propose; absent on connections that never had any. */
  write_permissions?: WritePermission[];
  /** The athlete's own name for it (`grant.renamed`); null until they give one. */
  label: string | null;
}

export const connectionsProjection: Projection = {
  name: 'connections',
  // 2: connection_grants added (stores built before are replayed to fill it).
  // 3: `label`, the athlete's name for a connection (every document has it, null until named).
  version: 3,
  collections: [
    { name: CONNECTIONS, indexes: [{ name: 'by_connected', fields: ['connected_at', 'id'] }] },
    { name: CONNECTION_GRANTS, indexes: [] },
  ],
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
        label: null,
      } satisfies ConnectionDoc);
      await docs.upsert(CONNECTION_GRANTS, CONNECTION_GRANTS_PARTITION, { id: oauth_grant_id, athlete_id: athleteId, grant_id } satisfies ConnectionGrantDoc);
      return;
    }
    const current = await docs.get<ConnectionDoc>(CONNECTIONS, athleteId, event.data.grant_id);
    if (!current) return;
    const change =
      event.type === 'grant.scopes_changed'
        ? { scopes: event.data.scopes }
        : event.type === 'grant.write_permissions_changed'
          ? { write_permissions: event.data.write_permissions }
          : event.type === 'grant.renamed'
            ? { label: event.data.label }
            : { status: 'disconnected' as const, disconnected_at: at, disconnect_reason: event.data.reason ?? null };
    await docs.upsert(CONNECTIONS, athleteId, { ...current, ...change, updated_at: at });
  },
};
