// What a handshake client (MCP 2025-11-25) declared at `initialize`, carried by the client itself.
// /mcp keeps nothing between requests and any instance answers any of them, but a client of those
// revisions states its capabilities only once. The server names the exchange with an
// `Mcp-Session-Id` (Streamable HTTP, session management), which the client must send with every
// later request: the id is the declaration, signed, so it needs no store and holds on every
// instance. It is issued only to a client that declared URL elicitation, the one capability the
// server acts on, so every other client stays exactly as stateless as before.
//
// Why not per connection in a store: two clients signed in with one connection (the desktop and
// the phone app of one assistant) would share the last handshake's answer, and a client that never
// declared URL mode could be sent one (2025-11-25, client/elicitation: servers MUST NOT send
// elicitation requests with modes the client does not support).
import { randomBytes, type KeyObject } from 'node:crypto';
import { signedPayload, signedToken } from '../domain/signed.ts';

interface Declaration {
  /** The connection (grant) the session was opened on: another token cannot carry it. */
  g: string;
  /** The client declared URL elicitation. */
  url: true;
  /** Makes every session id unique, as the transport asks. */
  n: string;
}

/** The session id to hand a client at `initialize`, or null when it declared nothing the server keeps. */
export function sessionIdFor(key: KeyObject, grantId: string, urlElicitation: boolean): string | null {
  if (!urlElicitation) return null;
  // base64url and '.': visible ASCII only, as session ids must be.
  return signedToken(key, { g: grantId, url: true, n: randomBytes(12).toString('base64url') } satisfies Declaration);
}

/**
 * Whether the session id a request carries says its client declared URL elicitation on this
 * connection. An id this server did not sign, or signed for another connection, says nothing:
 * the client gets what any client gets, never an error, since no session is required.
 */
export function sessionDeclaresUrlElicitation(key: KeyObject, grantId: string, sessionId: string | string[] | undefined): boolean {
  if (typeof sessionId !== 'string') return false;
  const declaration = signedPayload(key, sessionId) as Declaration | null;
  return declaration?.g === grantId && declaration.url === true;
}
