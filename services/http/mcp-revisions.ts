// The two eras of MCP on one /mcp (MCP 2026-07-28, basic/versioning): a request that names its
// protocol version in `_meta` is served by the stateless revision 2026-07-28; one without (an
// `initialize`, or a request after one) by the handshake revisions 2024-11-05 to 2025-11-25, as
// before. This file knows the 2026-07-28 envelope: which era a request is, whether its headers
// agree with its body, and what a result of that revision carries. The handlers are the same for
// both eras (mcp.ts).

/** The stateless revision, and the first of its era: versions sort as dates. */
export const MODERN_VERSION = '2026-07-28';
const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];

const isModern = (version: string) => version >= MODERN_VERSION;

/** The reserved `_meta` keys of a request and a result (MCP 2026-07-28, basic/index, `_meta`). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** JSON-RPC codes of the 2026-07-28 errors (basic/index, error codes). */
export const MODERN_ERROR = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
} as const;

/** The methods 2026-07-28 defines that this server serves; `initialize`, `ping` and the rest answer 404 (streamable-http). */
const MODERN_METHODS = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
]);

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
export function decodedHeader(value: string): string | null {
  if (!value.startsWith('=?base64?')) return value;
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : null;
}

const mismatch = (message: string): ModernRefusal => ({ status: 400, code: MODERN_ERROR.headerMismatch, message: `Header mismatch: ${message}` });
const invalid = (message: string): ModernRefusal => ({ status: 400, code: MODERN_ERROR.invalidParams, message: `Invalid params: ${message}` });
const refused = (refusal: ModernRefusal): Era => ({ era: 'modern', refusal });

/** MCP's logging levels (RFC 5424's), the values `io.modelcontextprotocol/logLevel` may take. */
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** What is wrong with a request's `_meta` envelope (2026-07-28, basic/index, `_meta`), or null. */
function envelopeProblem(meta: Record<string, unknown>): string | null {
  if (typeof meta[META.protocolVersion] !== 'string') return `_meta ${META.protocolVersion} must be a string`;
  if (!isObject(meta[META.clientCapabilities])) return `_meta ${META.clientCapabilities} is required, an object`;
  const clientInfo = meta[META.clientInfo];
  if (clientInfo !== undefined && !(isObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string')) {
    return `_meta ${META.clientInfo} must name the client and its version`;
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !(typeof level === 'string' && LOG_LEVELS.has(level)))
    return `_meta ${META.logLevel} must be one of ${[...LOG_LEVELS].join(', ')}`;
  return null;
}

/**
 * The era of one POSTed message, or why a 2026-07-28 message is refused, checked in the order the
 * SDK's own dual-era entry checks them (so a client meets the same codes from either server). The
 * body decides: a message whose `_meta` names a protocol version is of the stateless era, whatever
 * version it names; one that does not is of the handshake revisions, unless its header names the
 * new revision, which makes it a malformed modern message. The headers must then agree with the
 * body, as intermediaries route on them.
 */
export function eraOf(message: unknown, headers: Headers): Era {
  if (!isObject(message)) return { era: 'legacy' };
  const headerVersion = header(headers, 'mcp-protocol-version');
  const modernHeader = headerVersion !== undefined && isModern(headerVersion);
  if (typeof message.method !== 'string') {
    // A response: the stateless revision asks nothing of a client that it could answer.
    if (modernHeader && 'id' in message && ('result' in message || 'error' in message)) {
      return refused({ status: 400, code: MODERN_ERROR.invalidRequest, message: `Invalid Request: MCP ${MODERN_VERSION} takes no JSON-RPC responses` });
    }
    return { era: 'legacy' };
  }
  const method = message.method;
  const isRequest = 'id' in message;
  const meta = metaOf(message);
  const methodHeader = header(headers, 'mcp-method');
  const claims = meta !== null && Object.hasOwn(meta, META.protocolVersion);
  // An initialize is the handshake's, unless it carries a whole modern envelope (then it is a
  // method 2026-07-28 does not have).
  const handshake = method === 'initialize' && !(claims && envelopeProblem(meta) === null && isModern(meta[META.protocolVersion] as string));
  if (!claims || handshake) {
    if (!modernHeader) return { era: 'legacy' };
    if (method === 'initialize') return refused(mismatch(`initialize opens the handshake revisions; the MCP-Protocol-Version header names ${headerVersion}`));
    if (!isRequest) {
      if (methodHeader !== undefined && methodHeader !== method) return refused(mismatch(`the Mcp-Method header names ${methodHeader}, the body ${method}`));
      return { era: 'modern', request: null };
    }
    return refused(invalid(`the MCP-Protocol-Version header names ${headerVersion}, but params._meta does not carry ${META.protocolVersion}`));
  }
  const problem = envelopeProblem(meta!);
  if (problem) return refused(invalid(problem));
  const claimed = meta![META.protocolVersion] as string;
  if (headerVersion !== undefined && headerVersion !== claimed)
    return refused(mismatch(`the MCP-Protocol-Version header names ${headerVersion}, the body ${claimed}`));
  if (methodHeader !== undefined && methodHeader !== method) return refused(mismatch(`the Mcp-Method header names ${methodHeader}, the body ${method}`));
  if (!MODERN_VERSIONS.includes(claimed)) {
    return refused({
      status: 400,
      code: MODERN_ERROR.unsupportedProtocolVersion,
      message: 'Unsupported protocol version',
      data: { supported: [...MODERN_VERSIONS], requested: claimed },
    });
  }
  // Notifications carry no required headers in this revision; they are accepted and dropped.
  if (!isRequest) return { era: 'modern', request: null };
  if (headerVersion === undefined) return refused(mismatch('the MCP-Protocol-Version header is missing'));
  if (methodHeader === undefined) return refused(mismatch('the Mcp-Method header is missing'));
  const namedBy = Object.hasOwn(NAMED_BY, method) ? NAMED_BY[method]! : null;
  const named = namedBy && isObject(message.params) ? message.params[namedBy] : undefined;
  // A name that is not a string is the params' fault, answered by their check (-32602).
  if (namedBy && typeof named === 'string') {
    const nameHeader = header(headers, 'mcp-name');
    if (nameHeader === undefined) return refused(mismatch(`the Mcp-Name header is missing (${method} names its ${namedBy} in it)`));
    const decoded = decodedHeader(nameHeader);
    if (decoded === null) return refused(mismatch('the Mcp-Name header carries an invalid base64 value'));
    if (decoded !== named) return refused(mismatch(`the Mcp-Name header does not match params.${namedBy}`));
  }
  if (!MODERN_METHODS.has(method)) {
    return refused({ status: 404, code: MODERN_ERROR.methodNotFound, message: `Method not found: ${method} is not a method of MCP ${MODERN_VERSION}` });
  }
  return { era: 'modern', request: { method, capabilities: meta![META.clientCapabilities] as Record<string, unknown> } };
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
  'resources/templates/list': { ttlMs: 300_000, cacheScope: 'private' },
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
