// The two eras of MCP on one /mcp (MCP 2026-07-28, basic/versioning): a request that names its
// protocol version in `_meta` is served by the stateless revision 2026-07-28; one without (an
// `initialize`, or a request after one) by the handshake revisions 2024-11-05 to 2025-11-25, as
// before. This file knows the 2026-07-28 envelope: which era a request is, whether its headers
// agree with its body, and what a result of that revision carries. The handlers are the same for
// both eras (mcp.ts).
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The stateless revision, and the first of its era: versions sort as dates. */
export const MODERN_VERSION = '2026-07-28';
const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];

const isModern = (version: string) => version >= MODERN_VERSION;

/** The reserved `_meta` keys of a request and a result (MCP 2026-07-28, basic/index, `_meta`). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** JSON-RPC codes of the 2026-07-28 errors (basic/index, error codes). */
export const MODERN_ERROR = {
  methodNotFound: -32601,
  invalidParams: -32602,
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
} as const;

/** The methods 2026-07-28 defines that this server serves; `initialize`, `ping` and the rest answer 404 (streamable-http). */
const MODERN_METHODS = new Set(['server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get']);

/** The methods whose `Mcp-Name` header names `params.name` or `params.uri`. */
const NAMED_BY: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** What a 2026-07-28 client said about itself in the request. */
export interface ModernRequest {
  method: string;
  capabilities: Record<string, unknown>;
}

export interface ModernRefusal {
  status: number;
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

export type Era = { era: 'legacy' } | { era: 'modern'; request: ModernRequest | null } | { era: 'modern'; refusal: ModernRefusal };

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function metaOf(message: Record<string, unknown>): Record<string, unknown> | null {
  const params = message.params;
  return isObject(params) && isObject(params._meta) ? params._meta : null;
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value?.trim();
}

/**
 * A header value as the client meant it: values that are not plain ASCII travel as
 * `=?base64?…?=` (streamable-http, value encoding), and are compared with the body decoded.
 */
export function decodedHeader(value: string): string {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : value;
}

const mismatch = (message: string): ModernRefusal => ({ status: 400, code: MODERN_ERROR.headerMismatch, message: `Header mismatch: ${message}` });

/**
 * The era of one POSTed message, or why a 2026-07-28 request is refused. The body decides (a
 * claim of a version in `_meta`); the headers must then agree with it, as intermediaries route
 * on them. A header naming 2026-07-28 on a request without the claim is a malformed modern
 * request, not a legacy one.
 */
export function eraOf(message: unknown, headers: Headers): Era {
  if (!isObject(message) || typeof message.method !== 'string') return { era: 'legacy' };
  const method = message.method;
  const meta = metaOf(message);
  const claimed = meta?.[META.protocolVersion];
  const headerVersion = header(headers, 'mcp-protocol-version');
  if (claimed === undefined || (typeof claimed === 'string' && !isModern(claimed))) {
    if (headerVersion === undefined || !isModern(headerVersion)) return { era: 'legacy' };
    return {
      era: 'modern',
      refusal: {
        status: 400,
        code: MODERN_ERROR.invalidParams,
        message: `Invalid params: the MCP-Protocol-Version header names ${headerVersion}, but params._meta does not carry ${META.protocolVersion}`,
      },
    };
  }
  if (typeof claimed !== 'string') {
    return {
      era: 'modern',
      refusal: { status: 400, code: MODERN_ERROR.invalidParams, message: `Invalid params: _meta ${META.protocolVersion} must be a string` },
    };
  }
  if (!MODERN_VERSIONS.includes(claimed)) {
    return {
      era: 'modern',
      refusal: {
        status: 400,
        code: MODERN_ERROR.unsupportedProtocolVersion,
        message: 'Unsupported protocol version',
        data: { supported: [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS], requested: claimed },
      },
    };
  }
  const capabilities = meta![META.clientCapabilities];
  if (!isObject(capabilities)) {
    return {
      era: 'modern',
      refusal: { status: 400, code: MODERN_ERROR.invalidParams, message: `Invalid params: _meta ${META.clientCapabilities} is required, an object` },
    };
  }
  const clientInfo = meta![META.clientInfo];
  if (clientInfo !== undefined && !(isObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string')) {
    return {
      era: 'modern',
      refusal: { status: 400, code: MODERN_ERROR.invalidParams, message: `Invalid params: _meta ${META.clientInfo} must name the client and its version` },
    };
  }
  if (headerVersion === undefined) return { era: 'modern', refusal: mismatch('the MCP-Protocol-Version header is missing') };
  if (headerVersion !== claimed) return { era: 'modern', refusal: mismatch(`the MCP-Protocol-Version header names ${headerVersion}, the body ${claimed}`) };
  // Notifications carry no required headers in this revision; they are accepted and dropped.
  if (!('id' in message)) return { era: 'modern', request: null };
  const methodHeader = header(headers, 'mcp-method');
  if (methodHeader === undefined) return { era: 'modern', refusal: mismatch('the Mcp-Method header is missing') };
  if (methodHeader !== method) return { era: 'modern', refusal: mismatch(`the Mcp-Method header names ${methodHeader}, the body ${method}`) };
  const namedBy = Object.hasOwn(NAMED_BY, method) ? NAMED_BY[method]! : null;
  if (namedBy) {
    const named = (message.params as Record<string, unknown>)[namedBy];
    const nameHeader = header(headers, 'mcp-name');
    if (nameHeader === undefined) return { era: 'modern', refusal: mismatch(`the Mcp-Name header is missing (${method} names its ${namedBy} in it)`) };
    if (decodedHeader(nameHeader) !== named) return { era: 'modern', refusal: mismatch(`the Mcp-Name header does not match params.${namedBy}`) };
  }
  if (!MODERN_METHODS.has(method)) {
    return {
      era: 'modern',
      refusal: { status: 404, code: MODERN_ERROR.methodNotFound, message: `Method not found: ${method} is not a method of MCP ${MODERN_VERSION}` },
    };
  }
  return { era: 'modern', request: { method, capabilities } };
}

/** Whether the client said it can send its user to a URL the server hands it (elicitation, URL mode). */
export function declaresUrlElicitation(capabilities: Record<string, unknown> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  return isObject(elicitation) && isObject(elicitation.url);
}

/**
 * How long a client may keep a result (server/utilities/caching). Lists depend on the areas the
 * token was granted, so they are private to it; a resource is the athlete's record as it is now.
 */
const CACHING: Readonly<Record<string, { ttlMs: number; cacheScope: 'public' | 'private' }>> = {
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
  'tools/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 300_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** A complete result as 2026-07-28 carries it: its type, the server's name, and caching hints where the method has them. */
export function modernResult(method: string, result: Record<string, unknown>, serverInfo: Record<string, unknown>): Record<string, unknown> {
  const meta = isObject(result._meta) ? result._meta : {};
  return { ...result, resultType: 'complete', ...(CACHING[method] ?? {}), _meta: { ...meta, [META.serverInfo]: serverInfo } };
}

/** What `server/discover` answers: the versions served statelessly, and what the server offers. */
export function discoverResult(capabilities: Record<string, unknown>, instructions: string): Record<string, unknown> {
  return { supportedVersions: [...MODERN_VERSIONS], capabilities, instructions };
}
