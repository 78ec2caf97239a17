// The authorization server's signing key and cookie keys. Generated on first start and kept in a
// file only this user can read (DATA_DIR/secrets/oauth-keys.json, or OAUTH_KEYS_FILE), so that
// sessions and tokens survive restarts and every instance sharing the file agrees.
import { createSecretKey, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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

export interface CreateHooks {
  /**
   * Called by a creator once its keys are written and synced to its temporary file, before it
   * tries to place that file at the path. Tests hold a creator here to start another one inside
   * the window where a non-atomic creation would show a partial file.
   */
  beforePlacing?: (temporaryPath: string) => void;
}

/**
 * The keys at `path`, made there first if there is no file yet. Replicas starting together on a
 * fresh shared volume all return the keys of the one creator that placed its file first: a file
 * appears at `path` only whole (written and synced elsewhere, then hard-linked into place), and a
 * link, unlike a rename, fails rather than replace a file another creator placed meanwhile.
 */
export function loadOrCreateKeys(path: string, hooks: CreateHooks = {}): OAuthKeys {
  const existing = readKeys(path);
  if (existing) return existing;
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // In the same directory, so that it is on the same filesystem and can be linked; unique, so that
  // concurrent creators (and a crashed creator's leftover) never share one.
  const temporary = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    writeSynced(temporary, JSON.stringify(generateKeys()));
    hooks.beforePlacing?.(temporary);
    try {
      linkSync(temporary, path);
      syncDirectory(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  // The winner reads its own file too, so that every creator returns exactly what is on disk.
  const placed = readKeys(path);
  if (!placed) throw new Error(`${path} disappeared right after it was created: is something else removing it?`);
  return placed;
}

function generateKeys(): OAuthKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    signing: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' },
    cookies: [randomBytes(32).toString('base64url')],
  };
}

/** The keys in the file at `path`, null if there is no file; a file that is not keys is refused. */
function readKeys(path: string): OAuthKeys | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // RepLedger never writes this file in place, so a malformed one was damaged or edited by hand.
  // Making new keys over it would sign every client out and split replicas that already read it.
  const refuse = (what: string) =>
    new Error(
      `${path} is not a RepLedger OAuth keys file (${what}). Restore it from your copy, or remove it ` +
        'to have new keys made (every client is then signed out).',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refuse(text.length === 0 ? 'it is empty' : `not JSON: ${(error as Error).message}`);
  }
  const keys = parsed as Partial<OAuthKeys> | null;
  const signing = keys?.signing as Record<string, unknown> | undefined;
  if (typeof signing !== 'object' || signing === null || typeof signing.kty !== 'string' || typeof signing.d !== 'string') {
    throw refuse('no private signing key');
  }
  if (!Array.isArray(keys!.cookies) || keys!.cookies.length === 0 || !keys!.cookies.every((k) => typeof k === 'string' && k.length > 0)) {
    throw refuse('no cookie keys');
  }
  return keys as OAuthKeys;
}

/** Writes `text` to a new file at `path` readable by this user only, and syncs it to disk. */
function writeSynced(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    // The mode given to open is narrowed by the umask but never widened; this makes it exactly 0600.
    fchmodSync(fd, 0o600);
    const bytes = Buffer.from(text);
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a new directory entry durable: without it a crash may lose a link that was made. */
function syncDirectory(directory: string): void {
  // Windows cannot open a directory to sync it; NTFS journals the entry itself.
  if (process.platform === 'win32') return;
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
