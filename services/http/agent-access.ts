// Agent Access over HTTP: the bearer token a request carries, the shared error shape, and the
// protected resource metadata (RFC 9728) that tells clients where to sign in.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { AgentAccessAuth, connectionUsage } from '../api/auth.ts';
import type { ApiError } from '../api/errors.ts';
import type { Services } from '../api/services.ts';
import { READ_SCOPES } from '../../contracts/common.ts';
import { resourcesOf } from '../identity/resources.ts';

/**
 * The token of an `Authorization: Bearer …` header (RFC 6750's token68), or null. The scheme is
 * matched whatever its case, and with any run of spaces after it (RFC 9110 section 11.1, 11.4).
 */
export function bearerToken(authorization: string | undefined): string | null {
  return /^bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? '')?.[1] ?? null;
}

/**
 * Why a JSON body was refused. Fastify refuses keys that could poison a prototype as it does
 * malformed JSON, without saying which it was.
 */
export const INVALID_JSON_BODY = 'the request body is not valid JSON (a key named __proto__, or constructor holding prototype, is refused as well)';

/** The Agent Access error shape, with its challenge or Retry-After. */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: ApiError, shape: 'agent-access' | 'read-api' = 'agent-access'): FastifyReply {
  if (error.challenge) reply.header('WWW-Authenticate', error.challenge);
  if (error.retryAfter) reply.header('Retry-After', String(error.retryAfter));
  // The Read API's error is exactly code, message and request id (spec 4.4); where in a write
  // body a refusal applies is Agent Access's.
  const body = shape === 'agent-access' ? error.body(request.id) : { error: { code: error.code, message: error.message, request_id: request.id } };
  return reply.code(error.status).send(body);
}

export async function registerAgentAccess(server: FastifyInstance, app: Services, provider: Provider): Promise<AgentAccessAuth> {
  await connectionUsage(app).ensureCollection();
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

  return auth;
}
