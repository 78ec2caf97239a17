// The receipt chain: tamper evidence for what agents' proposals changed (issue 14, part 3).
//
// Every commit and every undo of a proposal is a link of a per-athlete SHA-256 chain: the digest
// of the previous link and the canonical JSON of the minimal receipt (what the retention purge
// leaves in the clear) plus a digest of the record events appended with it. The link is stored in
// the `proposal.committed` / `proposal.undone` event itself, so it is written by the same atomic
// append as the commit, on the same stream, on every adapter; nothing else has to be kept in step.
// Pure: computing a link and verifying a stream are functions of events (docs/decisions.md).
import { createHash } from 'node:crypto';
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { AffectedItem } from '../../contracts/events.ts';
import type { Receipt } from '../../contracts/write.ts';
import { canonicalJson } from './proposal.ts';

/** A link as stored in the event data. */
export interface ReceiptLink {
  /** 1 for an athlete's first link. */
  sequence: number;
  /** The digest of the link before (the chain's genesis for the first). */
  previous: string;
  /** SHA-256 over `previous` and the canonical JSON of the entry. */
  digest: string;
  /** How many record events the same append wrote before this event: they are covered too. */
  record_events: number;
}

/** What a link covers: the minimal receipt of a commit, or what an undo restored. */
export type ChainEntry =
  | {
      event: 'proposal.committed';
      athlete_id: string;
      sequence: number;
      command_id: string;
      receipt: Receipt;
      affected: AffectedItem[];
      record_events_sha256: string;
    }
  | {
      event: 'proposal.undone';
      athlete_id: string;
      sequence: number;
      command_id: string;
      undone_at: string;
      affected: AffectedItem[];
      record_events_sha256: string;
    };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Where an athlete's chain starts. Bound to the athlete, so that one athlete's links cannot be
 * passed off as another's.
 */
export function genesis(athleteId: string): string {
  return sha256(`repledger receipt chain v1\n${athleteId}`);
}

/** The record events an entry covers, as one digest (type and data; metadata is the store's). */
export function recordEventsDigest(events: ReadonlyArray<{ type: string; data: unknown }>): string {
  return sha256(canonicalJson(events.map((e) => ({ type: e.type, data: e.data }))));
}

export function linkDigest(previous: string, entry: ChainEntry): string {
  return sha256(`${previous}\n${canonicalJson(entry)}`);
}

/** The last link of a stream as read (null: no link yet). */
export function lastLink(events: ReadonlyArray<{ type: string; data: unknown }>): ReceiptLink | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const link = linkOf(events[i]!);
    if (link) return link;
  }
  return null;
}

export function linkOf(event: { type: string; data: unknown }): ReceiptLink | null {
  if (event.type !== 'proposal.committed' && event.type !== 'proposal.undone') return null;
  return (event.data as { link?: ReceiptLink }).link ?? null;
}

/** The next link after `previous` for an entry (given without its sequence, which the chain assigns). */
export function nextLink(
  athleteId: string,
  previous: ReceiptLink | null,
  entry: DistributiveOmit<ChainEntry, 'sequence' | 'athlete_id'>,
  recordEvents: number,
): ReceiptLink {
  const sequence = (previous?.sequence ?? 0) + 1;
  const before = previous?.digest ?? genesis(athleteId);
  return { sequence, previous: before, digest: linkDigest(before, { ...entry, athlete_id: athleteId, sequence } as ChainEntry), record_events: recordEvents };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

// ---------------------------------------------------------------------------------------------
// Verification: recomputing a chain from the event log

/** One event of a record stream as the verifier reads it. */
export interface ChainEvent {
  revision: number;
  position: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

export interface VerifiedLink {
  sequence: number;
  command_id: string;
  event: 'proposal.committed' | 'proposal.undone';
  revision: number;
  at: string;
  digest: string;
}

export interface BrokenLink {
  /** The link that does not hold: the stored sequence, or the one expected where none was stored. */
  sequence: number;
  command_id: string | null;
  event: string | null;
  revision: number | null;
  reason: string;
}

export interface ChainReport {
  athlete_id: string;
  /** Links that hold, up to the first broken one. */
  links: number;
  /** The last link that holds, or null for a chain with none. */
  head: VerifiedLink | null;
  /** Commits and undos written before the chain existed (no link stored; not covered). */
  unlinked: number;
  broken: BrokenLink | null;
}

/**
 * Recomputes an athlete's chain from their record stream, in stream order, and stops at the first
 * link that does not hold: a receipt whose content no longer gives its stored digest, a link whose
 * `previous` is not the digest before it (one removed or reordered), or a sequence that skips.
 * Takes any iterable so that a caller can feed it the stream in pages.
 */
export class ChainVerifier {
  readonly #athleteId: string;
  #previous: string;
  #sequence = 0;
  #head: VerifiedLink | null = null;
  #unlinked = 0;
  #broken: BrokenLink | null = null;
  /** Every digest verified so far: a head kept elsewhere must be one of them. */
  readonly #digests = new Set<string>();
  /** The stream's last events, for the record events a link covers; bounded by the longest append seen. */
  #recent: ChainEvent[] = [];
  /**
   * Every receipt of the stream as the log holds it, folded from every event read (past a broken
   * link too): a commit's link covers exactly the receipt this gives, so what an auditor is shown
   * from it is what the chain vouches for.
   */
  readonly receipts = new LogReceipts();

  constructor(athleteId: string) {
    this.#athleteId = athleteId;
    this.#previous = genesis(athleteId);
  }

  get broken(): BrokenLink | null {
    return this.#broken;
  }

  add(e: ChainEvent): void {
    this.receipts.add(e);
    if (this.#broken) return;
    const data = e.data as Record<string, unknown>;
    if (e.type === 'proposal.committed' || e.type === 'proposal.undone') this.#link(e, data);
    this.#recent.push(e);
    // A commit writes at most a few events per change; keep a generous bound, not the whole stream.
    if (this.#recent.length > RECENT) this.#recent.splice(0, this.#recent.length - RECENT);
  }

  #link(e: ChainEvent, data: Record<string, unknown>): void {
    const commandId = String(data.command_id);
    const link = data.link as ReceiptLink | undefined;
    const expected = this.#sequence + 1;
    const broken = (reason: string) => {
      this.#broken = { sequence: link?.sequence ?? expected, command_id: commandId, event: e.type, revision: e.revision, reason };
    };
    if (!link) {
      // Before the first link: a commit from before the chain. After it, a stripped link.
      if (this.#sequence === 0) this.#unlinked++;
      else broken('no link stored where the chain expects one');
      return;
    }
    if (link.sequence !== expected) {
      // Name the link that is not where it should be, and say what stands in its place.
      this.#broken = {
        sequence: expected,
        command_id: commandId,
        event: e.type,
        revision: e.revision,
        reason: `link #${expected} is missing: the next link in the stream is #${link.sequence} (${e.type} of proposal ${commandId}); a link was removed or reordered`,
      };
      return;
    }
    if (link.previous !== this.#previous) return broken('its previous digest is not the digest of the link before it: a link before it was removed or changed');
    const count = link.record_events;
    const covered = this.#recent.slice(this.#recent.length - count);
    // Revisions run on without a gap within one append: an event removed from it shows here.
    if (covered.length !== count || covered.some((c, i) => c.revision !== e.revision - count + i || c.type.startsWith('proposal.'))) {
      return broken('the record events appended with it are not all in the stream');
    }
    const entry = this.#entryOf(e.type, commandId, data, covered);
    if (!entry) return broken(`the proposal ${commandId} has no prepared event`);
    if (linkDigest(link.previous, entry) !== link.digest) return broken('its receipt or the record changes it covers no longer match its digest');
    this.#sequence = link.sequence;
    this.#previous = link.digest;
    this.#digests.add(link.digest);
    const at = String(e.type === 'proposal.committed' ? data.committed_at : data.undone_at);
    this.#head = { sequence: link.sequence, command_id: commandId, event: e.type as VerifiedLink['event'], revision: e.revision, at, digest: link.digest };
  }

  #entryOf(type: string, commandId: string, data: Record<string, unknown>, covered: ChainEvent[]): ChainEntry | null {
    const common = {
      athlete_id: this.#athleteId,
      sequence: (data.link as ReceiptLink).sequence,
      command_id: commandId,
      affected: data.affected as AffectedItem[],
      record_events_sha256: recordEventsDigest(covered),
    };
    if (type === 'proposal.undone') return { event: 'proposal.undone', ...common, undone_at: String(data.undone_at) };
    const logged = this.receipts.get(commandId);
    if (!logged) return null;
    return { event: 'proposal.committed', ...common, receipt: logged.receipt };
  }

  /** Whether a link with this digest was verified (a head recorded earlier is still in the chain). */
  holds(digest: string): boolean {
    return this.#digests.has(digest.toLowerCase());
  }

  report(): ChainReport {
    return { athlete_id: this.#athleteId, links: this.#head?.sequence ?? 0, head: this.#head, unlinked: this.#unlinked, broken: this.#broken };
  }
}

/**
 * A bound on the record events one append writes with a commit or undo: a commit writes at most
 * two a change (a workout's deletion takes its feedback along), 100, and an undo at most two for
 * each item the commit affected, 200; twice that. The verifier holds this many events however
 * long the stream, which keeps its memory flat: a larger window keeps more events alive long
 * enough to be promoted, and the heap grows with the history (measured in docs/benchmarks.md).
 */
const RECENT = 8 * WRITE_POLICY.changesPerProposal;

/** The minimal receipt of a commit, as the proposals read model and `get_write_proposal` show it. */
export function receiptOf(client: { client_id: string; name: string }, committed: { committed_at: string; changes: Receipt['changes'] }): Receipt {
  return {
    committed_at: committed.committed_at,
    approved_by: 'athlete',
    client: { client_id: client.client_id, name: client.name },
    changes: committed.changes,
  };
}

/** Verifies a whole stream at once. */
export function verifyChain(athleteId: string, events: Iterable<ChainEvent>): ChainReport {
  const v = new ChainVerifier(athleteId);
  for (const e of events) v.add(e);
  return v.report();
}

// ---------------------------------------------------------------------------------------------
// Receipts as the log holds them, and a read model's copy checked against them (issue 39)

/** A committed proposal's receipt as the event log holds it, with the links of its commit and its undo. */
export interface LogReceipt {
  command_id: string;
  /** What the commit's link covers: the client named by its `proposal.prepared`, the commit's time and changes. */
  receipt: Receipt;
  undone_at: string | null;
  /** Null for a commit (or undo) from before the chain. */
  receipt_link: ReceiptLink | null;
  undo_link: ReceiptLink | null;
}

/**
 * The receipts a record stream's events make, folded in stream order: a whole stream read in pages,
 * or one proposal's events. The one place a receipt is made from the log, for the chain's links
 * and for every surface that shows one.
 */
export class LogReceipts {
  /** Prepared proposals' clients: a receipt names its proposal's. */
  readonly #clients = new Map<string, Receipt['client']>();
  /** In the order of their commits. */
  readonly #receipts = new Map<string, LogReceipt>();

  add(e: { type: string; data: unknown }): void {
    const data = e.data as Record<string, unknown>;
    const commandId = String(data.command_id);
    if (e.type === 'proposal.prepared') this.#clients.set(commandId, { client_id: String(data.client_id), name: String(data.client_name) });
    else if (e.type === 'proposal.committed') {
      const client = this.#clients.get(commandId);
      // A commit without its preparation makes no receipt (verify names it a broken link).
      if (!client) return;
      const receipt = receiptOf(client, data as { committed_at: string; changes: Receipt['changes'] });
      this.#receipts.set(commandId, { command_id: commandId, receipt, undone_at: null, receipt_link: linkOf(e), undo_link: null });
    } else if (e.type === 'proposal.undone') {
      const logged = this.#receipts.get(commandId);
      if (logged) Object.assign(logged, { undone_at: String(data.undone_at), undo_link: linkOf(e) });
    }
  }

  get(commandId: string): LogReceipt | null {
    return this.#receipts.get(commandId) ?? null;
  }

  get size(): number {
    return this.#receipts.size;
  }

  values(): IterableIterator<LogReceipt> {
    return this.#receipts.values();
  }
}

/** One proposal's receipt as the log holds it, from its events (in stream order); null when it was never committed. */
export function logReceiptOf(events: Iterable<{ type: string; data: unknown }>, commandId: string): LogReceipt | null {
  const fold = new LogReceipts();
  for (const e of events) fold.add(e);
  return fold.get(commandId);
}

/**
 * Where a read model's copy of a receipt differs from the log's, as paths of the fields that differ
 * (`receipt.changes[0].revision_after`, `undo_link.digest`); empty when they agree. A receipt one
 * side holds and the other does not is named as such.
 */
export function receiptDrift(copy: LogReceipt | null, log: LogReceipt | null): string[] {
  if (!copy && !log) return [];
  if (!log) return ['receipt (the event log holds none)'];
  if (!copy) return ['receipt (the read model holds none)'];
  const found: string[] = [];
  differences(copy, log, '', found);
  return found;
}

/** The paths at which two JSON values differ: objects by key, arrays by index. */
function differences(a: unknown, b: unknown, path: string, found: string[]): void {
  if (Object.is(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) differences(a[i], b[i], `${path}[${i}]`, found);
    return;
  }
  if (isRecord(a) && isRecord(b) && !Array.isArray(a) && !Array.isArray(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) differences(a[key], b[key], path ? `${path}.${key}` : key, found);
    return;
  }
  found.push(path || '(the whole value)');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
