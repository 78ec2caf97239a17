// What operators and auditors read about proposals (issue 14): proposals across athletes, one
// proposal's life cycle from the event log, the receipts, and the receipt chains recomputed from
// the log. Read-only: nothing here appends, so an auditor's tool cannot change what it inspects.
import { setImmediate } from 'node:timers/promises';
import { WRITE_POLICY } from '../../contracts/common.ts';
import { streams } from '../../contracts/events.ts';
import type { ProposalStatus, Receipt } from '../../contracts/write.ts';
import { PROPOSALS, type ProposalDoc } from '../../projections/proposals.ts';
import { DomainError } from '../domain/errors.ts';
import { statusAt } from '../domain/proposal.ts';
import { ChainVerifier, linkOf, type ChainReport } from '../domain/receipt-chain.ts';
import { changeSummary } from '../words/changes.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { EventStore } from '../store/event-store.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { ProposalService } from '../writes/proposals.ts';
import type { Clock } from '../domain/clock.ts';

export interface AuditDeps {
  reads: ReadStore;
  events: EventStore;
  athletes: AthleteService;
  proposals: ProposalService;
  clock: Clock;
}

const PAGE = 200;
/**
 * Events of a record stream read at once by `verifyChains` (a workout event is a few KB, a
 * proposal's up to ~20 KB): small pages die young, so the heap does not grow with the history.
 */
const EVENT_PAGE = 100;

/** Every athlete's id, in the athletes read model's order, a page at a time. */
export async function* athleteIds(app: AuditDeps): AsyncGenerator<string> {
  for (let page = await app.athletes.list(PAGE); page.length > 0; ) {
    for (const a of page) yield a.id;
    const last = page[page.length - 1]!;
    page = page.length < PAGE ? [] : await app.athletes.list(PAGE, [last.email, last.id]);
  }
}

export interface ProposalFilter {
  /** One athlete; all when absent. */
  athleteId?: string;
  /** A client id or a client name, exactly. */
  client?: string;
  status?: ProposalStatus;
  /** Prepared at or after / at or before these instants (ISO date-times). */
  since?: string;
  until?: string;
}

export interface ListedProposal {
  athlete_id: string;
  doc: ProposalDoc;
  status: ProposalStatus;
}

/** One athlete's proposals matching a filter, newest prepared first, paged from the read model. */
async function* athleteProposals(app: AuditDeps, athleteId: string, filter: ProposalFilter): AsyncGenerator<ListedProposal> {
  const now = app.clock.now();
  const range = filter.since || filter.until ? { ...(filter.since && { gte: filter.since }), ...(filter.until && { lte: filter.until }) } : undefined;
  let after: [string, string] | undefined;
  for (;;) {
    const page = await app.reads.page<ProposalDoc>(PROPOSALS, {
      partition: athleteId,
      index: 'by_prepared',
      direction: 'desc',
      limit: PAGE,
      ...(range && { range }),
      ...(after && { after }),
    });
    for (const doc of page) {
      const status = statusAt(doc, now);
      if (filter.status && status !== filter.status) continue;
      if (filter.client && doc.client_id !== filter.client && doc.client_name !== filter.client) continue;
      yield { athlete_id: athleteId, doc, status };
    }
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = [last.prepared_at, last.id];
  }
}

/**
 * Proposals matching a filter, newest prepared first across athletes, at most `limit`: each
 * athlete contributes at most `limit`, so memory is bounded by athletes × limit, not by history.
 */
export async function listProposals(app: AuditDeps, filter: ProposalFilter, limit: number): Promise<ListedProposal[]> {
  const out: ListedProposal[] = [];
  const ids = filter.athleteId ? [filter.athleteId] : athleteIds(app);
  for await (const athleteId of ids) {
    let n = 0;
    for await (const p of athleteProposals(app, athleteId, filter)) {
      out.push(p);
      if (++n >= limit) break;
    }
  }
  return out.sort((a, b) => b.doc.prepared_at.localeCompare(a.doc.prepared_at) || b.doc.id.localeCompare(a.doc.id)).slice(0, limit);
}

/**
 * Finds a proposal by command id. Command ids are unique per athlete only (each agent chooses its
 * own), so without the athlete every athlete's partition is asked (a keyed read each: fine for an
 * operator's tool), and an id two athletes' proposals share is refused, naming them by e-mail:
 * the operator says which with `--athlete`, rather than being shown the first one found.
 */
export async function findProposal(app: AuditDeps, commandId: string, athleteId?: string): Promise<{ athlete_id: string; doc: ProposalDoc }> {
  const found: Array<{ athlete_id: string; doc: ProposalDoc }> = [];
  for await (const id of athleteId ? [athleteId] : athleteIds(app)) {
    const doc = await app.reads.get<ProposalDoc>(PROPOSALS, id, commandId);
    if (doc) found.push({ athlete_id: id, doc });
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new DomainError('not_found', `there is no proposal ${commandId}${athleteId ? ` of athlete ${athleteId}` : ''}`);
  const owners = await Promise.all(found.map(async (f) => `${(await app.athletes.get(f.athlete_id))?.email ?? 'an athlete since deleted'} (${f.athlete_id})`));
  throw new DomainError('invalid_input', `${found.length} athletes have a proposal ${commandId}: ${owners.join(', ')}; say which with --athlete`);
}

/** A proposal as an operator sees it: what the read model keeps, and the summaries while retention keeps them. */
export async function showProposal(app: AuditDeps, commandId: string, athleteId?: string) {
  const found = await findProposal(app, commandId, athleteId);
  const review = (await app.proposals.review(found.athlete_id, commandId))!;
  const athlete = await app.athletes.get(found.athlete_id);
  const words = athlete && { profile: athlete.profile, exerciseName: review.exerciseName };
  const d = found.doc;
  return {
    athlete_id: found.athlete_id,
    command_id: d.id,
    status: review.status,
    client: { client_id: d.client_id, name: d.client_name },
    grant_id: d.grant_id,
    prepared_at: d.prepared_at,
    expires_at: d.expires_at,
    decided_at: d.decided_at,
    undone_at: d.undone_at,
    /** Null once the retention purge removed the summaries. */
    changes: d.changes.map((c, i) => ({ ...c, summary: review.changes && words ? changeSummary(review.changes[i]!, words) : null })),
    details_kept: review.details !== null,
    conflict: d.conflict,
    receipt: d.receipt,
    affected: d.affected,
    receipt_link: d.receipt_link ?? null,
    undo_link: d.undo_link ?? null,
  };
}

export interface HistoryEntry {
  revision: number;
  position: number;
  type: string;
  at: string;
  actor: { type: string; id: string };
  /** What the event says, in a line, without any field value of the record. */
  detail: string;
  /** Record events written by the same append (a commit's changes, an undo's restores). */
  record_events: number;
  data: unknown;
}

/** Every event of a proposal's life cycle, from the athlete's record stream (not the read model). */
export async function proposalHistory(
  app: AuditDeps,
  commandId: string,
  athleteId?: string,
): Promise<{ athlete_id: string; command_id: string; events: HistoryEntry[] }> {
  const found = await findProposal(app, commandId, athleteId);
  const stream = await app.events.readStream(streams.record(found.athlete_id));
  const events: HistoryEntry[] = [];
  for (const e of stream) {
    if (!e.type.startsWith('proposal.')) continue;
    const data = e.data as Record<string, unknown> & { command_id: string };
    if (data.command_id !== commandId) continue;
    const actor = e.metadata.actor as { type: string; id: string };
    // The record events of a commit or undo precede it in the same append, by the same actor.
    const link = linkOf(e);
    const affected = (data.affected as unknown[] | undefined)?.length ?? 0;
    events.push({
      revision: e.revision,
      position: e.position,
      type: e.type,
      at: String(e.metadata.occurred_at),
      actor,
      detail: detailOf(e.type, data),
      record_events: link?.record_events ?? affected,
      data: clearPart(data),
    });
  }
  return { athlete_id: found.athlete_id, command_id: commandId, events };
}

/** The event's data without its sealed parts (ciphertext says nothing to an operator). */
function clearPart(data: Record<string, unknown>): Record<string, unknown> {
  const { details: _details, undo: _undo, ...rest } = data;
  return rest;
}

function detailOf(type: string, d: Record<string, unknown>): string {
  const n = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const link = d.link as { sequence: number; digest: string } | undefined;
  const linked = link ? `; receipt chain link #${link.sequence} ${link.digest.slice(0, 16)}…` : '';
  switch (type) {
    case 'proposal.prepared':
      return `${n(d.changes)} change(s) by ${String(d.client_name)} (${String(d.client_id)}), expires ${String(d.expires_at)}`;
    case 'proposal.committed':
      return `${n(d.changes)} change(s) saved, ${n(d.affected)} item(s) affected${linked}`;
    case 'proposal.undone':
      return `${n(d.affected)} item(s) restored${linked}`;
    case 'proposal.conflicted': {
      const c = d.conflict as { kind: string; id: string; reason: string; action_index: number | null };
      return `${c.kind} ${c.id} ${c.reason} since preparation (${c.action_index === null ? 'a record relied on' : `action #${c.action_index}`}); nothing saved`;
    }
    case 'proposal.rejected':
      return 'rejected; nothing saved';
    case 'proposal.expired':
      return 'expired; nothing saved';
    default:
      return '';
  }
}

// -------------------------------------------------------------------------------------------
// Receipts

export interface ReceiptRow {
  athlete_id: string;
  command_id: string;
  receipt: Receipt;
  /** When the athlete undid the batch (the receipt stays; the undo is a link of its own). */
  undone_at: string | null;
  receipt_link: ProposalDoc['receipt_link'] | null;
  undo_link: ProposalDoc['undo_link'] | null;
}

function receiptRow(athleteId: string, doc: ProposalDoc): ReceiptRow | null {
  if (!doc.receipt) return null;
  return {
    athlete_id: athleteId,
    command_id: doc.id,
    receipt: doc.receipt,
    undone_at: doc.undone_at,
    receipt_link: doc.receipt_link ?? null,
    undo_link: doc.undo_link ?? null,
  };
}

/**
 * Receipts matching a filter (`since`/`until` on the commit time), newest committed first. The read
 * model is ordered by preparation, and a commit comes at most the expiry after its preparation, so
 * the index is read from `since` minus the expiry and the commit time filtered exactly; and an
 * athlete's scan, newest prepared first, goes on past `limit` receipts until a proposal was
 * prepared more than the expiry before the oldest commit kept: a proposal prepared earlier may
 * have been committed later than one prepared after it.
 */
export async function listReceipts(app: AuditDeps, filter: Omit<ProposalFilter, 'status'>, limit: number): Promise<ReceiptRow[]> {
  const out: ReceiptRow[] = [];
  const ids = filter.athleteId ? [filter.athleteId] : athleteIds(app);
  const expiryMs = WRITE_POLICY.proposalExpiryMinutes * 60_000;
  const prepared = { ...filter, since: filter.since && new Date(Date.parse(filter.since) - expiryMs).toISOString() };
  for await (const athleteId of ids) {
    /** This athlete's receipts so far; cut back to its `limit` newest commits whenever it doubles. */
    let rows: ReceiptRow[] = [];
    /** The commit time of the `limit`-th newest receipt at the last cut: no earlier preparation can beat it. */
    let cutoffMs = -Infinity;
    const cut = () => {
      rows = rows.sort(newestCommitFirst).slice(0, limit);
      if (rows.length === limit) cutoffMs = Date.parse(rows[limit - 1]!.receipt.committed_at);
    };
    for await (const p of athleteProposals(app, athleteId, prepared)) {
      if (Date.parse(p.doc.prepared_at) + expiryMs < cutoffMs) break;
      const row = receiptRow(athleteId, p.doc);
      if (!row) continue;
      if ((filter.since && row.receipt.committed_at < filter.since) || (filter.until && row.receipt.committed_at > filter.until)) continue;
      rows.push(row);
      if (rows.length >= 2 * limit) cut();
    }
    cut();
    out.push(...rows);
  }
  return out.sort(newestCommitFirst).slice(0, limit);
}

const newestCommitFirst = (a: ReceiptRow, b: ReceiptRow) => b.receipt.committed_at.localeCompare(a.receipt.committed_at);

export async function showReceipt(app: AuditDeps, commandId: string, athleteId?: string): Promise<ReceiptRow> {
  const found = await findProposal(app, commandId, athleteId);
  const row = receiptRow(found.athlete_id, found.doc);
  if (!row) throw new DomainError('not_found', `the proposal ${commandId} has no receipt: it is ${statusAt(found.doc, app.clock.now())}, not committed`);
  return row;
}

/**
 * Every receipt of one athlete or all, oldest prepared first within an athlete, a page at a time:
 * memory stays flat however long the history. `progress` is told how many proposals were read of
 * how many there are.
 */
export async function* exportReceipts(
  app: AuditDeps,
  athleteId: string | undefined,
  progress: (done: number, total: number) => void,
): AsyncGenerator<ReceiptRow> {
  const ids: string[] = [];
  let total = 0;
  // Counting first gives the bar its total; only ids are held, not documents.
  for await (const id of athleteId ? [athleteId] : athleteIds(app)) {
    ids.push(id);
    total += await app.reads.count(PROPOSALS, id);
  }
  let done = 0;
  progress(0, total);
  for (const id of ids) {
    let after: [string, string] | undefined;
    for (;;) {
      const page = await app.reads.page<ProposalDoc>(PROPOSALS, {
        partition: id,
        index: 'by_prepared',
        direction: 'asc',
        limit: PAGE,
        ...(after && { after }),
      });
      for (const doc of page) {
        const row = receiptRow(id, doc);
        if (row) yield row;
      }
      done += page.length;
      progress(Math.min(done, total), Math.max(done, total));
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = [last.prepared_at, last.id];
    }
  }
}

/**
 * Recomputes the receipt chain of one athlete or of every athlete from the event log (never the
 * read models, which are derived and could be rebuilt to match anything). Stops at the first
 * broken chain. Streams are read a page at a time, so memory stays flat however long a record's
 * history; `progress` counts the events read of all there are.
 */
export async function verifyChains(
  app: AuditDeps,
  athleteId: string | undefined,
  progress: (done: number, total: number) => void,
  expectHead?: string,
): Promise<ChainReport[]> {
  const reports: ChainReport[] = [];
  const streamsOf: Array<{ id: string; events: number }> = [];
  let total = 0;
  // Counting first gives the bar its total; only ids and counts are held.
  for await (const id of athleteId ? [athleteId] : athleteIds(app)) {
    const last = await app.events.streamRevision(streams.record(id));
    const events = last === 'no_stream' ? 0 : last + 1;
    streamsOf.push({ id, events });
    total += events;
  }
  let done = 0;
  progress(0, total);
  for (const { id } of streamsOf) {
    const verifier = new ChainVerifier(id);
    for (let from = 0; ; ) {
      const page = await app.events.readStream(streams.record(id), from, EVENT_PAGE);
      for (const e of page) verifier.add(e);
      done += page.length;
      // Events appended since the count make the total grow, never the bar run past it.
      total = Math.max(total, done);
      progress(done, total);
      if (page.length < EVENT_PAGE || verifier.broken) break;
      from = page[page.length - 1]!.revision + 1;
      // The embedded store reads synchronously: without a turn of the event loop between pages,
      // nothing else (a progress bar's redraw) would run until the whole stream was read.
      await setImmediate();
    }
    const report = verifier.report();
    // A head kept elsewhere that is no longer a link: the chain was rebuilt (or cut back) since.
    if (expectHead && !report.broken && !verifier.holds(expectHead)) {
      report.broken = {
        sequence: report.links + 1,
        command_id: null,
        event: null,
        revision: null,
        reason: `the head ${expectHead} kept earlier is not a link of this chain: the chain was rewritten or cut back since it was recorded`,
      };
    }
    reports.push(report);
    if (report.broken) break;
  }
  return reports;
}
