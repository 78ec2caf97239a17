// Proposal details sealed with a key of their own. The event log is append-only, so what the
// retention period removes (the actions, their summaries, the earlier bodies undo needs) is
// written encrypted, and removing it means destroying its key (crypto-shredding). Keys are primary
// data, which no replay can bring back: they live in the key store, with the event log's data
// (services/store/key-store.ts), never in the read store, which may be dropped and rebuilt.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { Sealed } from '../../contracts/events.ts';
import type { Clock } from '../domain/clock.ts';
import { KeyConflictError, type KeyStore } from '../store/key-store.ts';
import type { CollectionSpec, Doc, ReadStore } from '../store/read-store.ts';

export class SealedDetails {
  /** None: the keys are not in the read store (stores made before are moved out by `moveKeysOutOfReadStore`). */
  static readonly collections: CollectionSpec[] = [];
  readonly #keys: KeyStore;
  readonly #clock: Clock;

  constructor(keys: KeyStore, clock: Clock) {
    this.#keys = keys;
    this.#clock = clock;
  }

  /**
   * Encrypts `value` under a new key, stored first: an event that names a key is never written
   * without it. A key whose event was never written (the append lost a race) is purged with the rest.
   */
  async seal(athleteId: string, value: unknown): Promise<Sealed> {
    const key = randomBytes(32);
    const keyId = randomUUID();
    await this.#keys.put({ id: keyId, athlete_id: athleteId, key, created_at: this.#clock.now().toISOString() });
    return encrypt(keyId, key, value);
  }

  /** Encrypts `value` under the key of an earlier seal (a commit's before-images, under its proposal's key). */
  async sealWith(keyId: string, value: unknown): Promise<Sealed> {
    const stored = await this.#keys.get(keyId);
    if (!stored) throw new Error(`key ${keyId} is gone`);
    return encrypt(keyId, stored.key, value);
  }

  /** The sealed value, or null once its key is destroyed. */
  async open<T>(sealed: Sealed): Promise<T | null> {
    const stored = await this.#keys.get(sealed.key_id);
    if (!stored) return null;
    const decipher = createDecipheriv('aes-256-gcm', stored.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(sealed.key_id));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /** Destroys every key made before `cutoff`; returns how many. What they sealed can no longer be read. */
  async destroyBefore(cutoff: Date): Promise<number> {
    return this.#keys.destroyBefore(cutoff);
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

/**
 * Where releases before keys were primary data kept them: a collection of the read store, one
 * partition for every athlete's keys, walked by age.
 */
export const READ_STORE_KEYS: CollectionSpec = { name: 'proposal_keys', indexes: [{ name: 'by_created', fields: ['created_at', 'id'] }] };
const READ_STORE_PARTITION = 'keys';
/** Keys moved at a time: a page is stored in the key store before it is deleted from the read store. */
const MOVE_PAGE = 500;
/** Tries of a move that another process's move (its drop of the collection) got in the way of. */
const MOVE_ATTEMPTS = 3;

interface ReadStoreKeyDoc extends Doc {
  id: string;
  athlete_id: string;
  /** base64 */
  key: string;
  created_at: string;
}

/**
 * Moves the keys a store made before this release kept in the read store into `keys`, then drops
 * the read store's collection. Each page of keys is in the key store before it is deleted from the
 * read store, so a key is never in neither (a start that fails midway leaves the rest where they
 * were, for the next start). Idempotent, and safe for processes starting at once: a key stored
 * twice is stored once, deleting and dropping what is gone already does nothing. Returns how many
 * keys this call moved.
 *
 * For a read store of its own (MongoDB, or SQLite beside KurrentDB). The embedded store, whose
 * read models share the events' file, moves them in one transaction (SqliteKeyStore.adoptReadModelKeys).
 */
export async function moveKeysOutOfReadStore(reads: ReadStore, keys: KeyStore): Promise<number> {
  // Every start after the first finds nothing, and says so without making the collection: MongoDB
  // counts a missing collection as empty (SQLite cannot count a missing table, and goes on below).
  if ((await reads.count(READ_STORE_KEYS.name).catch(() => null)) === 0) {
    await reads.dropCollections([READ_STORE_KEYS.name]);
    return 0;
  }
  let moved = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await reads.ensureCollections([READ_STORE_KEYS]);
      for (;;) {
        const page = await reads.page<ReadStoreKeyDoc>(READ_STORE_KEYS.name, {
          partition: READ_STORE_PARTITION,
          index: 'by_created',
          direction: 'asc',
          limit: MOVE_PAGE,
        });
        if (page.length === 0) break;
        for (const doc of page) await keys.put({ id: doc.id, athlete_id: doc.athlete_id, key: Buffer.from(doc.key, 'base64'), created_at: doc.created_at });
        for (const doc of page) await reads.delete(READ_STORE_KEYS.name, READ_STORE_PARTITION, doc.id);
        moved += page.length;
      }
      await reads.dropCollections([READ_STORE_KEYS.name]);
      return moved;
    } catch (error) {
      // Another process dropped the collection under this one: SQLite then answers "no such
      // table" (MongoDB reads a dropped collection as empty). Made again, it is found empty and
      // dropped. A key refused by the key store is not something a second try changes.
      if (error instanceof KeyConflictError || attempt === MOVE_ATTEMPTS) throw error;
    }
  }
}
