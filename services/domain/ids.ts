import { createHash } from 'node:crypto';

const RECORD_NAMESPACE = 'c5a1f9d2-6b1e-4f0a-9a57-2f1c0d8e7b41';

/**
 * A name-based (RFC 9562 version 5) UUID. Imports derive ids from what the source file says, so
 * importing the same workout twice names the same record.
 */
export function nameUuid(name: string, namespace = RECORD_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
