// The bundled OAuth 2.0 authorization server (oidc-provider), mounted in our Fastify server with
// the issuer at the base URL and its endpoints under /oauth. Configuration is data; each feature
// is switched on deliberately.
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Provider, { errors, type Configuration } from 'oidc-provider';
import type { ReadScope } from '../../contracts/common.ts';
import type { App } from '../app.ts';
import { readStoreAdapter, oauthCollections } from './adapter.ts';
import { loadOrCreateKeys, type OAuthKeys } from './keys.ts';

export const READ_SCOPES: ReadScope[] = ['training', 'recovery', 'nutrition', 'body_measurements'];

/** The protected resources: MCP, the REST base, and the service as a whole. */
export function resourcesOf(baseUrl: string) {
  return { mcp: `${baseUrl}/mcp`, rest: `${baseUrl}/v1/agent-access`, root: baseUrl };
}

const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export function serverKeys(app: App): OAuthKeys {
  return loadOrCreateKeys(process.env.OAUTH_KEYS_FILE ?? join(app.config.dataDir, 'secrets', 'oauth-keys.json'));
}

export async function createProvider(app: App, keys: OAuthKeys): Promise<Provider> {
  await app.reads.ensureCollections(oauthCollections);
  const resources = new Set(Object.values(resourcesOf(app.config.baseUrl)));

  const configuration: Configuration = {
    adapter: readStoreAdapter(app.reads, app.clock),
    jwks: { keys: [keys.signing] },
    cookies: { keys: keys.cookies },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      jwks: '/oauth/jwks',
      revocation: '/oauth/revoke',
      end_session: '/oauth/logout',
      userinfo: '/oauth/userinfo',
    },
    // The read areas must be listed for registration to accept them; offline_access is not.
    scopes: ['openid', ...READ_SCOPES],
    claims: { openid: ['sub'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    // oidc-provider 9 implements S256 only; requiring PKCE makes it mandatory for every client.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resourcesOf(app.config.baseUrl).mcp,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resources.has(indicator)) throw new errors.InvalidTarget(`${indicator} is not a RepLedger resource`);
          // Opaque tokens: looked up on every request, so revocation and disconnect act at once.
          return { scope: READ_SCOPES.join(' '), audience: indicator, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS };
        },
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: { AccessToken: ACCESS_TOKEN_TTL_SECONDS, AuthorizationCode: 60, RefreshToken: 30 * 86400, Grant: 365 * 86400, Session: 14 * 86400, Interaction: 3600 },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ((await app.athletes.get(sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
    renderError: async (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Sign-in could not continue: ${out.error_description ?? out.error}. Return to the app you came from and try again.`;
    },
  };

  const provider = new Provider(app.config.baseUrl, configuration);
  provider.proxy = true;
  return provider;
}

/** oidc-provider's endpoints, given the raw request with its body unread. */
export async function mountProvider(server: FastifyInstance, provider: Provider): Promise<void> {
  const callback = provider.callback();
  await server.register(async (oauth) => {
    oauth.removeAllContentTypeParsers();
    oauth.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.raw.setHeader('X-Request-Id', request.id);
      reply.hijack();
      await callback(request.raw, reply.raw);
    };
    for (const path of [
      '/oauth/authorize',
      '/oauth/authorize/*',
      '/oauth/token',
      '/oauth/register',
      '/oauth/register/*',
      '/oauth/jwks',
      '/oauth/revoke',
      '/oauth/logout',
      '/oauth/logout/*',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
    ]) {
      oauth.all(path, handler);
    }
  });
}
