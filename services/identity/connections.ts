// Connections: which AI client may read which areas of an athlete's record, and the name the
// athlete gave it. Every change is an event on the athlete's `connections-<id>` stream, so the
// audit history shows who had access when.
import {
  CONNECTION_LABEL_MAX,
  connectionEvent,
  connectionLabel,
  streams,
  type Actor,
  type ConnectionEvent,
  type DisconnectReason,
} from '../../contracts/events.ts';
import { decideAndAppend } from '../commands/handler.ts';
import { connectionOf, type ConnectionState } from '../domain/connection.ts';
import { isVisibleText, type ReadScope } from '../../contracts/common.ts';
import { CONNECTION_GRANTS, CONNECTION_GRANTS_PARTITION, CONNECTIONS, type ConnectionDoc, type ConnectionGrantDoc } from '../../projections/connections.ts';
import type { ProposalStatus } from '../../contracts/write.ts';
import { PROPOSALS, type ProposalDoc } from '../../projections/proposals.ts';
import type { Clock } from '../domain/clock.ts';
import { statusAt } from '../domain/proposal.ts';
import { DomainError } from '../domain/errors.ts';
import { nameUuid } from '../domain/ids.ts';
import { revokeOAuthGrant } from './oauth-store.ts';
import type { EventStore, StoredEvent } from '../store/event-store.ts';
import type { ReadStore } from '../store/read-store.ts';
import { WRITE_PERMISSIONS, type WritePermission } from '../../contracts/write-permissions.ts';

/** What the athlete calls a connection: the name they gave it, else the client's own name. */
export const connectionName = (c: Pick<ConnectionDoc, 'label' | 'client_name'>): string => c.label ?? c.client_name;

/** Why a name for a connection was refused, in the athlete's words. */
function labelProblem(label: string): string {
  if (!isVisibleText(label)) return 'Give the app a name: it needs at least one letter, digit or sign you can see.';
  if (label.length > CONNECTION_LABEL_MAX) return `That name is ${label.length} characters long; keep it to ${CONNECTION_LABEL_MAX}.`;
  return 'A name is one line of text, without tabs or line breaks.';
}

/** The connection's id on the wire (a UUID, spec 2.4), derived from the authorization server's grant id. */
export const grantIdOf = (oauthGrantId: string) => nameUuid(`oauth-grant/${oauthGrantId}`);

export class ConnectionService {
  readonly #events: EventStore;
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  /** Revocations by the authorization server being recorded now (see `revocationsRecorded`). */
  readonly #recording = new Set<Promise<void>>();

  constructor(events: EventStore, reads: ReadStore, clock: Clock) {
    this.#events = events;
    this.#reads = reads;
    this.#clock = clock;
  }

  /** Records the athlete's consent; returns the connection's grant id. */
  async connect(input: {
    oauthGrantId: string;
    athleteId: string;
    clientId: string;
    clientName: string;
    redirectHost: string;
    scopes: ReadScope[];
  }): Promise<string> {
    const grantId = grantIdOf(input.oauthGrantId);
    return this.#command(input.athleteId, { type: 'athlete', id: input.athleteId }, (history) => {
      const event: ConnectionEvent = connectionOf(history, grantId)
        ? { type: 'grant.scopes_changed', data: { grant_id: grantId, athlete_id: input.athleteId, scopes: input.scopes } }
        : {
            type: 'grant.connected',
            data: {
              grant_id: grantId,
              oauth_grant_id: input.oauthGrantId,
              athlete_id: input.athleteId,
              client_id: input.clientId,
              client_name: input.clientName,
              redirect_host: input.redirectHost,
              scopes: input.scopes,
            },
          };
      return { events: [event], result: grantId };
    });
  }

  async disconnect(athleteId: string, grantId: string): Promise<void> {
    const oauthGrantId = await this.#command(athleteId, { type: 'athlete', id: athleteId }, (history) => {
      const existing = connected(history, grantId);
      return {
        events: [{ type: 'grant.disconnected', data: { grant_id: grantId, athlete_id: athleteId, reason: 'athlete' } }],
        result: existing.oauth_grant_id,
      };
    });
    // The connection check refuses the next request anyway; revoking the tokens also stops refreshes.
    await revokeOAuthGrant(this.#reads, oauthGrantId);
  }

  /**
   * The authorization server revoked a grant itself (its tokens are already gone): the connection
   * shows as disconnected, with why, instead of looking connected while nothing works.
   *
   * `athleteId` comes from the revoking request (the token, code or session it loaded); the
   * decision is made on the athlete's connections stream, not on a read model, so a revocation
   * that arrives before a projection worker has caught up with `grant.connected` is not lost.
   * Only for an unknown athlete is the read model asked.
   */
  revokedByServer(oauthGrantId: string, athleteId: string | undefined, reason: DisconnectReason): Promise<void> {
    const recording = this.#recordRevocation(oauthGrantId, athleteId, reason);
    this.#recording.add(recording);
    const done = () => this.#recording.delete(recording);
    recording.then(done, done);
    return recording;
  }

  /**
   * Resolves once every revocation being recorded when it is called has been recorded (or has
   * failed). oidc-provider's listener does not wait for them (services/oauth/provider.ts): the
   * server waits here before the stores close, and a test here rather than for a while.
   */
  async revocationsRecorded(): Promise<void> {
    await Promise.allSettled([...this.#recording]);
  }

  async #recordRevocation(oauthGrantId: string, athleteId: string | undefined, reason: DisconnectReason): Promise<void> {
    const owner = athleteId ?? (await this.#reads.get<ConnectionGrantDoc>(CONNECTION_GRANTS, CONNECTION_GRANTS_PARTITION, oauthGrantId))?.athlete_id;
    if (!owner) return;
    const grantId = grantIdOf(oauthGrantId);
    await this.#command(owner, { type: 'operator', id: 'authorization-server' }, (history) => {
      // A grant the athlete never finished consenting to has no connection; one already
      // disconnected keeps its first reason.
      const events: ConnectionEvent[] =
        connectionOf(history, grantId)?.status === 'connected' ? [{ type: 'grant.disconnected', data: { grant_id: grantId, athlete_id: owner, reason } }] : [];
      return { events, result: undefined };
    });
  }

  /**
   * Sets which changes a connected client may propose. Only the athlete does this (the permission
   * form, the settings page); `only` narrows it to turning permissions off (the settings page
   * cannot grant). Nothing is written when nothing changes.
   */
  async setWritePermissions(athleteId: string, grantId: string, permissions: WritePermission[], options: { onlyRemove: boolean }): Promise<WritePermission[]> {
    return this.#command(athleteId, { type: 'athlete', id: athleteId }, (history) => {
      const held = connected(history, grantId).write_permissions;
      const next = WRITE_PERMISSIONS.filter((p) => permissions.includes(p) && (!options.onlyRemove || held.includes(p)));
      if (next.length === held.length && next.every((p) => held.includes(p))) return { events: [], result: held };
      return {
        events: [{ type: 'grant.write_permissions_changed', data: { grant_id: grantId, athlete_id: athleteId, write_permissions: next } }],
        result: next,
      };
    });
  }

  /**
   * Gives a connection the athlete's own name (three clients that all call themselves "MCP CLI
   * Proxy" are then told apart). `label` is trimmed; a blank or too long one is refused with
   * `invalid_input`. Only the athlete's own connected connection; nothing is written when the name
   * is the one it has.
   */
  async rename(athleteId: string, grantId: string, label: string): Promise<string> {
    return this.#command(athleteId, { type: 'athlete', id: athleteId }, (history) => {
      const existing = connected(history, grantId);
      const parsed = connectionLabel.safeParse(label.trim());
      if (!parsed.success) throw new DomainError('invalid_input', labelProblem(label.trim()));
      if (existing.label === parsed.data) return { events: [], result: parsed.data };
      return { events: [{ type: 'grant.renamed', data: { grant_id: grantId, athlete_id: athleteId, label: parsed.data } }], result: parsed.data };
    });
  }

  /**
   * The connection's newest proposal (its command id, when it was prepared, its status now), or
   * null: one entry of the proposals' per-connection index, metadata only.
   */
  async latestProposal(athleteId: string, grantId: string): Promise<{ command_id: string; prepared_at: string; status: ProposalStatus } | null> {
    const [newest] = await this.#reads.page<ProposalDoc>(PROPOSALS, {
      partition: athleteId,
      index: 'by_grant',
      prefix: [grantId],
      direction: 'desc',
      limit: 1,
    });
    return newest ? { command_id: newest.id, prepared_at: newest.prepared_at, status: statusAt(newest, this.#clock.now()) } : null;
  }

  /**
   * The global log position of the grant's latest event on the athlete's connections stream, or
   * null when it has none: what a read of a connection just made must wait for the projections to pass.
   */
  async position(athleteId: string, grantId: string): Promise<number | null> {
    const events = await this.#events.readStream(streams.connections(athleteId));
    return events.findLast((e) => (e.data as { grant_id?: unknown }).grant_id === grantId)?.position ?? null;
  }

  async get(athleteId: string, grantId: string): Promise<ConnectionDoc | null> {
    return this.#reads.get<ConnectionDoc>(CONNECTIONS, athleteId, grantId);
  }

  async list(athleteId: string): Promise<ConnectionDoc[]> {
    return this.#reads.page<ConnectionDoc>(CONNECTIONS, { partition: athleteId, index: 'by_connected', direction: 'desc', limit: 200 });
  }

  /** Decides on the athlete's connections stream and appends at the revision decided against. */
  #command<T>(athleteId: string, actor: Actor, decide: (history: readonly StoredEvent[]) => { events: ConnectionEvent[]; result: T }): Promise<T> {
    return decideAndAppend(this.#events, this.#clock, {
      stream: streams.connections(athleteId),
      athleteId,
      actor,
      what: "the athlete's connections",
      decide: (history) => {
        const { events, result } = decide(history);
        return { events: events.map((e) => connectionEvent.parse(e)), result };
      },
    });
  }
}

/** The grant's connection, connected; refused as not found otherwise. */
function connected(history: readonly StoredEvent[], grantId: string): ConnectionState {
  const state = connectionOf(history, grantId);
  if (state?.status !== 'connected') throw new DomainError('not_found', 'no such connection');
  return state;
}
