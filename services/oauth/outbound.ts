// The authorization server's only way out to the network: client ID metadata documents (and any
// other URL a client names, such as a jwks_uri). A client chooses the URL, so without care this is
// a server-side request forgery: the service would connect to its own loopback, the private network
// or a cloud metadata address on an attacker's behalf, and time the answers as a port scanner.
//
// Policy: https only; the host is resolved first and every address it resolves to must be public
// unicast; the connection then goes to that very address (the checked IP is what we dial, with the
// host name kept for TLS and the Host header), so a second DNS answer cannot rebind it elsewhere.
// No redirects are followed; time and size are bounded.
import { promises as dns } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';

/** Whole request, DNS to last byte. oidc-provider's own limit (2.5 s) still applies on top. */
export const OUTBOUND_TIMEOUT_MS = 2000;
/** Hard cap on any body read here; oidc-provider applies a smaller one per purpose. */
export const OUTBOUND_MAX_BYTES = 16 * 1024;

/** IPv4 ranges that are not public unicast (RFC 6890 and its updates). */
const SPECIAL_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

/**
 * IPv6 ranges inside global unicast (2000::/3) that are still not public. Everything outside
 * 2000::/3 (loopback ::1, unspecified ::, IPv4-compatible, NAT64 64:ff9b::/96, unique local
 * fc00::/7, link-local fe80::/10, multicast ff00::/8) is refused by the allow-list below.
 */
const SPECIAL_V6: Array<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments, Teredo (tunnels to arbitrary IPv4)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an arbitrary IPv4 address
  ['3fff::', 20], // documentation
];

const blockList = (ranges: Array<[string, number]>, family: 'ipv4' | 'ipv6') => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
};
const specialV4 = blockList(SPECIAL_V4, 'ipv4');
const specialV6 = blockList(SPECIAL_V6, 'ipv6');
const globalUnicastV6 = blockList([['2000::', 3]], 'ipv6');
const mappedV4 = blockList([['::ffff:0:0', 96]], 'ipv6');

/** Whether `address` (an IP literal, no brackets) is public unicast: somewhere we may connect. */
export function isPublicAddress(address: string): boolean {
  switch (isIP(address)) {
    case 4:
      return !specialV4.check(address, 'ipv4');
    case 6:
      // An IPv4-mapped address reaches the IPv4 host: judge that (BlockList matches IPv4 rules
      // against mapped addresses in either notation, ::ffff:127.0.0.1 and ::ffff:7f00:1).
      if (mappedV4.check(address, 'ipv6')) return !specialV4.check(address, 'ipv6');
      return globalUnicastV6.check(address, 'ipv6') && !specialV6.check(address, 'ipv6');
    default:
      return false;
  }
}

export class OutboundRefused extends Error {}

export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * The one address to connect to for `url`, or OutboundRefused. Every address the name resolves
 * to must be public: an answer mixing a public and a private address is refused, not "fixed".
 */
export async function publicAddressOf(
  url: URL,
  resolve: Resolve = systemResolve,
  isAllowed: (address: string) => boolean = isPublicAddress,
): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'https:') throw new OutboundRefused(`only https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundRefused('URLs with credentials are not fetched');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const answers = literal ? [{ address: host, family: literal }] : await resolve(host);
  if (answers.length === 0) throw new OutboundRefused(`${host} does not resolve`);
  const refused = answers.find((a) => !isAllowed(a.address));
  if (refused) throw new OutboundRefused(`${host} resolves to ${refused.address}, which is not a public address`);
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OutboundRefused('timed out'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function toHeaders(raw: NodeJS.Dict<string | string[]>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
}

export interface PinnedFetchOptions {
  resolve?: Resolve;
  /** The address policy; only tests widen it (to observe where a connection goes). */
  isAllowed?: (address: string) => boolean;
  /** Trusted certificates in place of the system's; only tests set it. */
  ca?: string | Buffer;
}

/**
 * A `fetch` for oidc-provider's `fetch` option: GET over https to the checked, pinned address.
 * Only what oidc-provider uses is honoured (method, headers, signal); redirects are answered as
 * they come (oidc-provider refuses anything but 200).
 */
export function pinnedFetch({ resolve = systemResolve, isAllowed = isPublicAddress, ca }: PinnedFetchOptions = {}) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(OUTBOUND_TIMEOUT_MS)]) : AbortSignal.timeout(OUTBOUND_TIMEOUT_MS);
    // DNS cannot be cancelled; the answer is simply not waited for past the deadline.
    const { address, family } = await untilAborted(publicAddressOf(url, resolve, isAllowed), signal);
    const hostIsName = isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) === 0;
    const headers: Record<string, string> = { host: url.host };
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    return new Promise<Response>((resolveResponse, reject) => {
      const req = request(
        {
          // The checked IP literal: Node connects to it without another lookup.
          host: address,
          family,
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: init.method ?? 'GET',
          headers,
          // TLS is verified for the name the client gave, not for the IP we dialled (Node would
          // take it from the Host header too; said here, it does not depend on that).
          ...(hostIsName ? { servername: url.hostname } : {}),
          signal,
          agent: false,
          ...(ca ? { ca } : {}),
        },
        (res) => {
          const length = Number(res.headers['content-length'] ?? 0);
          if (length > OUTBOUND_MAX_BYTES) {
            res.destroy();
            reject(new OutboundRefused('response too large'));
            return;
          }
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > OUTBOUND_MAX_BYTES) res.destroy(new OutboundRefused('response too large'));
          });
          const status = res.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolveResponse(new Response(body, { status: status >= 200 && status <= 599 ? status : 502, headers: toHeaders(res.headers) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  };
}
