// The athlete's access history: what each connection read and what it proposed, for the
// connection settings and `repledger connections activity`.
//
// Reads are counted in memory, per (athlete, connection, operation, UTC hour), and flushed to the
// read store every ACCESS_HISTORY_FLUSH_EVERY_MS, when a history is read on this instance, and when the app
// closes: a request costs a map update, never a store write. Each process writes documents of its
// own (keyed by an id it draws at start), so instances sharing a store never overwrite each
// other's counts, and the port needs no atomic increment; readers add them up. A crash loses what
// was counted since the last flush. Proposals come from the proposals projection as they are.
import { randomUUID } from 'node:crypto';
import { ACCESS_HISTORY_FLUSH_EVERY_MS } from '../../contracts/policy.ts';
import type { ProposalStatus } from '../../contracts/write.ts';
import { PROPOSAL_STATUSES } from '../../contracts/write.ts';
import { ATHLETES, ATHLETES_PARTITION } from '../../projections/athletes.ts';
import { PROPOSALS, type ProposalDoc } from '../../projections/proposals.ts';
import {
  ACCESS_HISTORY_DAYS,
  countOf,
  hourOf,
  mergeCounts,
  retentionStart,
  summariseReads,
  type AccessBucket,
  type ReadSummary,
} from '../domain/access-history.ts';
import type { Clock } from '../domain/clock.ts';
import { statusAt } from '../domain/proposal.ts';
import { pagesOf, type CollectionSpec, type Doc, type KeyValue, type ReadStore } from '../store/read-store.ts';

const READS = 'connection_reads';
/**
 * One partition for every athlete's counts, as the proposals' keys have: retention walks them by
 * hour in one range, whoever they belong to.
 */
const PARTITION = 'all';
/** Buckets counted in memory at most before a flush starts early: a bound on memory, not a limit on calls. */
const PENDING_MAX = 10_000;
const PAGE = 500;
/** The newest proposals a history lists (counts cover all of the period). */
const LATEST_PROPOSALS = 5;

interface ReadsDoc extends Doc, AccessBucket {
  /** The process that wrote it: no other writes this document. */
  instance: string;
}

export interface ProposalOutcomes {
  total: number;
  /** Each status as it stands now (a prepared proposal past its expiry counts as expired). */
  counts: Record<ProposalStatus, number>;
  /** Newest prepared first. */
  latest: Array<{
    command_id: string;
    status: ProposalStatus;
    prepared_at: string;
    decided_at: string | null;
    changes: number;
    /** For a batch not saved because the record changed: what changed it (the athlete's own edit, an import, …), when known. */
    changed_by: ChangedByType | null;
  }>;
}

export interface ConnectionHistory {
  /** The first hour (UTC) and the period in days the history covers. */
  since: string;
  days: number;
  reads: ReadSummary;
  proposals: ProposalOutcomes;
}

export class AccessHistory {
  static readonly collections: CollectionSpec[] = [
    {
      name: READS,
      indexes: [
        { name: 'by_connection', fields: ['athlete_id', 'grant_id', 'hour', 'id'] },
        { name: 'by_hour', fields: ['hour', 'id'] },
      ],
    },
  ];

  readonly #reads: ReadStore;
  readonly #clock: Clock;
  readonly #instance = randomUUID();
  #pending = new Map<string, AccessBucket>();
  /** Flushes run one after another, so that this instance's documents have one writer at a time. */
  #flushing: Promise<void> = Promise.resolve();
  #onError: (error: unknown) => void = () => {};

  constructor(reads: ReadStore, clock: Clock) {
    this.#reads = reads;
    this.#clock = clock;
  }

  /** Counts one successful read by a connection: `items` items in its answer. Never waits on the store. */
  record(athleteId: string, grantId: string, operation: string, scope: string | null, items: number): void {
    const now = this.#clock.now().getTime();
    const hour = hourOf(now);
    const key = `${athleteId} ${grantId} ${operation} ${hour}`;
    const count = countOf(items, now);
    const known = this.#pending.get(key);
    this.#pending.set(key, known ? { ...known, ...mergeCounts(known, count) } : { athlete_id: athleteId, grant_id: grantId, operation, scope, hour, ...count });
    if (this.#pending.size >= PENDING_MAX) void this.flush().catch(this.#onError);
  }

  /**
   * Drops what this instance counted for the athlete and has not written (their account's
   * deletion): a later flush must not write it back. Waits for a flush under way first.
   */
  async forget(athleteId: string): Promise<void> {
    await this.#flushing;
    for (const [key, bucket] of this.#pending) if (bucket.athlete_id === athleteId) this.#pending.delete(key);
  }

  /** Writes what was counted since the last flush, adding it to this instance's documents. */
  flush(): Promise<void> {
    const next = this.#flushing.then(() => this.#write());
    // A failed flush leaves its counts pending for the next; the chain goes on.
    this.#flushing = next.catch(() => {});
    return next;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await this.#reads.transaction(async (docs) => {
        // Another instance may have deleted an account this one counted reads of (`forget` reaches
        // only its own process): counts of an athlete no longer in the directory are dropped.
        const athletes = [...new Set([...batch.values()].map((b) => b.athlete_id))];
        const known = new Set((await docs.getMany<Doc>(ATHLETES, ATHLETES_PARTITION, athletes)).map((a) => a.id));
        for (const bucket of batch.values()) {
          if (!known.has(bucket.athlete_id)) continue;
          const id = `${this.#instance} ${bucket.grant_id} ${bucket.operation} ${bucket.hour}`;
          const mine = await docs.get<ReadsDoc>(READS, PARTITION, id);
          const count = mine ? mergeCounts(mine, bucket) : bucket;
          await docs.upsert(READS, PARTITION, { ...bucket, ...count, id, instance: this.#instance } satisfies ReadsDoc);
        }
      });
    } catch (error) {
      for (const [key, bucket] of batch) {
        const later = this.#pending.get(key);
        this.#pending.set(key, later ? { ...bucket, ...mergeCounts(bucket, later) } : bucket);
      }
      throw error;
    }
  }

  /** Flushes every ACCESS_HISTORY_FLUSH_EVERY_MS until stopped; never keeps the process alive. */
  schedule(onError: (error: unknown) => void, everyMs = ACCESS_HISTORY_FLUSH_EVERY_MS): () => void {
    this.#onError = onError;
    const timer = setInterval(() => void this.flush().catch(onError), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Retention: deletes the counts of hours before the kept period. Returns how many documents. */
  async purge(): Promise<number> {
    const cutoff = retentionStart(this.#clock.now().getTime());
    let deleted = 0;
    for (;;) {
      const batch = await this.#reads.page<ReadsDoc>(READS, { partition: PARTITION, index: 'by_hour', direction: 'asc', limit: PAGE, range: { lte: cutoff } });
      const old = batch.filter((d) => d.hour < cutoff);
      for (const d of old) await this.#reads.delete(READS, PARTITION, d.id);
      deleted += old.length;
      if (old.length < PAGE) return deleted;
    }
  }

  /**
   * What connection `grantId` of the athlete read and proposed over the last `days` days (at most
   * the retention period), with local days in `timeZone`. This instance's counts are flushed first.
   */
  async connection(athleteId: string, grantId: string, timeZone: string, days = ACCESS_HISTORY_DAYS): Promise<ConnectionHistory> {
    await this.flush();
    const now = this.#clock.now();
    const kept = Math.min(days, ACCESS_HISTORY_DAYS);
    const since = retentionStart(now.getTime(), kept);
    const buckets = await this.#all<ReadsDoc>(READS, PARTITION, 'by_connection', [athleteId, grantId], 'hour', since);
    const proposals = await this.#all<ProposalDoc>(PROPOSALS, athleteId, 'by_grant', [grantId], 'prepared_at', since);
    return { since, days: kept, reads: summariseReads(buckets, since, timeZone), proposals: outcomesOf(proposals, now) };
  }

  /** Every document of an index under `prefix` whose next field, `field`, is at least `from`, in pages. */
  async #all<T extends Doc>(collection: string, partition: string, index: string, prefix: KeyValue[], field: string, from: string): Promise<T[]> {
    const out: T[] = [];
    const query = { partition, index, direction: 'asc' as const, limit: PAGE, prefix, range: { gte: from } };
    for await (const page of pagesOf<T>(this.#reads, collection, query, (d) => [d[field] as KeyValue, d.id])) out.push(...page);
    return out;
  }
}

type ChangedByType = NonNullable<NonNullable<ProposalDoc['conflict']>['changed_by']>['type'];

function outcomesOf(docs: ProposalDoc[], now: Date): ProposalOutcomes {
  const counts = Object.fromEntries(PROPOSAL_STATUSES.map((s) => [s, 0])) as Record<ProposalStatus, number>;
  for (const d of docs) counts[statusAt(d, now)]++;
  const latest = [...docs]
    .sort((a, b) => b.prepared_at.localeCompare(a.prepared_at) || b.id.localeCompare(a.id))
    .slice(0, LATEST_PROPOSALS)
    .map((d) => ({
      command_id: d.id,
      status: statusAt(d, now),
      prepared_at: d.prepared_at,
      decided_at: d.undone_at ?? d.decided_at,
      changes: d.changes.length,
      changed_by: d.conflict?.changed_by?.type ?? null,
    }));
  return { total: docs.length, counts, latest };
}
