// The event store port over KurrentDB (gRPC, `@kurrent/kurrentdb-client`).
//
// Positions: the port's `position` is the event's commit position in $all. KurrentDB writes every
// event of an append as its own self-committed prepare record, so commit === prepare for each event
// and positions are distinct and strictly increasing; we pass `{ commit: p, prepare: p }` back when
// reading from a position. They are byte offsets in the transaction log and stay far below 2^53
// (that would be 8 PiB of log), so they are converted to numbers (checked).
//
// System events (KurrentDB's own `$`-prefixed event types, link events `$>` from the standard
// projections, and anything in `$`-prefixed streams) are not part of the port's log: they are
// filtered out server-side with `excludeSystemEvents()` and, for streams, skipped here. So are the
// key store's streams (./key-store.ts): proposals' keys live in the same database, not in the log
// that projections and copies of the log read.
import {
  ANY,
  BACKWARDS,
  END,
  KurrentDBClient,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import {
  AppendTooLargeError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type StoredEvent,
  type Subscription,
} from '../event-store.ts';
import { isKeyStream } from './key-store.ts';

type AnyResolved = ResolvedEvent | AllStreamResolvedEvent;

function toNumber(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`KurrentDB returned ${what} ${value}, outside the range this adapter supports`);
  }
  return Number(value);
}

function toPosition(position: number): Position {
  const p = BigInt(position);
  return { commit: p, prepare: p };
}

/** `after` as a read position: 0 means the start of $all. */
function readFrom(after: number): ReadPosition {
  return after > 0 ? toPosition(after) : START;
}

/** The commit position of a read or subscribed event, as a bigint; throws when the server sent none. */
function commitOf(resolved: AnyResolved): bigint {
  const commit = resolved.event?.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) {
    throw new Error(
      `KurrentDB did not report the $all position of an event in ${resolved.event?.streamId ?? 'an unknown stream'} ` +
        '(stream reads carry it from server version 22.6)',
    );
  }
  return commit;
}

/** Whether an event belongs to the port's log (not KurrentDB's own bookkeeping, nor a proposal key). */
function isVisible(resolved: AnyResolved): boolean {
  const e = resolved.event;
  return e !== undefined && !e.type.startsWith('$') && !e.streamId.startsWith('$') && !isKeyStream(e.streamId);
}

function toStored(resolved: AnyResolved): StoredEvent {
  const e = resolved.event!;
  const metadata = e.metadata;
  return {
    stream: e.streamId,
    revision: toNumber(e.revision, 'stream revision'),
    position: toNumber(commitOf(resolved), 'commit position'),
    type: e.type,
    data: e.data,
    metadata:
      metadata && typeof metadata === 'object' && !Array.isArray(metadata) && !(metadata instanceof Uint8Array) ? (metadata as Record<string, unknown>) : {},
  };
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
}

/** The connection string without user:password (and without query values that look secret). */
function redact(connectionString: string): string {
  const withoutUser = connectionString.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1');
  const [base, query] = withoutUser.split('?', 2) as [string, string | undefined];
  if (!query) return base;
  const kept = query.split('&').filter((pair) => !/pass|secret|token|credential/i.test(pair.split('=')[0] ?? ''));
  return kept.length ? `${base}?${kept.join('&')}` : base;
}

/** Page size when a subscription or scan has to read past skipped events. */
const SCAN_BATCH = 100;

export class KurrentEventStore implements EventStore {
  readonly engine = 'kurrentdb';
  readonly #client: KurrentDBClient;
  readonly #connection: string;

  /**
   * `connectionString`, e.g. `kurrentdb://localhost:2113?tls=false`. The client connects lazily.
   * `client` is for tests that need to stand in for the server; by default it is made from the string.
   */
  constructor(connectionString: string, client: KurrentDBClient = KurrentDBClient.connectionString(connectionString)) {
    // With `throwOnAppendFailure=false` (in any spelling the client accepts) a version conflict
    // comes back as `{ success: false }` instead of an error: the expected-revision check that
    // approval and undo rely on would then hang on one `if`. Refuse the option where it is set.
    // The client's typings mark the getter protected; it is the one place this setting is decided
    // (the connection string parser accepts several spellings), so read it rather than re-parse.
    if (Reflect.get(client, 'throwOnAppendFailure') !== true) {
      throw new Error('KURRENTDB_URL sets throwOnAppendFailure=false; RepLedger needs conflicting appends to fail. Remove the option.');
    }
    this.#client = client;
    this.#connection = redact(connectionString);
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const proposed = events.map((e) => jsonEvent({ type: e.type, data: e.data as JSONType, metadata: e.metadata as JSONType }));
    let result: Awaited<ReturnType<KurrentDBClient['appendToStream']>>;
    try {
      // One append is one atomic write, whatever its size: the client splits the request into
      // gRPC messages of 3 MiB (batchAppendSize), but the server commits all events or none.
      // KurrentDB refuses as a whole an append larger than its maximum append size (MaxAppendSize:
      // 256 MiB by default and at most from 25.1 on; 1 MiB by default and at most 16,767,216 bytes
      // on 25.0), and an event larger than MaxAppendEventSize (16 MiB). An import appends a whole
      // file's workouts in one append; docker-compose.yml pins 26.0, whose defaults leave room.
      result = await this.#client.appendToStream(stream, proposed, { streamState: toStreamState(expected) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualState === NO_STREAM ? 'no_stream' : toNumber(error.actualState, 'stream revision');
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      if (error instanceof MaxAppendSizeExceededError) {
        throw new AppendTooLargeError(stream, events.length, error.maxAppendSize, { cause: error });
      }
      throw error;
    }
    if (!result.success) {
      // Only reachable if the client stops throwing on a conflict (the constructor refuses the
      // option that does that). Its `nextExpectedRevision` cannot be trusted here: the batch-append
      // path reports BigInt(hasCurrentStreamRevision()), i.e. 1 or -1. Read where the stream is.
      throw new WrongExpectedRevisionError(stream, expected, await this.#revisionOf(stream));
    }
    const revision = toNumber(result.nextExpectedRevision, 'stream revision');
    // The server reports the commit position of the last event written; older servers may omit it.
    const position = result.position ? toNumber(result.position.commit, 'commit position') : await this.#positionOf(stream, revision);
    return { revision, position };
  }

  async readStream(stream: string, from = 0, limit?: number): Promise<StoredEvent[]> {
    if (limit !== undefined && limit <= 0) return [];
    return this.#read(stream, BigInt(from), limit);
  }

  async readRevisions(stream: string, revisions: readonly number[]): Promise<StoredEvent[]> {
    // KurrentDB reads a stream forwards from one revision; each asked event is one short read, in parallel.
    const read = await Promise.all([...new Set(revisions)].sort((a, b) => a - b).map((r) => this.#read(stream, BigInt(r), 1)));
    return read.flat();
  }

  async #read(stream: string, fromRevision: bigint, maxCount?: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of this.#client.readStream(stream, maxCount === undefined ? { fromRevision } : { fromRevision, maxCount })) {
        if (resolved.event) out.push(toStored(resolved));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async streamRevision(stream: string): Promise<number | 'no_stream'> {
    return this.#revisionOf(stream);
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    if (limit <= 0) return out;
    let cursor = after;
    while (out.length < limit) {
      // Reading forwards from an event's position includes that event, so ask for one more.
      const want = limit - out.length + 1;
      let got = 0;
      for await (const resolved of this.#client.readAll({
        fromPosition: readFrom(cursor),
        maxCount: want,
        filter: excludeSystemEvents(),
      })) {
        got++;
        if (!resolved.event) continue;
        const position = toNumber(commitOf(resolved), 'commit position');
        if (position <= cursor) continue;
        cursor = position;
        if (!isVisible(resolved)) continue;
        out.push(toStored(resolved));
        if (out.length === limit) break;
      }
      // A filtered read returns `maxCount` events unless it reached the end of $all.
      if (got < want) break;
    }
    return out;
  }

  async headPosition(): Promise<number> {
    let from: ReadPosition = END;
    let batch = 1;
    for (;;) {
      let got = 0;
      let last: bigint | undefined;
      // Backwards reads exclude the event at `fromPosition`, so paging on from `last` is exact.
      for await (const resolved of this.#client.readAll({
        direction: BACKWARDS,
        fromPosition: from,
        maxCount: batch,
        filter: excludeSystemEvents(),
      })) {
        got++;
        if (!resolved.event) continue;
        last = commitOf(resolved);
        if (isVisible(resolved)) return toNumber(last, 'commit position');
      }
      if (got < batch || last === undefined) return 0;
      from = { commit: last, prepare: last };
      batch = SCAN_BATCH;
    }
  }

  subscribeAll(after: number, handler: (event: StoredEvent) => Promise<void>, onError: (error: unknown) => void): Subscription {
    // A catch-up subscription: KurrentDB delivers the events after `fromPosition`, then live ones.
    // Iterating the subscription stream applies backpressure, so one handler call runs at a time.
    const subscription = this.#client.subscribeToAll({ fromPosition: readFrom(after), filter: excludeSystemEvents() });
    let stopped = false;
    let last = after;
    const loop = (async () => {
      try {
        for await (const resolved of subscription) {
          if (stopped) return;
          if (!resolved.event) continue;
          const position = toNumber(commitOf(resolved), 'commit position');
          // Guards against a start position being delivered again (and against replays after a reconnect).
          if (position <= last || !isVisible(resolved)) continue;
          await handler(toStored(resolved));
          last = position;
        }
        if (!stopped) throw new Error('the KurrentDB subscription ended unexpectedly');
      } finally {
        await subscription.unsubscribe().catch(() => undefined);
      }
    })().catch((error: unknown) => {
      if (stopped) return; // the stream was torn down by stop()
      stopped = true;
      onError(error);
    });
    return {
      stop: async () => {
        stopped = true;
        await subscription.unsubscribe().catch(() => undefined);
        // Ends the iteration even if the cancelled gRPC call never ends the stream.
        subscription.destroy();
        await loop;
      },
    };
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, connection: this.#connection, head_position: await this.headPosition() };
  }

  /**
   * KurrentDB's soft delete: the stream reads as absent, and an append expecting no stream starts
   * it again (a deleted account's e-mail can sign up again). Its events stay on disk, and in $all,
   * until the next scavenge: docs/decisions.md, "Deleting an account".
   */
  async deleteStream(stream: string): Promise<void> {
    try {
      await this.#client.deleteStream(stream);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError) && !(error instanceof StreamDeletedError)) throw error;
    }
  }

  /** Nothing to do at once: a scavenge, which the operator schedules, removes deleted streams' events. */
  async eraseFreedSpace(): Promise<void> {}

  async close(): Promise<void> {
    await this.#client.dispose();
  }

  /** The revision of a stream's last event, or `no_stream`. */
  async #revisionOf(stream: string): Promise<number | 'no_stream'> {
    try {
      for await (const resolved of this.#client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) return toNumber(resolved.event.revision, 'stream revision');
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return 'no_stream';
  }

  /** The $all position of one event, for servers that do not report it on append. */
  async #positionOf(stream: string, revision: number): Promise<number> {
    for await (const resolved of this.#client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 })) {
      return toNumber(commitOf(resolved), 'commit position');
    }
    throw new Error(`event ${revision} of ${stream} was appended but cannot be read back`);
  }
}
