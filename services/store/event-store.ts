// The event store port. Adapters: embedded SQLite (default) and KurrentDB.

export interface NewEvent {
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

export interface StoredEvent {
  stream: string;
  /** 0-based revision of the event within its stream. */
  revision: number;
  /** Global position: strictly increasing across all streams, > 0. Opaque apart from order. */
  position: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** A stream revision (the revision of its last event), `no_stream`, or `any` for no check. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Revision of the last appended event in the stream. */
  revision: number;
  /** Global position of the last appended event. */
  position: number;
}

export class WrongExpectedRevisionError extends Error {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly actual: number | 'no_stream';
  constructor(stream: string, expected: ExpectedRevision, actual: number | 'no_stream') {
    super(`stream ${stream} is at revision ${actual}, expected ${expected}`);
    this.name = 'WrongExpectedRevisionError';
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * The store refused an append as a whole because it is larger than the store's maximum append
 * size. Nothing was written. KurrentDB counts, for each event, the bytes of its data and of its
 * metadata (each as UTF-8 JSON) plus twice the length of its type: `appendSize` below.
 */
export class AppendTooLargeError extends Error {
  readonly stream: string;
  /** The store's limit in bytes, as the store reported it. */
  readonly maxBytes: number;
  constructor(stream: string, events: number, maxBytes: number, options?: ErrorOptions) {
    super(`append of ${events} events to ${stream} exceeds the event store's maximum append size (${maxBytes} bytes)`, options);
    this.name = 'AppendTooLargeError';
    this.stream = stream;
    this.maxBytes = maxBytes;
  }
}

/** An append's size as KurrentDB measures it against its maximum append size. */
export function appendSize(events: NewEvent[]): number {
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
  return events.reduce((sum, e) => sum + bytes(e.data) + bytes(e.metadata) + 2 * e.type.length, 0);
}

export interface Subscription {
  /** Stops delivery; resolves once no handler call is running. */
  stop(): Promise<void>;
}

export interface EventStore {
  readonly engine: string;
  /** Appends all events or none; fails with WrongExpectedRevisionError if the stream moved. */
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * The events of a stream in order from revision `from` (0: from the start), at most `limit` of
   * them (all when left out): a long stream can be read a page at a time, in memory bounded by the
   * page. An empty array for a stream that does not exist or has no event at or past `from`.
   */
  readStream(stream: string, from?: number, limit?: number): Promise<StoredEvent[]>;
  /** The events of a stream at the given revisions, in revision order; revisions not in it are left out. */
  readRevisions(stream: string, revisions: readonly number[]): Promise<StoredEvent[]>;
  /** The revision of a stream's last event, or `no_stream`. */
  streamRevision(stream: string): Promise<number | 'no_stream'>;
  /** Up to `limit` events with a global position greater than `after` (0 = from the start). */
  readAll(after: number, limit: number): Promise<StoredEvent[]>;
  /** Position of the last event in the store; 0 when empty. */
  headPosition(): Promise<number>;
  /**
   * Delivers every event after `after`, then new ones as they are appended, one at a time and
   * in order. A handler that throws stops the subscription and reports through `onError`.
   */
  subscribeAll(after: number, handler: (event: StoredEvent) => Promise<void>, onError: (error: unknown) => void): Subscription;
  /**
   * Deletes a stream with its events (an account's deletion): from then on it reads as absent and
   * an append expecting `no_stream` starts it again. Deleting a stream that does not exist does
   * nothing. How soon the bytes are gone from the engine's files is the engine's: see
   * `eraseFreedSpace`.
   */
  deleteStream(stream: string): Promise<void>;
  /**
   * Makes what `deleteStream` (and the read store's and key store's deletions sharing its files)
   * removed unreadable in the store's files, where the engine can do it at once: SQLite rewrites
   * the database and truncates the WAL; KurrentDB leaves it to a scavenge (docs/decisions.md).
   */
  eraseFreedSpace(): Promise<void>;
  /** A short description of where the events live, for /health. Never includes credentials. */
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
