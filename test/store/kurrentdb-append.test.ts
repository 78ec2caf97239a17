// What the KurrentDB adapter makes of the client's answers to an append, without a server: the
// client is the real one (`@kurrent/kurrentdb-client`), with its append (and, where the adapter
// reads back, its stream read) standing in for the server. The errors are the client's own classes.
import {
  KurrentDBClient,
  MaxAppendSizeExceededError,
  WrongExpectedVersionError,
  type AppendResult as ClientAppendResult,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppendTooLargeError, WrongExpectedRevisionError, appendSize } from '../../services/store/event-store.ts';
import { KurrentEventStore } from '../../services/store/kurrentdb/event-store.ts';

const URL = 'kurrentdb://localhost:2113?tls=false';
const event = { type: 'workout.created', data: { id: 'w1', title: 'Squats 💪' }, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } };

/** A real client whose append answers `answer` and whose stream reads yield `head` (the last event). */
function clientAnswering(answer: () => Promise<ClientAppendResult>, head?: bigint): KurrentDBClient {
  const client = KurrentDBClient.connectionString(URL);
  Object.assign(client, {
    appendToStream: answer,
    readStream: async function* (): AsyncGenerator<Partial<ResolvedEvent>> {
      if (head !== undefined) yield { event: { revision: head } as ResolvedEvent['event'] };
    },
  });
  return client;
}

test('a connection string with throwOnAppendFailure=false is refused, in any spelling the client accepts', async () => {
  for (const option of ['throwOnAppendFailure=false', 'ThrowOnAppendFailure=false', 'throw-on-append-failure=false']) {
    assert.throws(() => new KurrentEventStore(`${URL}&${option}`), /throwOnAppendFailure=false/, option);
  }
  const accepted = [new KurrentEventStore(URL), new KurrentEventStore(`${URL}&throwOnAppendFailure=true`)];
  for (const store of accepted) await store.close();
});

test('an append the client reports as `success: false` is a conflict, with the revision read back', async () => {
  // The shape the client's batch append resolves with when it does not throw on a conflict.
  const store = new KurrentEventStore(
    URL,
    clientAnswering(async () => ({ success: false, nextExpectedRevision: 1n, position: undefined }), 4n),
  );
  try {
    await store.append('record-a', [event], 2);
    assert.unreachable('a refused append must not look like a success');
  } catch (error) {
    assert.instance(error, WrongExpectedRevisionError);
    assert.is((error as WrongExpectedRevisionError).actual, 4);
    assert.is((error as WrongExpectedRevisionError).expected, 2);
  } finally {
    await store.close();
  }
});

test("the client's conflict and maximum-append-size errors become the port's", async () => {
  const conflict = new KurrentEventStore(
    URL,
    clientAnswering(async () => {
      throw new WrongExpectedVersionError(undefined, { streamName: 'record-a', current: 7n, expected: 2n });
    }),
  );
  const tooLarge = new KurrentEventStore(
    URL,
    clientAnswering(async () => {
      throw MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576);
    }),
  );
  try {
    const refused = await conflict.append('record-a', [event], 2).catch((e: unknown) => e);
    assert.instance(refused, WrongExpectedRevisionError);
    assert.is((refused as WrongExpectedRevisionError).actual, 7);
    const large = await tooLarge.append('record-a', [event, event], 'any').catch((e: unknown) => e);
    assert.instance(large, AppendTooLargeError);
    assert.is((large as AppendTooLargeError).maxBytes, 1_048_576);
    assert.match((large as Error).message, '1048576 bytes');
  } finally {
    await conflict.close();
    await tooLarge.close();
  }
});

test('appendSize counts what KurrentDB counts: UTF-8 JSON of data and metadata, twice the type length', () => {
  const data = JSON.stringify(event.data);
  const metadata = JSON.stringify(event.metadata);
  // The emoji is 2 UTF-16 units and 4 UTF-8 bytes.
  assert.is(appendSize([event]), data.length + 2 + metadata.length + 2 * 'workout.created'.length);
  assert.is(appendSize([event, event]), 2 * appendSize([event]));
});

test.run();
