// Password hashing with scrypt (memory-hard), compared in constant time. The parameters are
// OWASP's recommendation (N=2^17, r=8, p=1: 128 MiB and a few hundred ms a hash). Each hash
// carries the parameters it was made with, so older hashes still verify and are replaced at the
// next successful sign-in (see `hashIsCurrent`).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * A hash at N=2^17 takes ~0.7 s of CPU on the CI machines, and the test suite makes hundreds (every
 * sign-up and sign-in): test/run.ts sets REPLEDGER_TEST_SCRYPT_N=16384 for the files it runs. It is
 * honoured only with NODE_ENV=test, so that a stray variable cannot weaken a deployment's hashes;
 * test/web/password.test.ts checks the production cost in a process without it.
 */
const TEST_N = process.env.NODE_ENV === 'test' ? Number(process.env.REPLEDGER_TEST_SCRYPT_N) : NaN;
export const PASSWORD_PARAMS = { N: TEST_N >= 2 ** 10 ? TEST_N : 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, o: ScryptOptions & { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, o, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PASSWORD_PARAMS);
  return ['scrypt', PASSWORD_PARAMS.N, PASSWORD_PARAMS.r, PASSWORD_PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: PASSWORD_PARAMS.maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made with today's parameters; if not, it is replaced at sign-in. */
export function hashIsCurrent(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme === 'scrypt' && Number(n) === PASSWORD_PARAMS.N && Number(r) === PASSWORD_PARAMS.r && Number(p) === PASSWORD_PARAMS.p;
}
