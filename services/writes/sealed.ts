// Proposal details sealed with a key of their own. The event log is append-only, so what the
// retention period removes (the actions, their summaries, the earlier bodies undo needs) is
// written encrypted, and removing it means destroying its key (crypto-shredding). Keys live in a
// collection of the read store that no projection owns and no replay rebuilds.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { Sealed } from '../../contracts/events.ts';
import type { Clock } from '../domain/clock.ts';
import type { CollectionSpec, Doc, ReadStore } from '../store/read-store.ts';

const KEYS = 'proposal_keys';

interface KeyDoc extends Doc {
  id: string;
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
    await this.#reads.upsert(KEYS, athleteId, { id: keyId, key: key.toString('base64'), created_at: this.#clock.now().toISOString() } satisfies KeyDoc);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    // The key id is bound in as associated data: a blob moved under another key does not open.
    cipher.setAAD(Buffer.from(keyId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return { key_id: keyId, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
  }

  /** The sealed value, or null once its key is destroyed. */
  async open<T>(athleteId: string, sealed: Sealed): Promise<T | null> {
    const doc = await this.#reads.get<KeyDoc>(KEYS, athleteId, sealed.key_id);
    if (!doc) return null;
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(doc.key, 'base64'), Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(sealed.key_id));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }
}
