// The key store port: proposals' keys (services/writes/sealed.ts), primary data that no replay can
// rebuild. It lives with the event log's data, not in the read store: the read store can be
// dropped and rebuilt without losing the ability to approve a pending proposal or undo a saved one,
// and a backup of the event log covers the keys. Removing a key is how retention removes what it
// sealed (crypto-shredding), so `destroyBefore` is a real deletion on each engine.
// Adapters: embedded SQLite (a table in the events database) and KurrentDB (a stream per key).

/** One proposal's key (AES-256-GCM, 32 bytes) and when it was made. */
export interface ProposalKey {
  /** A uuid, named by what it sealed (`key_id`). */
  id: string;
  athlete_id: string;
  key: Buffer;
  /** ISO 8601, by the service's clock: retention counts from it. */
  created_at: string;
}

export interface KeyStore {
  readonly engine: string;
  /**
   * Stores a key. Idempotent: storing one that is there already (the same bytes) does nothing, so a
   * move from elsewhere may be repeated. A different key under an id already used is refused
   * (`KeyConflictError`) and the stored one is kept.
   */
  put(key: ProposalKey): Promise<void>;
  /** The key with this id, or null: never stored, or destroyed. */
  get(id: string): Promise<ProposalKey | null>;
  /** Destroys every key made before `cutoff` (strictly); returns how many it destroyed. */
  destroyBefore(cutoff: Date): Promise<number>;
  /**
   * Destroys every key of an athlete (their account's deletion), as `destroyBefore` destroys: those
   * stored with `athleteId` and those named in `keyIds` (the ids their record stream sealed with,
   * for an engine whose list of keys keeps no athlete). Returns how many it destroyed.
   */
  destroyOf(athleteId: string, keyIds: readonly string[]): Promise<number>;
  /**
   * Destroys the named keys only, as `destroyBefore` destroys (the Hevy API key's, when the athlete
   * disconnects or it is sealed again under a new key). Returns how many it destroyed.
   */
  destroy(keyIds: readonly string[]): Promise<number>;
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export class KeyConflictError extends Error {
  readonly id: string;
  constructor(id: string) {
    super(`key ${id} is stored already with other bytes; the stored key is kept`);
    this.name = 'KeyConflictError';
    this.id = id;
  }
}

/** `put`'s check on a key found under the id being stored. */
export function assertSameKey(stored: ProposalKey, key: ProposalKey): void {
  if (!stored.key.equals(key.key)) throw new KeyConflictError(key.id);
}
