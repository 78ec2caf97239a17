// Proposal details sealed with a key of their own. The event log is append-only, so what the
// retention period removes (the actions, their summaries, the earlier bodies undo needs) is
// written encrypted, and removing it means destroying its key (crypto-shredding). Keys live in a
// collection of the read store that no projection owns and no replay rebuilds.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { Sealed } from '../../contracts/events.ts';
import type { Clock } from '../domain/clock.ts';
import type { CollectionSpec, Doc, ReadStore } from '../store/read-store.ts';

const KEYS = 'proposal_keys';
/**
 * One partition for every athlete's keys: key ids are random uuids, and the retention purge walks
 * them by age in one range, whoever they belong to.
 */
const PARTITION = 'keys';

interface KeyDoc extends Doc {
  id: string;
  athlete_id: string;
  key: string;
  created_at: string;
}

export class SealedDetails {
  static readonly collections: CollectionSpec[] = [{ name: KEYS, indexes: [{ name: 'by_created', fields: ['created_at', 'id'] }] }];
  readonly #reads: ReadStore;
  readonly #clock: Clock;

  constructor(reads: ReadStore, clock: Clock) {
    this.#reads = reads;
    this.#clock = clock;
  }

  /**
   * Encrypts `value` under a new key, stored first: an event that names a key is never written
   * without it. A key whose event was never written (the append lost a race) is purged with the rest.
   */
  async seal(athleteId: string, value: unknown): Promise<Sealed> {
    const key = randomBytes(32);
    const keyId = randomUUID();
    await this.#reads.upsert(KEYS, PARTITION, { id: keyId, athlete_id: athleteId, key: key.toString('base64'), created_at: this.#clock.now().toISOString() } satisfies KeyDoc);
    return encrypt(keyId, key, value);
  }

  /** Encrypts `value` under the key of an earlier seal (a commit's before-images, under its proposal's key). */
  async sealWith(keyId: string, value: unknown): Promise<Sealed> {
    const doc = await this.#reads.get<KeyDoc>(KEYS, PARTITION, keyId);
    if (!doc) throw new Error(`key ${keyId} is gone`);
    return encrypt(keyId, Buffer.from(doc.key, 'base64'), value);
  }

  /** The sealed value, or null once its key is destroyed. */
  async open<T>(sealed: Sealed): Promise<T | null> {
    const doc = await this.#reads.get<KeyDoc>(KEYS, PARTITION, sealed.key_id);
    if (!doc) return null;
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(doc.key, 'base64'), Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(sealed.key_id));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /** Destroys every key made before `cutoff`; returns how many. What they sealed can no longer be read. */
  async destroyBefore(cutoff: Date): Promise<number> {
    let destroyed = 0;
    for (;;) {
      const batch = await this.#reads.page<KeyDoc>(KEYS, { partition: PARTITION, index: 'by_created', direction: 'asc', limit: 500, range: { lte: cutoff.toISOString() } });
      const old = batch.filter((k) => k.created_at < cutoff.toISOString());
      for (const k of old) await this.#reads.delete(KEYS, PARTITION, k.id);
      destroyed += old.length;
      if (old.length < 500) return destroyed;
    }
  }
}

function encrypt(keyId: string, key: Buffer, value: unknown): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // The key id is bound in as associated data: a blob moved under another key does not open.
  cipher.setAAD(Buffer.from(keyId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { key_id: keyId, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}
