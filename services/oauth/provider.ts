// The bundled OAuth 2.0 authorization server (oidc-provider), mounted in our Fastify server with
// the issuer at the base URL and its endpoints under /oauth. Configuration is data; each feature
// is switched on deliberately.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Provider, { errors, type Configuration, type KoaContextWithOIDC, type TokenEndpointGrantContext } from 'oidc-provider';
import type { DisconnectReason } from '../../contracts/events.ts';
import { READ_SCOPES } from '../../contracts/common.ts';
import type { Services } from '../api/services.ts';
import { cookieValue } from '../http/cookie-header.ts';
import { decodeUnreserved, lingerOnBody, oauthError, readUpTo, wantsPage } from '../http/edges.ts';
// The web app's page layout and security headers, shared with the authorization server's pages.
import { contentSecurityPolicy, pageHeaders } from '../web/layout.ts';
import { html, Html, page } from '../web/html.ts';
import { AttemptLimiter, addressKey } from '../web/limiter.ts';
import { readStoreAdapter, oauthCollections, OAUTH } from '../identity/oauth-store.ts';
import { resourcesOf } from '../identity/resources.ts';
import { scheduleOAuthCleanup } from './cleanup.ts';
import { clientMetadataProblem, URI_MAX } from './client-policy.ts';
import { loadOrCreateKeys, type OAuthKeys } from './keys.ts';
import { OUTBOUND_MAX_BYTES, pinnedFetch } from './outbound.ts';
import { SECURITY_POLICY } from '../../contracts/policy.ts';

/**
 * The one resource oidc-provider resolves from several (its `defaultResource(ctx, client, oneOf)`):
 * MCP when it is among them, else the first. A grant holds several only if it predates the
 * one-resource rule at the authorization endpoint.
 */
export function pickResource(oneOf: readonly string[], mcp: string): string | undefined {
  return oneOf.includes(mcp) ? mcp : oneOf[0];
}

/**
 * The resource oidc-provider will issue an access token for from `model` (a refresh token or an
 * authorization code), as helpers/resolve_resource.js does with useGrantedResource on: the
 * requested one when there is one, else the model's own (picked from several as above).
 */
export function effectiveResource(requested: unknown, granted: string | string[] | undefined, mcp: string): unknown {
  if (requested) return requested;
  if (Array.isArray(granted)) return granted.length === 0 ? undefined : pickResource(granted, mcp);
  return granted;
}

/**
 * Why a token may not be issued for `resource` (the one it will actually be issued for, see
 * effectiveResource), or null. The rules oidc-provider applies only after consuming the refresh
 * token or code (resolve_resource.js): one resource at most, one the token or code was granted
 * for, and one of ours.
 */
export function targetProblem(requested: unknown, granted: ReadonlySet<unknown>, known: ReadonlySet<string>): string | null {
  if (requested === undefined) return null;
  if (typeof requested !== 'string') return 'only a single resource indicator may be requested';
  if (!known.has(requested)) return `${requested} is not a RepLedger resource`;
  if (!granted.has(requested)) return `the refresh token was not granted for ${requested}`;
  return null;
}

export function serverKeys(app: Services): OAuthKeys {
  return loadOrCreateKeys(app.config.oauthKeysFile);
}

export async function createProvider(app: Services, keys: OAuthKeys): Promise<Provider> {
  await app.reads.ensureCollections(oauthCollections);
  const resources = new Set(Object.values(resourcesOf(app.config.baseUrl)));
  const { mcp } = resourcesOf(app.config.baseUrl);

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
    // Exactly the flow Agent Access supports and docs/api.md documents: public clients (no client
    // authentication) using the authorization code with PKCE. Discovery advertises only this, and
    // registration refuses anything else (another response type, grant type or auth method).
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    // Every registered or published field is bounded and checked (client-policy.ts). oidc-provider
    // calls this validator for each property listed, with the whole metadata; one is enough.
    extraClientMetadata: {
      properties: ['client_name'],
      validator: (_ctx, key, _value, metadata) => {
        if (key !== 'client_name') return;
        const problem = clientMetadataProblem(metadata as Record<string, unknown>);
        // InvalidRedirectUri's constructor takes no description: it would say the URI matched no registered one.
        if (problem?.error === 'invalid_redirect_uri') throw Object.assign(new errors.InvalidRedirectUri(), { error_description: problem.description });
        if (problem) throw new errors.InvalidClientMetadata(problem.description);
      },
    },
    // Outbound requests (client ID metadata documents) go only to public addresses, pinned.
    fetch: pinnedFetch(),
    fetchResponseBodyLimits: { 'client_id metadata document': 5 * 1024, jwks_uri: OUTBOUND_MAX_BYTES, sector_identifier_uri: OUTBOUND_MAX_BYTES },
    // oidc-provider 9 implements S256 only; requiring PKCE makes it mandatory for every client.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      // On by default in oidc-provider, but not part of the flow: pushed authorization requests
      // (whose endpoint is not even mounted here) and DPoP-bound tokens, which Agent Access, a
      // Bearer-only resource server, would refuse.
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      // Fetched only through `fetch` above (public, pinned, https, 2 s, 5 KB); a client_id longer
      // than any URI we store is not fetched at all.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', allowFetch: (_ctx, clientId) => clientId.length <= URI_MAX },
      // Signing out of the authorization server is a page with a button: its form carries
      // oidc-provider's xsrf token, and nothing submits it but the athlete.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          // The confirmation redirects to the client's registered post-logout URI when it named
          // one; Chromium applies form-action to that redirect.
          const next = ctx.oidc.params?.post_logout_redirect_uri;
          const target = typeof next === 'string' ? URL.parse(next)?.origin : undefined;
          if (target) ctx.set('Content-Security-Policy', contentSecurityPolicy([target]));
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = page(
            { title: 'Sign out' },
            html`<div class="card"><h1>Sign out of RepLedger's authorization?</h1>
<p>This ends the sign-in used when you connect AI apps. Apps already connected keep their access until you disconnect them in <a href="/connections">Connected apps</a>.</p>
${new Html(form)}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<button class="secondary" type="submit" form="op.logoutForm">Stay signed in</button></div>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = page({ title: 'Signed out' }, html`<div class="card"><h1>Signed out</h1><p>You can close this window.</p></div>`);
        },
      },
      resourceIndicators: {
        enabled: true,
        // Without a requested resource: MCP. Asked to choose among several (a refresh token or
        // code holding more than one, see resolve_resource.js): one of those, never one outside.
        defaultResource: (_ctx, _client, oneOf) => (oneOf ? pickResource(oneOf, mcp) : mcp),
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          // One resource per authorization: a code or refresh token then holds exactly one, so the
          // token endpoint never has to choose (and never refuses after consuming it).
          const requested = ctx.oidc.params?.resource;
          if (Array.isArray(requested) && requested.length > 1) throw new errors.InvalidTarget('only one resource may be requested');
          if (!resources.has(indicator)) throw new errors.InvalidTarget(`${indicator} is not a RepLedger resource`);
          // Opaque tokens: looked up on every request, so revocation and disconnect act at once.
          return { scope: READ_SCOPES.join(' '), audience: indicator, accessTokenFormat: 'opaque', accessTokenTTL: SECURITY_POLICY.accessTokenSeconds };
        },
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // oidc-provider consumes the presented refresh token here, before it resolves the requested
    // resource; a refusal after that (invalid_target) would leave the client holding a spent token
    // whose next use counts as a replay and revokes the whole grant. So the target is checked
    // first, with the same rules, and a refused request consumes nothing. The resource checked is
    // the one oidc-provider will use: the requested one, or without one the token's own (or the
    // one defaultResource picks from several).
    rotateRefreshToken: (ctx) => {
      const refreshToken = ctx.oidc.entities.RefreshToken;
      const target = effectiveResource(ctx.oidc.params?.resource, refreshToken?.resource, mcp);
      const problem = targetProblem(target, refreshToken?.resourceIndicators ?? new Set(), resources);
      if (problem) throw new errors.InvalidTarget(problem);
      return true;
    },
    expiresWithSession: () => false,
    ttl: {
      AccessToken: SECURITY_POLICY.accessTokenSeconds,
      AuthorizationCode: SECURITY_POLICY.authorizationCodeSeconds,
      RefreshToken: SECURITY_POLICY.refreshTokenSeconds,
      Grant: 365 * 86400,
      Session: 14 * 86400,
      Interaction: 3600,
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ((await app.athletes.get(sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
    // oidc-provider renders this for any request that asks for HTML before JSON, on any endpoint;
    // only the addresses a browser is sent to get a page. A program that lists text/html first
    // (Java's HttpURLConnection does by default) still gets RFC 6749's JSON from the token,
    // revocation and registration endpoints (RFC 6749 5.2, RFC 7591 3.2.2).
    renderError: async (ctx, out) => {
      if (!BROWSER_ROUTES.has(ctx.oidc?.route ?? '')) {
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = out;
        return;
      }
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = errorPage(String(out.error_description ?? out.error));
    },
  };

  // oidc-provider consumes an authorization code before it resolves the requested resource
  // (actions/grants/authorization_code.js): a refusal then (invalid_target) leaves the client with
  // a spent code, whose retry counts as a replay and revokes the grant. Its own handler is
  // registered through registerGrantType from the constructor; wrapped there, the code's target is
  // checked first, with the rules resolve_resource.js applies, and a refused exchange consumes
  // nothing. (Unknown, foreign, expired and already used codes go on to the handler unchanged.)
  const codeTargetCheckedFirst =
    (handler: (ctx: TokenEndpointGrantContext) => unknown) =>
    async (ctx: TokenEndpointGrantContext): Promise<void> => {
      const value = ctx.oidc.params.code;
      const code = typeof value === 'string' ? await ctx.oidc.provider.AuthorizationCode.find(value, { ignoreExpiration: true }) : undefined;
      if (!code || code.clientId !== ctx.oidc.client.clientId) {
        await handler(ctx);
        return;
      }
      // A replayed code makes the handler revoke the grant before it names the code itself: the
      // revocation listener learns the athlete from this entity (revokingAccount).
      ctx.oidc.entity('AuthorizationCode', code);
      if (code.isValid) {
        const target = effectiveResource(ctx.oidc.params.resource, code.resource, mcp);
        const problem = targetProblem(target, code.resourceIndicators, resources);
        if (problem) throw new errors.InvalidTarget(problem);
      }
      await handler(ctx);
    };
  class RepLedgerProvider extends Provider {
    override registerGrantType<P extends object>(
      name: string,
      handler: (ctx: TokenEndpointGrantContext<P>) => void | Promise<void>,
      params?: string | readonly string[] | ReadonlySet<string>,
      duplicates?: string | readonly string[] | ReadonlySet<string>,
    ): void {
      const wrapped =
        name === 'authorization_code' ? (codeTargetCheckedFirst(handler as (ctx: TokenEndpointGrantContext) => unknown) as typeof handler) : handler;
      super.registerGrantType(name, wrapped, params, duplicates);
    }
  }

  const provider = new RepLedgerProvider(app.config.baseUrl, configuration);
  // X-Forwarded-* are believed exactly when Fastify believes them (TRUST_PROXY).
  provider.proxy = app.config.trustProxy !== false;
  // oidc-provider writes response_modes_supported itself; only `query` is part of our flow.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path.startsWith('/.well-known/') && ctx.body && typeof ctx.body === 'object' && 'response_modes_supported' in ctx.body) {
      (ctx.body as Record<string, unknown>).response_modes_supported = ['query'];
    }
  });
  return provider;
}

/** The authorization server's error page: what went wrong, and what to do. */
/** oidc-provider's routes a browser is sent to (sign-in, its resumption, sign-out): their refusals are pages. */
const BROWSER_ROUTES: ReadonlySet<string> = new Set(['authorization', 'resume', 'end_session', 'end_session_confirm', 'end_session_success']);

function errorPage(problem: string): string {
  return page(
    { title: 'Sign-in could not continue' },
    html`<div class="card"><h1>Sign-in could not continue</h1><p>${problem}.</p><p>Return to the app you came from and try again.</p></div>`,
  );
}

/** Why oidc-provider revoked a grant, from the route (and grant type) that did it. */
export function revocationReason(route: string, grantType: unknown): DisconnectReason {
  if (route === 'token' && grantType === 'refresh_token') return 'refresh_token_reused';
  if (route === 'token' && grantType === 'authorization_code') return 'authorization_code_reused';
  if (route === 'revocation') return 'client_revoked';
  if (route === 'end_session_confirm') return 'signed_out';
  return 'authorization_server';
}

/**
 * Whose grant oidc-provider is revoking, from what the revoking request loaded: the replayed
 * refresh token or code (the code grant's wrapper above loads it first), the token a client
 * revokes, the grant, or the session being signed out of.
 */
export function revokingAccount(ctx: KoaContextWithOIDC): string | undefined {
  const { entities } = ctx.oidc;
  return (
    entities.RefreshToken?.accountId ??
    entities.AuthorizationCode?.accountId ??
    entities.AccessToken?.accountId ??
    entities.Grant?.accountId ??
    ctx.oidc.session?.accountId ??
    entities.Account?.accountId
  );
}

/** Past this many addresses remembered, those without a recent registration are forgotten. */
const REGISTRANTS_REMEMBERED = 10_000;

/** The web app's security headers, on every answer of the authorization server (its HTML pages above all). */
function setPageHeaders(raw: FastifyReply['raw']): void {
  for (const [name, value] of Object.entries(pageHeaders())) raw.setHeader(name, value);
}

/** oidc-provider's own limit on a request body (lib/shared/selective_body.js). */
const OAUTH_BODY_LIMIT = 56 * 1024;

/** A body over that limit: a 413 at once, the rest read and thrown away behind it. */
function tooLarge(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  lingerOnBody(request.raw);
  return reply.code(413).send({
    error: 'invalid_request',
    error_description: `the request body is larger than the ${OAUTH_BODY_LIMIT / 1024} KB the authorization server reads`,
  });
}

/**
 * oidc-provider's endpoints, given the raw request with its body unread, and what runs beside
 * them: the registration limit, the clean-up schedule, revoked grants reaching the connections.
 */
export async function mountProvider(server: FastifyInstance, provider: Provider, app: Services): Promise<void> {
  // What oidc-provider has no route for (a method an endpoint does not take, `/oauth/authorize/x/y`)
  // it would answer with Koa's bare `404 Not Found` text: answered here as the other refusals are.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    const problem = `no route for ${ctx.method} ${ctx.path.slice(0, 200)}`;
    ctx.status = 404;
    if (wantsPage(ctx.url, ctx.get('accept'))) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = errorPage(problem);
    } else ctx.body = oauthError(404, problem);
  });

  const callback = provider.callback();
  const registrations = new AttemptLimiter(SECURITY_POLICY.registrationsPerAddress, SECURITY_POLICY.registrationWindowMs, app.clock);
  const sessionCookie = provider.cookieName('session');
  const stopCleanup = scheduleOAuthCleanup(app.reads, app.clock, (error) => server.log.error({ err: error }, 'OAuth clean-up failed'));
  server.addHook('onClose', async () => stopCleanup());
  // oidc-provider revokes grants by itself (a replayed refresh token or code, a client revoking
  // its token): the athlete's connection must say so rather than look connected.
  // The athlete is taken from the event itself (read now: the session, for one, is destroyed right
  // after), not from a read model that a projection worker may not have written yet.
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, oauthGrantId: string) => {
    const athleteId = revokingAccount(ctx);
    app.connections.revokedByServer(oauthGrantId, athleteId, revocationReason(ctx.oidc.route, ctx.oidc.params?.grant_type)).catch((error: unknown) => {
      // The grant's tokens are gone either way; only the settings page would lag behind.
      server.log.error({ err: error, oauthGrantId }, 'could not record a revoked grant as disconnected');
    });
  });
  // A revocation still being recorded when the server closes is finished before the stores close.
  server.addHook('onClose', async () => app.connections.revocationsRecorded());

  await server.register(async (oauth) => {
    oauth.removeAllContentTypeParsers();
    oauth.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // A chunked body (of unknown length) is read here up to oidc-provider's limit and handed on
      // already read: left to oidc-provider, a larger one is read in part and called unparsable.
      const raw = request.headers['transfer-encoding'] === undefined ? request.raw : await readUpTo(request.raw, OAUTH_BODY_LIMIT);
      if (!raw) return tooLarge(request, reply);
      reply.raw.setHeader('X-Request-Id', request.id);
      setPageHeaders(reply.raw);
      reply.hijack();
      await callback(raw, reply.raw);
    };
    // oidc-provider's router takes `/oauth/register/` for `/oauth/register` and so on: each guard
    // is keyed on the endpoint with trailing slashes removed, whatever route brought it here.
    const guarded = async (request: FastifyRequest, reply: FastifyReply) => {
      // The router took `/oauth/%72egister` for `/oauth/register`: oidc-provider (and each guard)
      // is given the address as the router read it, so the endpoint is served and guarded alike.
      const [path = '', query] = request.raw.url?.split(/\?(.*)/s) ?? [];
      const canonical = decodeUnreserved(path);
      if (canonical !== path) request.raw.url = query === undefined ? canonical : `${canonical}?${query}`;
      const endpoint = canonical.replace(/\/+$/, '');
      // oidc-provider reads at most 56 KB and calls anything larger a body it 'failed to parse'.
      if (Number(request.headers['content-length'] ?? 0) > OAUTH_BODY_LIMIT) return tooLarge(request, reply);
      if (endpoint === '/oauth/register' && request.method === 'POST') {
        // Registration is anonymous and stores what it is sent: limited per address.
        const key = addressKey(request.ip);
        const wait = registrations.retryAfter(key);
        if (wait > 0) {
          return reply
            .code(429)
            .header('Retry-After', String(wait))
            .send({ error: 'too_many_requests', error_description: `too many registrations from this address; try again in ${wait} seconds` });
        }
        registrations.record(key);
        if (registrations.size > REGISTRANTS_REMEMBERED) registrations.prune();
      }
      // Without a live authorization-server session there is nothing to sign out of: answer here,
      // so that an anonymous visit (or one with a made-up cookie) does not make oidc-provider
      // store a session for it.
      if (endpoint === '/oauth/logout' && !(await liveSession(cookieValue(request.headers.cookie, sessionCookie)))) {
        setPageHeaders(reply.raw);
        return reply
          .type('text/html; charset=utf-8')
          .send(
            page(
              { title: 'Signed out' },
              html`<div class="card"><h1>You are not signed in</h1><p>There is nothing to sign out of. You can close this window.</p></div>`,
            ),
          );
      }
      if (endpoint === '/oauth/authorize') {
        // Discovery offers the query response mode only; oidc-provider would still answer in a
        // fragment or an auto-submitting form_post page (whose script our CSP blocks anyway).
        const mode = (request.query as Record<string, unknown>).response_mode;
        if (mode !== undefined && mode !== 'query') {
          setPageHeaders(reply.raw);
          return reply
            .code(400)
            .type('text/html; charset=utf-8')
            .send(errorPage(`response_mode ${String(mode).slice(0, 50)} is not supported (only query)`));
        }
      }
      return handler(request, reply);
    };
    const liveSession = async (id: string | null) => {
      if (!id) return false;
      const doc = await app.reads.get<{ id: string; expires_at: number | null }>(OAUTH, 'Session', id);
      return doc !== null && (doc.expires_at === null || doc.expires_at > app.clock.now().getTime());
    };
    for (const path of [
      '/oauth/authorize',
      // Resuming an authorization after the sign-in and consent pages.
      '/oauth/authorize/*',
      '/oauth/token',
      '/oauth/register',
      '/oauth/jwks',
      '/oauth/revoke',
      '/oauth/logout',
      // The sign-out page's confirmation and its "signed out" answer.
      '/oauth/logout/*',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
    ]) {
      oauth.all(path, guarded);
    }
  });
}
