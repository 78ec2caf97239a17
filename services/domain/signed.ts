// Tamper-evident tokens: a value a client carries and hands back (a list's cursor, an MCP session
// id), which the server must be able to trust without keeping it. Keys come from derivedKey
// (services/oauth/keys.ts), one per purpose.
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

const mac = (key: KeyObject, body: string) => createHmac('sha256', key).update(body).digest().subarray(0, 16);

/** A value as a tamper-evident token: its JSON in base64url, a dot, and a 128-bit HMAC of that under `key`. */
export function signedToken(key: KeyObject, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/** The value a token `signedToken` made under `key` carries; null for any other string. */
export function signedPayload(key: KeyObject, token: string): unknown {
  const [body, given, ...rest] = token.split('.');
  if (!body || !given || rest.length > 0) return null;
  const givenMac = Buffer.from(given, 'base64url');
  const wanted = mac(key, body);
  if (givenMac.length !== wanted.length || !timingSafeEqual(givenMac, wanted)) return null;
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
}
