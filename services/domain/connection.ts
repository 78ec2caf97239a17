// A connection as its events leave it, folded from the athlete's connections stream: what the
// commands on it decide against (the read model may lag behind the stream).
import type { ReadScope } from '../../contracts/common.ts';
import type { ConnectionEvent } from '../../contracts/events.ts';
import type { WritePermission } from '../../contracts/write-permissions.ts';

export interface ConnectionState {
  status: 'connected' | 'disconnected';
  oauth_grant_id: string;
  scopes: ReadScope[];
  write_permissions: WritePermission[];
  label: string | null;
}

/** The grant's connection after `events` (the athlete's connections stream, any grant's), or null if it was never connected. */
export function connectionOf(events: ReadonlyArray<{ type: string; data: unknown }>, grantId: string): ConnectionState | null {
  let state: ConnectionState | null = null;
  for (const stored of events) {
    const event = stored as ConnectionEvent;
    if (event.data.grant_id !== grantId) continue;
    if (event.type === 'grant.connected') {
      state = { status: 'connected', oauth_grant_id: event.data.oauth_grant_id, scopes: event.data.scopes, write_permissions: [], label: null };
      continue;
    }
    if (!state) continue;
    if (event.type === 'grant.scopes_changed') state = { ...state, scopes: event.data.scopes };
    else if (event.type === 'grant.write_permissions_changed') state = { ...state, write_permissions: event.data.write_permissions };
    else if (event.type === 'grant.renamed') state = { ...state, label: event.data.label };
    else state = { ...state, status: 'disconnected' };
  }
  return state;
}
