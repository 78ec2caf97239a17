// Agent Access: who is calling (an OAuth access token of a connected grant of a Pro athlete) and
// what it may read. Refusals carry the challenge MCP and OAuth clients act on (RFC 6750, RFC 9728).
// The service layer's: the HTTP adapter only hands over the bearer token it found.
import type Provider from 'oidc-provider';
import type { Units } from '../../contracts/agent-access.ts';
import type { ReadScope } from '../../contracts/common.ts';
import { grantIdOf } from '../identity/connections.ts';
import type { AthleteAccount } from '../domain/athlete.ts';
import { READ_SCOPES } from '../../contracts/common.ts';
import { resourcesOf } from '../identity/resources.ts';
import type { Caller } from '../identity/caller.ts';
import { UsageLog } from '../operations/usage.ts';
import { NOT_YET_RETRY_SECONDS, projectedPast } from '../reads/projected.ts';
import { ApiError } from './errors.ts';
import { Remembered } from './remembered.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { ConnectionService } from '../identity/connections.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';

export type Surface = 'mcp' | 'rest';

export const CONNECTION_USAGE = 'connection_usage';

export function protectedResourceMetadataUrl(baseUrl: string, surface: Surface): string {
  return `${baseUrl}/.well-known/oauth-protected-resource${surface === 'mcp' ? '/mcp' : '/v1/agent-access'}`;
}

/** What checking a connection's token reads. */
export interface AgentAccessDeps {
  config: Pick<Config, 'baseUrl'>;
  clock: Clock;
  reads: ReadStore;
  athletes: AthleteService;
  connections: ConnectionService;
  runner: Pick<ProjectionRunner, 'projections'>;
  changeVersion: (() => number) | null;
}

export class AgentAccessAuth {
  readonly #app: AgentAccessDeps;
  readonly #provider: Provider;
  readonly #usage: UsageLog;
  /** By surface and token. */
  readonly #identified: Remembered<Caller>;

  constructor(app: AgentAccessDeps, provider: Provider) {
    this.#app = app;
    this.#provider = provider;
    this.#usage = connectionUsage(app);
    this.#identified = new Remembered(app.changeVersion);
  }

  /** The caller a bearer token stands for, allowed `scope`; or an ApiError (401/403 with its challenge). */
  async check(token: string | null, surface: Surface, scope: ReadScope | null): Promise<Caller> {
    return this.authorize(await this.identify(token, surface), surface, scope);
  }

  /**
   * The caller a bearer token stands for, or a 401 with its challenge. Every call re-checks the
   * connection and the subscription, so a disconnect or a lapsed plan stops the very next request.
   *
   * A caller is remembered until anything at all is committed to the stores (see Remembered).
   */
  async identify(token: string | null, surface: Surface): Promise<Caller> {
    const version = this.#identified.version();
    const key = `${surface} ${token}`;
    const now = this.#app.clock.now().getTime();
    const known = this.#identified.get(key, version, now);
    if (known) {
      this.#usage.note(known.athlete.athlete_id, known.grantId);
      return known;
    }
    const { caller, expiresAt } = await this.#lookUp(token, surface, now);
    this.#identified.set(key, caller, version, expiresAt);
    this.#usage.note(caller.athlete.athlete_id, caller.grantId);
    return caller;
  }

  /**
   * The connection of a valid token. One the read models do not know yet but the athlete's log
   * has (consent was just given; a projection worker is a moment behind) is waited for, bounded,
   * so that a client's first call after connecting is not refused.
   */
  async #connection(athleteId: string, grantId: string) {
    const known = await this.#app.connections.get(athleteId, grantId);
    if (known) return known;
    const position = await this.#app.connections.position(athleteId, grantId);
    if (position === null) return null;
    if (
      !(await projectedPast(
        this.#app.reads,
        this.#app.runner.projections.map((p) => p.name),
        position,
      ))
    ) {
      throw new ApiError('unavailable', 'this connection is saved but not readable yet; try again shortly', { retryAfter: NOT_YET_RETRY_SECONDS });
    }
    return this.#app.connections.get(athleteId, grantId);
  }

  async #lookUp(token: string | null, surface: Surface, now: number): Promise<{ caller: Caller; expiresAt: number }> {
    const resources = resourcesOf(this.#app.config.baseUrl);
    const unauthorized = (description: string, presented: boolean) =>
      new ApiError('unauthorized', description, {
        challenge: `Bearer resource_metadata="${this.#metadataUrl(surface)}"${presented ? `, error="invalid_token", error_description="${description}"` : ''}`,
      });

    if (!token) throw unauthorized('an OAuth bearer token is needed', false);
    const accessToken = await this.#provider.AccessToken.find(token);
    const audience = accessToken?.aud;
    const accepted = surface === 'mcp' ? [resources.mcp, resources.root] : [resources.rest, resources.root];
    if (!accessToken?.accountId || !accessToken.grantId || typeof audience !== 'string' || !accepted.includes(audience)) {
      throw unauthorized('the token is invalid, expired, revoked or for another resource', true);
    }
    const grantId = grantIdOf(accessToken.grantId);
    const [connection, athlete] = await Promise.all([this.#connection(accessToken.accountId, grantId), this.#app.athletes.get(accessToken.accountId)]);
    if (connection?.status !== 'connected') throw unauthorized('this connection was disconnected', true);
    if (athlete?.tier !== 'pro') throw unauthorized('agent access needs an active Pro subscription', true);

    const tokenScopes = String(accessToken.scope ?? '').split(' ');
    const scopes = READ_SCOPES.filter((s) => tokenScopes.includes(s) && connection.scopes.includes(s));
    const { password_hash: _hash, ...account } = athlete;
    return {
      caller: {
        athlete: account,
        grantId,
        clientId: accessToken.clientId ?? connection.client_id,
        clientName: connection.client_name,
        scopes,
        writePermissions: connection.write_permissions ?? [],
      },
      // The authorization server counts the token's lifetime in seconds; its store expires it by our clock.
      expiresAt: now + accessToken.remainingTTL * 1000,
    };
  }

  /** `caller` if it may use `scope`, else a 403 whose challenge asks for it. */
  authorize(caller: Caller, surface: Surface, scope: ReadScope | null): Caller {
    if (!scope || caller.scopes.includes(scope)) return caller;
    // The scopes needed plus those already granted, so that a step-up keeps what was granted.
    throw new ApiError('insufficient_scope', `this operation needs the ${scope} scope`, {
      challenge: `Bearer error="insufficient_scope", scope="${[scope, ...caller.scopes].join(' ')}", resource_metadata="${this.#metadataUrl(surface)}"`,
    });
  }

  #metadataUrl(surface: Surface): string {
    return protectedResourceMetadataUrl(this.#app.config.baseUrl, surface);
  }
}

/** When each connection last read, for the settings page. */
export function connectionUsage(app: Pick<AgentAccessDeps, 'reads' | 'clock'>): UsageLog {
  return new UsageLog(app.reads, app.clock, CONNECTION_USAGE);
}

export async function lastReadAt(app: Pick<AgentAccessDeps, 'reads' | 'clock'>, athleteId: string, grantId: string): Promise<string | null> {
  return connectionUsage(app).lastUsedAt(athleteId, grantId);
}

export function unitsOf(athlete: AthleteAccount): Units {
  const p = athlete.profile;
  return {
    canonical: { mass: 'kg', length: 'metres', duration: 'seconds' },
    unit_preference: p.unit_preference,
    height_unit_preference: p.height_unit_preference,
    bodyweight_unit_preference: p.bodyweight_unit_preference,
  };
}
