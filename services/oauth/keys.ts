// The authorization server's signing key and cookie keys. Generated on first start and kept in a
// file only this user can read (DATA_DIR/secrets/oauth-keys.json, or OAUTH_KEYS_FILE), so that
// sessions and tokens survive restarts and every instance sharing the file agrees.
import { createSecretKey, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JWK } from 'oidc-provider';

export interface OAuthKeys {
  signing: JWK;
  cookies: string[];
}

/**
 * A key for one purpose (cursor signing, …), derived so that no purpose learns another's key. A
 * KeyObject rather than bytes: an HMAC keyed with a Buffer imports the key on every call (~12 µs
 * against ~2.5 µs), and every list page signs a cursor.
 */
export function derivedKey(keys: OAuthKeys, purpose: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', keys.cookies[0]!, '', `repledger ${purpose}`, 32)));
}

export function loadOrCreateKeys(path: string): OAuthKeys {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as OAuthKeys;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys: OAuthKeys = {
    signing: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' },
    cookies: [randomBytes(32).toString('base64url')],
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // `wx`: if another process created it meanwhile, keep theirs.
  try {
    writeFileSync(path, JSON.stringify(keys), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return JSON.parse(readFileSync(path, 'utf8')) as OAuthKeys;
  }
  chmodSync(path, 0o600);
  return keys;
}
