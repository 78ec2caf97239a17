// What a client may register (dynamic registration) or publish (client ID metadata document):
// the public-client authorization code flow with PKCE that Agent Access supports, with every field
// bounded. Registration is unauthenticated, so each field is something an anonymous caller stores
// and an athlete later reads on the consent page.

/** Shown as the consent page's heading: a short name, as it would fit on a button. */
export const CLIENT_NAME_MAX = 100;
/** Any one URI (redirect, logo, policy, …); the connection event keeps client ids up to 2000. */
export const URI_MAX = 2000;
/** Any other string field. */
export const STRING_MAX = 200;
/** Any array field (redirect URIs, contacts, grant types, …). */
export const ARRAY_MAX = 10;

/**
 * C0/C1 controls, line and paragraph separators, and the bidirectional formatting characters
 * (U+202E turns the consent heading around, so "Coach Bot" could read as someone else's name).
 */
const UNSAFE_TEXT = /[\p{Cc}\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI is refused, or null. The MCP authorization spec: https, or http on a
 * loopback address (native apps listening on the device; any port, RFC 8252 7.3).
 */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string') return 'a redirect URI must be a string';
  if (uri.length > URI_MAX) return `a redirect URI may be at most ${URI_MAX} characters`;
  const url = URL.parse(uri);
  if (!url) return `${uri.slice(0, 100)} is not a URL`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `redirect URIs must use https, or http on localhost, 127.0.0.1 or [::1] (not ${uri.slice(0, 100)})`;
}

export interface MetadataProblem {
  /** `invalid_redirect_uri` for redirect URIs, else `invalid_client_metadata` (RFC 7591 3.2.2). */
  error: 'invalid_redirect_uri' | 'invalid_client_metadata';
  description: string;
}

/** The first reason `metadata` (as registered or published) is refused, or null. */
export function clientMetadataProblem(metadata: Record<string, unknown>): MetadataProblem | null {
  const invalid = (description: string): MetadataProblem => ({ error: 'invalid_client_metadata', description });

  const name = metadata.client_name;
  if (name !== undefined) {
    if (typeof name !== 'string') return invalid('client_name must be a string');
    if (name.length > CLIENT_NAME_MAX) return invalid(`client_name may be at most ${CLIENT_NAME_MAX} characters`);
    if (UNSAFE_TEXT.test(name)) return invalid('client_name must not contain control or bidirectional formatting characters');
  }

  for (const key of ['redirect_uris', 'post_logout_redirect_uris']) {
    const uris = metadata[key];
    if (!Array.isArray(uris)) continue;
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) return { error: 'invalid_redirect_uri', description: `${key}: ${problem}` };
    }
  }

  // Every other field, whatever it is: bounded in count and length, and never a control character.
  for (const [key, value] of Object.entries(metadata)) {
    const problem = boundedProblem(key, value);
    if (problem) return invalid(problem);
  }
  return null;
}

function boundedProblem(key: string, value: unknown): string | null {
  const values = Array.isArray(value) ? value : [value];
  if (values.length > ARRAY_MAX) return `${key} may hold at most ${ARRAY_MAX} values`;
  for (const one of values) {
    if (typeof one === 'string') {
      const max = key.endsWith('uri') || key.endsWith('uris') || key === 'client_id' ? URI_MAX : STRING_MAX;
      if (one.length > max) return `${key} may be at most ${max} characters`;
      if (UNSAFE_TEXT.test(one)) return `${key} must not contain control characters`;
    } else if (one !== null && typeof one === 'object') {
      // Structured values (a jwks) are not part of the public-client flow; bound them by size.
      if (JSON.stringify(one).length > 4 * STRING_MAX) return `${key} is too large`;
    }
  }
  return null;
}
