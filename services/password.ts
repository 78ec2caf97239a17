// Password hashing with scrypt (memory-hard), compared in constant time. The parameters are
// OWASP's recommendation (N=2^17, r=8, p=1: 128 MiB and a few hundred ms a hash). Each hash
// carries the parameters it was made with, so older hashes still verify and are replaced at the
// next successful sign-in (see `hashIsCurrent`).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, o: ScryptOptions & { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, o, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made with today's parameters; if not, it is replaced at sign-in. */
export function hashIsCurrent(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme === 'scrypt' && Number(n) === PARAMS.N && Number(r) === PARAMS.r && Number(p) === PARAMS.p;
}
