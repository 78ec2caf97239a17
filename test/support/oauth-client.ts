// An OAuth client as MCP clients run it: the MCP SDK's own `auth()` with an in-memory
// OAuthClientProvider, and a loopback redirect server catching the authorization code.
import { createServer, type Server } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export class MemoryOAuthClient implements OAuthClientProvider {
  readonly #redirect: string;
  readonly #name: string;
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(redirectUrl: string, name = 'Coach Bot') {
    this.#redirect = redirectUrl;
    this.#name = name;
  }
  get redirectUrl(): string {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#name,
      redirect_uris: [this.#redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A native client's loopback listener: resolves with the query it is redirected to. */
export async function loopbackRedirect(): Promise<{ url: string; received: Promise<URLSearchParams>; close(): Promise<void> }> {
  let resolve!: (q: URLSearchParams) => void;
  const received = new Promise<URLSearchParams>((r) => (resolve = r));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
    if (url.pathname === '/callback') resolve(url.searchParams);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
