// Who a refusal is for, from its address: a program (an API or the authorization server's
// endpoints) gets JSON in its contract's shape, a browser asking for a page gets a page.
// The address is judged as the router reads it, so an encoded or doubled variant of an API path
// (`/%6fauth/token`, `//v1/…`, `/OAuth/Token`) is answered as that path would be.
import { IncomingMessage } from 'node:http';

/**
 * Addresses whose callers are programs: their refusals are the API's error shape, never a page.
 * Under /oauth, every address but the ones a browser is sent to (sign-in, sign-out, the sign-in
 * pages): an unknown one, however it is spelt, is a program's mistake.
 */
const API_PATHS =
  /^\/(v1\/|api\/|mcp(?![\w-])|oauth(?![\w-])(?!\/(authorize|logout|interaction)(\/|$))|\.well-known\/|openapi\.json|health|livez|readyz|metrics)/;

/** The authorization server's addresses: its refusals are RFC 6749's `{error, error_description}`. */
const OAUTH_PATHS = /^\/(oauth(?![\w-])|\.well-known\/(openid-configuration|oauth-authorization-server))/;

/** A percent-encoded unreserved character (RFC 3986 2.3) means that character. */
export function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (match, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(char) ? char : match;
  });
}

/**
 * The path of a request target, as it is compared with the address patterns above: what it
 * names once unreserved characters are decoded, slashes collapsed, dot segments resolved (RFC
 * 3986 5.2.4) and case ignored.
 */
function pathOf(url: string): string {
  const segments: string[] = [];
  for (const segment of decodeUnreserved(url.split('?')[0] ?? '').split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '.' && segment !== '') segments.push(segment);
  }
  return `/${segments.join('/')}`.toLowerCase();
}

export function isOAuthPath(url: string): boolean {
  return OAUTH_PATHS.test(pathOf(url));
}

/** A browser asking for a page (not an API client) gets the refusal as a page, in the web app's style. */
export function wantsPage(url: string, accept: string | undefined): boolean {
  return !API_PATHS.test(pathOf(url)) && /\btext\/html\b/.test(accept ?? '');
}

/** A refusal in RFC 6749's shape (5.2): its error codes, with what went wrong said in the description. */
export function oauthError(status: number, description: string): { error: string; error_description: string } {
  const error = status === 503 ? 'temporarily_unavailable' : status >= 500 ? 'server_error' : 'invalid_request';
  return { error, error_description: description };
}

/** Whether a request carries a body: a Content-Length over 0, or one sent chunked. */
export function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * A body refused unread: the refusal goes out at once and the rest of the body is read and thrown
 * away behind it, after which the connection serves the next request as any other. Waiting for the
 * whole body before answering would keep a client that sends slowly (or for ever) waiting; closing
 * with bytes unread would reset the connection, and a client still sending could lose the answer.
 * Past `limit` bytes the connection is closed whatever remains.
 */
export function lingerOnBody(raw: IncomingMessage, limit = LINGER_LIMIT): void {
  if (raw.complete) return;
  const socket = raw.socket;
  let seen = 0;
  raw.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) socket.destroy();
  });
  // An answer that ends the connection (the client said `Connection: close`, or spoke HTTP/1.0)
  // makes Node close the socket as soon as the answer is written (destroySoon), the body's rest
  // unread: the kernel then resets the connection, and a client still sending may lose the
  // answer it was sent. So the close lingers instead: our side ends with the answer, and the
  // socket closes once the body is read, or after LINGER_MS.
  let closeWhenRead = false;
  socket.destroySoon = () => {
    closeWhenRead = true;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  raw.once('end', () => {
    // The socket's own method again, for whatever comes after this request.
    delete (socket as { destroySoon?: unknown }).destroySoon;
    if (closeWhenRead) socket.destroy();
  });
  raw.resume();
}

/** How much of a refused body is read after the answer: more than any client sends by mistake. */
const LINGER_LIMIT = 16 * 1024 * 1024;

/** How long a connection the answer ended still reads a refused body: a slow client's 16 MB. */
const LINGER_MS = 30_000;

/**
 * A body read whole if it is at most `limit` bytes, and the request handed on as one whose body is
 * what was read (for oidc-provider, which reads bodies itself); null as soon as it is larger, the
 * rest left unread for the refusal to deal with.
 */
export async function readUpTo(raw: IncomingMessage, limit: number): Promise<IncomingMessage | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const whole = await new Promise<boolean>((resolve) => {
    const settle = (result: boolean) => {
      raw.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size > limit) settle(false);
    };
    const onEnd = () => settle(true);
    const onError = () => settle(false);
    raw.on('data', onData).on('end', onEnd).on('error', onError);
  });
  if (!whole) return null;
  const copy = new IncomingMessage(raw.socket);
  Object.assign(copy, {
    method: raw.method,
    url: raw.url,
    headers: raw.headers,
    rawHeaders: raw.rawHeaders,
    httpVersion: raw.httpVersion,
    httpVersionMajor: raw.httpVersionMajor,
    httpVersionMinor: raw.httpVersionMinor,
    complete: true,
  });
  copy.push(Buffer.concat(chunks, size));
  copy.push(null);
  return copy;
}
