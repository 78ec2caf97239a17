// What operators and auditors read about proposals (issue 14): proposals across athletes, one
// proposal's life cycle from the event log, the receipts, and the receipt chains recomputed from
// the log. Read-only: nothing here appends, so an auditor's tool cannot change what it inspects.
import { setImmediate } from 'node:timers/promises';
import { WRITE_POLICY } from '../../contracts/common.ts';
import { streams, type ProposalEvent } from '../../contracts/events.ts';
import type { ProposalStatus, Receipt } from '../../contracts/write.ts';
import { PROPOSALS, type ProposalDoc } from '../../projections/proposals.ts';
import { DomainError } from '../domain/errors.ts';
import { statusAt } from '../domain/proposal.ts';
import { ChainVerifier, linkOf, logReceiptOf, LogReceipts, receiptDrift, type ChainEvent, type ChainReport, type LogReceipt } from '../domain/receipt-chain.ts';
import { changeSummary } from '../words/changes.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { EventStore } from '../store/event-store.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { ProposalService } from '../writes/proposals.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { Clock } from '../domain/clock.ts';

export interface AuditDeps {
  reads: ReadStore;
  events: EventStore;
  athletes: AthleteService;
  proposals: ProposalService;
  /** One proposal's events, by the record stream's own index of them (not the read model's). */
  records: Pick<RecordService, 'read'>;
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

/** An athlete's e-mail; null for an athlete since deleted. */
async function emailOf(app: AuditDeps, athleteId: string): Promise<string | null> {
  return (await app.athletes.get(athleteId))?.email ?? null;
}

/** Each athlete's e-mail, looked up once each; null for an athlete since deleted. */
export async function emailsOf(app: AuditDeps, athleteIds: Iterable<string>): Promise<Map<string, string | null>> {
  const ids = [...new Set(athleteIds)];
  const emails = await Promise.all(ids.map((id) => emailOf(app, id)));
  return new Map(ids.map((id, i) => [id, emails[i]!]));
}

/** An athlete as an operator's message names them: the e-mail, then the id. */
export const athleteName = (email: string | null, athleteId: string) => `${email ?? 'an athlete since deleted'} (${athleteId})`;

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
  athlete_email: string | null;
  doc: ProposalDoc;
  status: ProposalStatus;
}

/** One athlete's proposals matching a filter, newest prepared first, paged from the read model. */
async function* athleteProposals(app: AuditDeps, athleteId: string, filter: ProposalFilter): AsyncGenerator<Omit<ListedProposal, 'athlete_email'>> {
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
  const out: Array<Omit<ListedProposal, 'athlete_email'>> = [];
  const ids = filter.athleteId ? [filter.athleteId] : athleteIds(app);
  for await (const athleteId of ids) {
    let n = 0;
    for await (const p of athleteProposals(app, athleteId, filter)) {
      out.push(p);
      if (++n >= limit) break;
    }
  }
  const listed = out.sort((a, b) => b.doc.prepared_at.localeCompare(a.doc.prepared_at) || b.doc.id.localeCompare(a.doc.id)).slice(0, limit);
  const emails = await emailsOf(
    app,
    listed.map((p) => p.athlete_id),
  );
  return listed.map((p) => ({ ...p, athlete_email: emails.get(p.athlete_id)! }));
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
  const emails = await emailsOf(
    app,
    found.map((f) => f.athlete_id),
  );
  const owners = found.map((f) => athleteName(emails.get(f.athlete_id)!, f.athlete_id));
  throw new DomainError('invalid_input', `${found.length} athletes have a proposal ${commandId}: ${owners.join(', ')}; say which with --athlete`);
}

/** A proposal as an operator sees it: what the read model keeps, and the summaries while retention keeps them. */
export async function showProposal(app: AuditDeps, commandId: string, athleteId?: string) {
  const found = await findProposal(app, commandId, athleteId);
  const review = (await app.proposals.review(found.athlete_id, commandId))!;
  const athlete = await app.athletes.get(found.athlete_id);
  const words = athlete && { profile: athlete.profile, exerciseName: review.exerciseName };
  const d = found.doc;
  const [checked] = await checkReceipts(app, found.athlete_id, [d]);
  return {
    athlete_id: found.athlete_id,
    athlete_email: athlete?.email ?? null,
    command_id: d.id,
    status: review.status,
    client: { client_id: d.client_id, name: d.client_name },
    grant_id: d.grant_id,
    prepared_at: d.prepared_at,
    expires_at: d.expires_at,
    decided_at: d.decided_at,
    undone_at: checked!.undone_at,
    /** Null once the retention purge removed the summaries. */
    changes: d.changes.map((c, i) => ({ ...c, summary: review.changes && words ? changeSummary(review.changes[i]!, words) : null })),
    details_kept: review.details !== null,
    conflict: d.conflict,
    /** The receipt and its links as the event log holds them; `drift` names where the read model's copy differs. */
    receipt: checked!.receipt,
    affected: d.affected,
    receipt_link: checked!.receipt_link,
    undo_link: checked!.undo_link,
    drift: checked!.drift,
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
): Promise<{ athlete_id: string; athlete_email: string | null; command_id: string; events: HistoryEntry[] }> {
  const found = await findProposal(app, commandId, athleteId);
  const athlete_email = await emailOf(app, found.athlete_id);
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
  return { athlete_id: found.athlete_id, athlete_email, command_id: commandId, events };
}

/** The event's data without its sealed parts (ciphertext says nothing to an operator). */
function clearPart(data: Record<string, unknown>): Record<string, unknown> {
  const { details: _details, undo: _undo, ...rest } = data;
  return rest;
}

/** Who made the change that conflicted a batch, as its history says it. */
const CHANGED_BY = { athlete: "the athlete's own edit", import: 'an import', operator: 'an operator', proposal: 'the batch' } as const;

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
      const c = d.conflict as Extract<ProposalEvent, { type: 'proposal.conflicted' }>['data']['conflict'];
      const by = c.changed_by
        ? `, by ${CHANGED_BY[c.changed_by.type]}${c.changed_by.command_id ? ` ${c.changed_by.command_id}` : ''} at ${c.changed_by.at}`
        : '';
      return `${c.kind} ${c.id} ${c.reason} since preparation${by} (${c.action_index === null ? 'a record relied on' : `action #${c.action_index}`}); nothing saved`;
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
// Receipts: read from the event log, never from the read model alone (issue 39). The proposals read
// model keeps a copy of each receipt for lists; every receipt shown or exported is the log's, and
// where the copy differs that is named (`drift`), never shown as if it were true.

export interface ReceiptRow extends LogReceipt {
  athlete_id: string;
}

/** A receipt as the log holds it (null: the log holds none), and where the read model's copy differs from it. */
export interface CheckedReceipt {
  athlete_id: string;
  athlete_email: string | null;
  command_id: string;
  receipt: LogReceipt['receipt'] | null;
  undone_at: string | null;
  receipt_link: LogReceipt['receipt_link'];
  undo_link: LogReceipt['undo_link'];
  /** The fields of the read model's copy that differ from the log's (empty: it agrees). */
  drift: string[];
}

/** A receipt the read model holds otherwise than the log, as `receipts verify` and `export` name it. */
export interface Drift {
  athlete_id: string;
  athlete_email: string | null;
  command_id: string;
  fields: string[];
}

/** The drift among receipts checked one by one. */
export function driftIn(checked: readonly CheckedReceipt[]): Drift[] {
  return checked
    .filter((c) => c.drift.length)
    .map((c) => ({ athlete_id: c.athlete_id, athlete_email: c.athlete_email, command_id: c.command_id, fields: c.drift }));
}

/**
 * What the CLI says of drift, on stderr: a line a receipt, naming the athlete, the proposal and
 * the fields, then what to make of it. Distinct from a broken chain (`BROKEN: …`): the log holds;
 * the copy the read model keeps does not.
 */
export function driftReport(drift: readonly Drift[]): string[] {
  if (drift.length === 0) return [];
  return [
    ...drift.map(
      (d) =>
        `DRIFT: receipt ${d.command_id} of ${athleteName(d.athlete_email, d.athlete_id)}: the read model's copy differs from the event log in ${d.fields.join(', ')}`,
    ),
    `${drift.length} receipt(s) in the read model differ from the event log; what is shown is the log's. The read model is derived from the log: find out who changed it, then \`repledger projections replay\` rebuilds it.`,
  ];
}

/** The read model's copy of a proposal's receipt, as `receiptDrift` compares it with the log's; null when it shows none. */
function copyOf(doc: ProposalDoc): LogReceipt | null {
  if (!doc.receipt) return null;
  return { command_id: doc.id, receipt: doc.receipt, undone_at: doc.undone_at, receipt_link: doc.receipt_link ?? null, undo_link: doc.undo_link ?? null };
}

/**
 * Proposals' receipts (one athlete's, a few) as the log holds them, each read from the proposal's
 * own events by the record stream's index of them, and checked against the read model's copy.
 */
async function checkReceipts(app: AuditDeps, athleteId: string, docs: readonly ProposalDoc[]): Promise<CheckedReceipt[]> {
  const events = await app.records.read(athleteId, (loaded) => Promise.all(docs.map((d) => loaded.proposalEvents(d.id))));
  const athlete_email = await emailOf(app, athleteId);
  return docs.map((doc, i) => {
    const log = logReceiptOf(events[i]!, doc.id);
    return {
      athlete_id: athleteId,
      athlete_email,
      command_id: doc.id,
      receipt: log?.receipt ?? null,
      undone_at: log?.undone_at ?? null,
      receipt_link: log?.receipt_link ?? null,
      undo_link: log?.undo_link ?? null,
      drift: receiptDrift(copyOf(doc), log),
    };
  });
}

/**
 * Receipts matching a filter (`since`/`until` on the commit time), newest committed first, as the
 * log holds them. They are chosen from the read model, which is ordered by preparation, and a
 * commit comes at most the expiry after its preparation, so the index is read from `since` minus
 * the expiry and the commit time filtered exactly; and an athlete's scan, newest prepared first,
 * goes on past `limit` receipts until a proposal was prepared more than the expiry before the
 * oldest commit kept: a proposal prepared earlier may have been committed later than one prepared
 * after it. The ones chosen are then read from the log (`checkReceipts`).
 */
export async function listReceipts(app: AuditDeps, filter: Omit<ProposalFilter, 'status'>, limit: number): Promise<CheckedReceipt[]> {
  const out: Array<{ athlete_id: string; doc: ProposalDoc; receipt: Receipt }> = [];
  const ids = filter.athleteId ? [filter.athleteId] : athleteIds(app);
  const expiryMs = WRITE_POLICY.proposalExpiryMinutes * 60_000;
  const prepared = { ...filter, since: filter.since && new Date(Date.parse(filter.since) - expiryMs).toISOString() };
  for await (const athleteId of ids) {
    /** This athlete's receipts so far; cut back to its `limit` newest commits whenever it doubles. */
    let rows: typeof out = [];
    /** The commit time of the `limit`-th newest receipt at the last cut: no earlier preparation can beat it. */
    let cutoffMs = -Infinity;
    const cut = () => {
      rows = rows.sort(newestCommitFirst).slice(0, limit);
      if (rows.length === limit) cutoffMs = Date.parse(rows[limit - 1]!.receipt.committed_at);
    };
    for await (const p of athleteProposals(app, athleteId, prepared)) {
      if (Date.parse(p.doc.prepared_at) + expiryMs < cutoffMs) break;
      const receipt = p.doc.receipt;
      if (!receipt) continue;
      if ((filter.since && receipt.committed_at < filter.since) || (filter.until && receipt.committed_at > filter.until)) continue;
      rows.push({ athlete_id: athleteId, doc: p.doc, receipt });
      if (rows.length >= 2 * limit) cut();
    }
    cut();
    out.push(...rows);
  }
  const chosen = out.sort(newestCommitFirst).slice(0, limit);
  const byAthlete = Map.groupBy(chosen, (r) => r.athlete_id);
  const checked = new Map<ProposalDoc, CheckedReceipt>();
  for (const [athleteId, rows] of byAthlete) {
    const docs = rows.map((r) => r.doc);
    (await checkReceipts(app, athleteId, docs)).forEach((c, i) => checked.set(docs[i]!, c));
  }
  return chosen.map((r) => checked.get(r.doc)!);
}

const newestCommitFirst = (a: { receipt: Receipt }, b: { receipt: Receipt }) => b.receipt.committed_at.localeCompare(a.receipt.committed_at);

/** One proposal's receipt as the log holds it, and where the read model's copy differs; refused when neither holds one. */
export async function showReceipt(app: AuditDeps, commandId: string, athleteId?: string): Promise<CheckedReceipt> {
  const found = await findProposal(app, commandId, athleteId);
  const [checked] = await checkReceipts(app, found.athlete_id, [found.doc]);
  if (!checked!.receipt && checked!.drift.length === 0)
    throw new DomainError('not_found', `the proposal ${commandId} has no receipt: it is ${statusAt(found.doc, app.clock.now())}, not committed`);
  return checked!;
}

/**
 * An athlete's record stream from the event log, a page at a time (small pages die young, so the
 * heap does not grow with the history), each event handed to `each`; `read` is told each page's
 * length.
 */
async function readRecordStream(app: AuditDeps, athleteId: string, each: (e: ChainEvent) => void, read: (events: number) => void): Promise<void> {
  for (let from = 0; ; ) {
    const page = await app.events.readStream(streams.record(athleteId), from, EVENT_PAGE);
    for (const e of page) each(e);
    read(page.length);
    if (page.length < EVENT_PAGE) return;
    from = page[page.length - 1]!.revision + 1;
    // The embedded store reads synchronously: without a turn of the event loop between pages,
    // nothing else (a progress bar's redraw) would run until the whole stream was read.
    await setImmediate();
  }
}

/**
 * Where the read model's copies of an athlete's receipts differ from the log's: every proposal of
 * the athlete in the read model (newest prepared first, a page at a time) against the receipts
 * read from the log; a receipt of the log that the read model lacks is drift too.
 */
async function driftOf(app: AuditDeps, athleteId: string, logged: LogReceipts): Promise<Drift[]> {
  const found: Array<Omit<Drift, 'athlete_email'>> = [];
  const seen = new Set<string>();
  for await (const { doc } of athleteProposals(app, athleteId, {})) {
    seen.add(doc.id);
    const fields = receiptDrift(copyOf(doc), logged.get(doc.id));
    if (fields.length) found.push({ athlete_id: athleteId, command_id: doc.id, fields });
  }
  for (const log of logged.values())
    if (!seen.has(log.command_id)) found.push({ athlete_id: athleteId, command_id: log.command_id, fields: receiptDrift(null, log) });
  if (found.length === 0) return [];
  const athlete_email = await emailOf(app, athleteId);
  return found.map((d) => ({ ...d, athlete_email }));
}

/**
 * Every receipt of one athlete or all, as the log holds them: each athlete's record stream is read
 * once, a page at a time, and the receipts it makes are written in the order of their commits;
 * then the read model's copies are checked against them and where they differ is handed to
 * `drift`. `progress` counts the receipts written of those found so far (the total grows as each
 * athlete's stream is read). Holds one athlete's receipts at a time (a few hundred bytes each).
 */
export async function* exportReceipts(
  app: AuditDeps,
  athleteId: string | undefined,
  progress: (done: number, total: number) => void,
  drift: (d: Drift) => void,
): AsyncGenerator<ReceiptRow> {
  let done = 0;
  let total = 0;
  for await (const id of athleteId ? [athleteId] : athleteIds(app)) {
    const logged = new LogReceipts();
    await readRecordStream(
      app,
      id,
      (e) => logged.add(e),
      () => undefined,
    );
    total += logged.size;
    progress(done, total);
    for (const log of logged.values()) {
      yield { athlete_id: id, ...log };
      // The generator resumes once its consumer has written the row.
      progress(++done, total);
    }
    for (const d of await driftOf(app, id, logged)) drift(d);
  }
}

export interface VerifiedChain extends ChainReport {
  athlete_email: string | null;
}

/**
 * Recomputes the receipt chain of one athlete or of every athlete from the event log (never the
 * read models, which are derived and could be rebuilt to match anything), and stops after the
 * first broken chain; with `drift`, also checks the read model's copies of the receipts against
 * the log's. Streams are read a page at a time, so memory stays flat however long a record's
 * history (but for its receipts, a few hundred bytes each); `progress` counts the events read of
 * all there are.
 */
export async function verifyChains(
  app: AuditDeps,
  athleteId: string | undefined,
  progress: (done: number, total: number) => void,
  options: { head?: string; drift?: boolean } = {},
): Promise<{ chains: VerifiedChain[]; drift: Drift[] }> {
  const reports: ChainReport[] = [];
  const drift: Drift[] = [];
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
    await readRecordStream(
      app,
      id,
      (e) => verifier.add(e),
      (events) => {
        done += events;
        // Events appended since the count make the total grow, never the bar run past it.
        total = Math.max(total, done);
        progress(done, total);
      },
    );
    const report = verifier.report();
    // A head kept elsewhere that is no longer a link: the chain was rebuilt (or cut back) since.
    if (options.head && !report.broken && !verifier.holds(options.head)) {
      report.broken = {
        sequence: report.links + 1,
        command_id: null,
        event: null,
        revision: null,
        reason: `the head ${options.head} kept earlier is not a link of this chain: the chain was rewritten or cut back since it was recorded`,
      };
    }
    reports.push(report);
    if (options.drift) drift.push(...(await driftOf(app, id, verifier.receipts)));
    if (report.broken) break;
  }
  const emails = await emailsOf(
    app,
    reports.map((r) => r.athlete_id),
  );
  return { chains: reports.map((r) => ({ ...r, athlete_email: emails.get(r.athlete_id)! })), drift };
}
