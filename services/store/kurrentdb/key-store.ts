// Proposal keys in KurrentDB, beside the event log they belong to (a backup of the database covers
// both). Each key is the only event of a stream of its own, `proposal_key-<key id>`, so that
// destroying it can be KurrentDB's hard delete of that stream; the stream `proposal_keys` lists
// every key's id and time (no key material) for the purge to find those past retention.
//
// What destroying means here (docs/decisions.md, "Keys as primary data"): `destroyBefore`
// tombstones the key's stream. From then on the stream cannot be read (StreamDeletedError) or
// written again, but the key's event is still in the database file, and reads of $all still
// return it, until a scavenge removes it: a scavenge discards every event of a tombstoned stream
// but the tombstone, up to the scavenge point, on each node that runs it. A soft delete (or $tb,
// $maxAge, $maxCount) would not do: a scavenge always keeps a stream's last event, and a key's
// stream has only that one. The event store adapter leaves these streams out of the port's log.
import {
  ANY,
  KurrentDBClient,
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  StreamTombstonedError,
  WrongExpectedVersionError,
  jsonEvent,
  type JSONType,
} from '@kurrent/kurrentdb-client';
import { assertSameKey, type KeyStore, type ProposalKey } from '../key-store.ts';

const KEY_STREAM_PREFIX = 'proposal_key-';
/** Every key's id and creation time, in the order they were stored. */
const KEY_INDEX_STREAM = 'proposal_keys';
const keyStream = (id: string) => `${KEY_STREAM_PREFIX}${id}`;

/** Whether a stream belongs to the key store: not part of the event store port's log. */
export function isKeyStream(stream: string): boolean {
  return stream.startsWith(KEY_STREAM_PREFIX) || stream === KEY_INDEX_STREAM;
}

interface KeyEventData {
  key_id: string;
  athlete_id: string;
  /** base64 */
  key: string;
  created_at: string;
}

interface IndexEntry {
  key_id: string;
  created_at: string;
}

const isDestroyed = (error: unknown) => error instanceof StreamDeletedError || error instanceof StreamTombstonedError;

export class KurrentKeyStore implements KeyStore {
  readonly engine = 'kurrentdb';
  readonly #client: KurrentDBClient;

  /** `client` is for tests that bring their own; by default it is made from the connection string. */
  constructor(connectionString: string, client: KurrentDBClient = KurrentDBClient.connectionString(connectionString)) {
    this.#client = client;
  }

  /**
   * Lists the key first, then writes its stream: a key is never stored without the entry the purge
   * finds it by. (An entry whose key was never written, the process having stopped between the
   * two, makes the purge tombstone a stream that never existed.)
   *
   * The key's event gets an event id of its own (the client's random one), not the key's id: the
   * server takes an append expecting no stream, whose event ids match the stream's first events,
   * as a repeat and answers success without comparing the data (CheckCommit in KurrentDB's
   * IndexWriter.cs), so with the key's id as event id a different key under a used id would be
   * "stored" silently, not refused. With an id of its own, any second put of an id is a version
   * conflict, and the key already stored decides: the same bytes, nothing to do; others, refused.
   */
  async put(key: ProposalKey): Promise<void> {
    await this.#client.appendToStream(
      KEY_INDEX_STREAM,
      jsonEvent({ type: 'proposal_key.listed', data: { key_id: key.id, created_at: key.created_at } satisfies IndexEntry }),
      { streamState: ANY },
    );
    const data: KeyEventData = { key_id: key.id, athlete_id: key.athlete_id, key: key.key.toString('base64'), created_at: key.created_at };
    try {
      const result = await this.#client.appendToStream(keyStream(key.id), jsonEvent({ type: 'proposal_key.created', data: data as unknown as JSONType }), {
        streamState: NO_STREAM,
      });
      if (!result.success) await this.#assertStored(key);
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return this.#assertStored(key);
      // Destroyed already (a move from the read store after the purge reached it): it stays destroyed.
      if (isDestroyed(error)) return;
      throw error;
    }
  }

  async get(id: string): Promise<ProposalKey | null> {
    try {
      for await (const resolved of this.#client.readStream(keyStream(id), { maxCount: 1 })) {
        const data = resolved.event?.data as KeyEventData | undefined;
        if (data) return { id: data.key_id, athlete_id: data.athlete_id, key: Buffer.from(data.key, 'base64'), created_at: data.created_at };
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || isDestroyed(error)) return null;
      throw error;
    }
    return null;
  }

  /**
   * Tombstones the stream of every listed key made before `cutoff`, then truncates the list
   * ($tb) before its first entry still needed. Counts the streams it tombstoned: one that another
   * process tombstoned first (several instances purge every hour) is not counted again.
   */
  async destroyBefore(cutoff: Date): Promise<number> {
    const limit = cutoff.toISOString();
    const entries: Array<{ revision: bigint; entry: IndexEntry }> = [];
    try {
      for await (const resolved of this.#client.readStream(KEY_INDEX_STREAM)) {
        if (resolved.event) entries.push({ revision: resolved.event.revision, entry: resolved.event.data as unknown as IndexEntry });
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 0;
      throw error;
    }
    let destroyed = 0;
    let firstKept: bigint | null = null;
    for (const { revision, entry } of entries) {
      // Times are compared, not positions: instances' clocks differ a little, so the list is only
      // nearly in time order, and every entry is looked at.
      if (entry.created_at >= limit) {
        firstKept ??= revision;
        continue;
      }
      try {
        await this.#client.tombstoneStream(keyStream(entry.key_id));
        destroyed++;
      } catch (error) {
        if (!isDestroyed(error)) throw error;
      }
    }
    if (entries.length > 0) {
      const truncateBefore = firstKept ?? entries[entries.length - 1]!.revision + 1n;
      if (truncateBefore > entries[0]!.revision) await this.#client.setStreamMetadata(KEY_INDEX_STREAM, { truncateBefore: Number(truncateBefore) });
    }
    return destroyed;
  }

  /**
   * Tombstones the streams of the keys named: the list keeps no athlete, so the caller names them
   * (the `key_id`s the athlete's record stream sealed with). Their entries stay in the list (an id
   * and a time, no key) until `destroyBefore` truncates past them.
   */
  async destroyOf(_athleteId: string, keyIds: readonly string[]): Promise<number> {
    return this.destroy(keyIds);
  }

  /** Tombstones each named key's stream, as `destroyOf` does (the list keeps no athlete, so the two are one). */
  async destroy(keyIds: readonly string[]): Promise<number> {
    let destroyed = 0;
    for (const id of keyIds) {
      try {
        await this.#client.tombstoneStream(keyStream(id));
        destroyed++;
      } catch (error) {
        if (!isDestroyed(error) && !(error instanceof StreamNotFoundError)) throw error;
      }
    }
    return destroyed;
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, streams: `${KEY_STREAM_PREFIX}<key id>`, list: KEY_INDEX_STREAM };
  }

  async close(): Promise<void> {
    await this.#client.dispose();
  }

  /** After a conflicting append: the key stored under this id must be this one. */
  async #assertStored(key: ProposalKey): Promise<void> {
    const stored = await this.get(key.id);
    // Tombstoned between the append and this read: destroyed, as above.
    if (stored) assertSameKey(stored, key);
  }
}
