// What the KurrentDB key store makes of the server's answers, without a server: the client is the
// real one (`@kurrent/kurrentdb-client`, its own error classes), with its stream calls answered by
// a small model of the server. The model follows KurrentDB's commit check (IndexWriter.CheckCommit,
// src/KurrentDB.Core/Services/Storage/ReaderIndex/IndexWriter.cs): an append expecting no stream
// to a stream whose first event has the same event id is a repeat, answered with success and not
// written again, whatever its data; with another event id it is a wrong expected version; to a
// tombstoned stream, StreamDeleted. Reads of a tombstoned stream fail with StreamDeletedError, of
// a missing one with StreamNotFoundError (the client's tombstoneStream and readStream tests).
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ANY,
  KurrentDBClient,
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendStreamState,
  type EventData,
  type StreamMetadata,
} from '@kurrent/kurrentdb-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyConflictError, type ProposalKey } from '../../services/store/key-store.ts';
import { KurrentKeyStore } from '../../services/store/kurrentdb/key-store.ts';

const URL = 'kurrentdb://localhost:2113?tls=false';

interface Stored {
  id: string;
  data: unknown;
}

/** A real client whose appends, reads, tombstones and metadata go to an in-memory model of the server. */
function modelClient(): KurrentDBClient {
  const streams = new Map<string, Stored[]>();
  const tombstoned = new Set<string>();
  const truncated = new Map<string, number>();
  const client = KurrentDBClient.connectionString(URL);
  Object.assign(client, {
    appendToStream: async (stream: string, event: EventData | EventData[], { streamState = ANY }: { streamState?: AppendStreamState } = {}) => {
      const events = Array.isArray(event) ? event : [event];
      if (tombstoned.has(stream)) throw StreamDeletedError.fromStreamName(stream);
      const existing = streams.get(stream) ?? [];
      if (streamState === NO_STREAM && existing.length > 0) {
        // A repeat of the stream's first events (by event id only): success, nothing written.
        if (events.every((e, i) => existing[i]?.id === e.id)) {
          return { success: true, nextExpectedRevision: BigInt(events.length - 1), position: undefined };
        }
        throw new WrongExpectedVersionError(undefined, { streamName: stream, current: BigInt(existing.length - 1), expected: NO_STREAM });
      }
      existing.push(...events.map((e) => ({ id: e.id, data: e.data })));
      streams.set(stream, existing);
      return { success: true, nextExpectedRevision: BigInt(existing.length - 1), position: undefined };
    },
    readStream: async function* (stream: string, { maxCount = Number.MAX_SAFE_INTEGER }: { maxCount?: number } = {}) {
      if (tombstoned.has(stream)) throw StreamDeletedError.fromStreamName(stream);
      const events = streams.get(stream);
      if (!events) throw new StreamNotFoundError(undefined, stream);
      const from = truncated.get(stream) ?? 0;
      for (const [revision, e] of events.entries()) {
        if (revision < from) continue;
        if (maxCount-- <= 0) return;
        yield { event: { id: e.id, revision: BigInt(revision), data: e.data, streamId: stream } };
      }
    },
    tombstoneStream: async (stream: string) => {
      if (tombstoned.has(stream)) throw StreamDeletedError.fromStreamName(stream);
      tombstoned.add(stream);
      return {};
    },
    setStreamMetadata: async (stream: string, metadata: StreamMetadata) => {
      if (typeof metadata.truncateBefore === 'number') truncated.set(stream, metadata.truncateBefore);
      return { success: true, nextExpectedRevision: 0n, position: undefined };
    },
  });
  return client;
}

function key(createdAt = '2026-05-01T10:00:00.000Z'): ProposalKey {
  return { id: randomUUID(), athlete_id: randomUUID(), key: randomBytes(32), created_at: createdAt };
}

test('another key under a used id is refused, though the server answers a repeated event id with success', async () => {
  const store = new KurrentKeyStore(URL, modelClient());
  try {
    const k = key();
    await store.put(k);
    await store.put({ ...k, key: Buffer.from(k.key) });
    assert.equal(await store.get(k.id), k, 'the same key again changes nothing');
    const refused = await store.put({ ...k, key: randomBytes(32) }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(refused, KeyConflictError);
    assert.equal(await store.get(k.id), k, 'the stored key is kept');
    assert.is(await store.destroyBefore(new Date('2999-01-01T00:00:00.000Z')), 1, 'one key, stored once');
  } finally {
    await store.close();
  }
});

test('a destroyed key reads as null, stays destroyed when put again, and is counted once', async () => {
  const store = new KurrentKeyStore(URL, modelClient());
  try {
    const [old, recent] = [key('2026-05-01T10:00:00.000Z'), key('2026-06-01T10:00:00.000Z')];
    await store.put(old);
    await store.put(recent);
    assert.is(await store.destroyBefore(new Date('2026-05-15T00:00:00.000Z')), 1);
    assert.is(await store.get(old.id), null);
    assert.equal(await store.get(recent.id), recent);
    await store.put(old);
    assert.is(await store.get(old.id), null, 'a put after the purge does not bring it back');
    assert.is(await store.destroyBefore(new Date('2026-05-15T00:00:00.000Z')), 0, 'tombstoned already: not counted again');
    assert.is(await store.get(randomUUID()), null, 'an id never stored');
  } finally {
    await store.close();
  }
});

test.run();
