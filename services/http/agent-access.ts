// Agent Access: who is calling (an OAuth bearer token of a connected grant of a Pro athlete) and
// what it may read. Refusals carry the challenge MCP and OAuth clients act on (RFC 6750, RFC 9728).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { SCHEMA_VERSION, type AgentAccessErrorCode, type GetAccessContextResponse, type Units } from '../../contracts/agent-access.ts';
import { LIMITS, type ReadScope } from '../../contracts/common.ts';
import type { App } from '../app.ts';
import { grantIdOf } from '../connections.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { READ_SCOPES, resourcesOf } from '../oauth/provider.ts';

export type Surface = 'mcp' | 'rest';

export interface Caller {
  athlete: AthleteState;
  grantId: string;
  clientId: string;
  /** The areas both the token and the connection (as it is now) allow. */
  scopes: ReadScope[];
}

const USAGE = 'connection_usage';
const USAGE_EVERY_MS = 60_000;

export function protectedResourceMetadataUrl(baseUrl: string, surface: Surface): string {
  return `${baseUrl}/.well-known/oauth-protected-resource${surface === 'mcp' ? '/mcp' : '/v1/agent-access'}`;
}

export class AgentAccessAuth {
  readonly #app: App;
  readonly #provider: Provider;

  constructor(app: App, provider: Provider) {
    this.#app = app;
    this.#provider = provider;
  }

  /**
   * The caller, or null after answering 401/403 with the challenge. Every request re-checks the
   * connection and the subscription, so a disconnect or a lapsed plan stops the very next one.
   */
  async authenticate(request: FastifyRequest, reply: FastifyReply, surface: Surface, scope: ReadScope | null): Promise<Caller | null> {
    const resources = resourcesOf(this.#app.config.baseUrl);
    const metadata = protectedResourceMetadataUrl(this.#app.config.baseUrl, surface);
    const unauthorized = (description: string, presented: boolean) =>
      this.#refuse(request, reply, 401, 'unauthorized', description, `Bearer resource_metadata="${metadata}"${presented ? `, error="invalid_token", error_description="${description}"` : ''}`);

    const token = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return unauthorized('an OAuth bearer token is needed', false), null;
    const accessToken = await this.#provider.AccessToken.find(token);
    const audience = accessToken?.aud;
    const accepted = surface === 'mcp' ? [resources.mcp, resources.root] : [resources.rest, resources.root];
    if (!accessToken || !accessToken.accountId || !accessToken.grantId || typeof audience !== 'string' || !accepted.includes(audience)) {
      return unauthorized('the token is invalid, expired, revoked or for another resource', true), null;
    }
    const grantId = grantIdOf(accessToken.grantId);
    const [connection, athlete] = await Promise.all([
      this.#app.connections.get(accessToken.accountId, grantId),
      this.#app.athletes.get(accessToken.accountId),
    ]);
    if (!connection || connection.status !== 'connected') return unauthorized('this connection was disconnected', true), null;
    if (!athlete || athlete.tier !== 'pro') return unauthorized('agent access needs an active Pro subscription', true), null;

    const tokenScopes = String(accessToken.scope ?? '').split(' ');
    const scopes = READ_SCOPES.filter((s) => tokenScopes.includes(s) && connection.scopes.includes(s));
    if (scope && !scopes.includes(scope)) {
      // The scopes needed plus those already granted, so that a step-up keeps what was granted.
      const wanted = [scope, ...scopes].join(' ');
      this.#refuse(request, reply, 403, 'insufficient_scope', `this operation needs the ${scope} scope`, `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${metadata}"`);
      return null;
    }
    await this.#noteUse(athlete.athlete_id, grantId);
    return { athlete, grantId, clientId: accessToken.clientId ?? connection.client_id, scopes };
  }

  #refuse(request: FastifyRequest, reply: FastifyReply, status: number, code: AgentAccessErrorCode, message: string, challenge: string): void {
    void reply.code(status).header('WWW-Authenticate', challenge).send({ error: { code, message, request_id: request.id } });
  }

  /** When the connection last read, for the settings page; written at most once a minute. */
  async #noteUse(athleteId: string, grantId: string): Promise<void> {
    const now = this.#app.clock.now();
    const usage = await this.#app.reads.get<{ id: string; last_read_at: string }>(USAGE, athleteId, grantId);
    if (usage && now.getTime() - Date.parse(usage.last_read_at) < USAGE_EVERY_MS) return;
    await this.#app.reads.upsert(USAGE, athleteId, { id: grantId, last_read_at: now.toISOString() });
  }
}

export async function lastReadAt(app: App, athleteId: string, grantId: string): Promise<string | null> {
  return (await app.reads.get<{ id: string; last_read_at: string }>(USAGE, athleteId, grantId))?.last_read_at ?? null;
}

export function unitsOf(athlete: AthleteState): Units {
  const p = athlete.profile;
  return {
    canonical: { mass: 'kg', length: 'metres', duration: 'seconds' },
    unit_preference: p.unit_preference,
    height_unit_preference: p.height_unit_preference,
    bodyweight_unit_preference: p.bodyweight_unit_preference,
  };
}

export async function registerAgentAccess(server: FastifyInstance, app: App, provider: Provider): Promise<AgentAccessAuth> {
  await app.reads.ensureCollections([{ name: USAGE, indexes: [] }]);
  const auth = new AgentAccessAuth(app, provider);
  const base = app.config.baseUrl;
  const resources = resourcesOf(base);
  const metadataOf = (resource: string) => ({
    resource,
    authorization_servers: [base],
    scopes_supported: READ_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'RepLedger Agent Access',
    resource_documentation: `${base}/openapi.json`,
  });
  server.get('/.well-known/oauth-protected-resource/mcp', async () => metadataOf(resources.mcp));
  server.get('/.well-known/oauth-protected-resource/v1/agent-access', async () => metadataOf(resources.rest));
  server.get('/.well-known/oauth-protected-resource', async () => metadataOf(resources.root));

  server.get('/v1/agent-access/context', async (request, reply) => {
    const caller = await auth.authenticate(request, reply, 'rest', null);
    if (!caller) return reply;
    const units = unitsOf(caller.athlete);
    const body: GetAccessContextResponse = {
      schema_version: SCHEMA_VERSION,
      request_id: request.id,
      operation: 'get_access_context',
      as_of: app.clock.now().toISOString(),
      timezone: caller.athlete.profile.timezone,
      units,
      scope: null,
      data: {
        grant_id: caller.grantId,
        scopes: caller.scopes,
        record: { timezone: caller.athlete.profile.timezone, units },
        constraints: { read_only: true, background_sync: false, maximum_page_size: LIMITS.pageSizeMax, maximum_range_days: LIMITS.rangeDaysMax },
      },
    };
    return body;
  });
  return auth;
}
