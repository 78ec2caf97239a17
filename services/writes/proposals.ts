// The agent's side of write proposals: what a connection may propose, the current write shape of
// an item, preparing a batch (decided against the record as it is, stored as an event, nothing in
// the record changed) and reading a proposal back. The athlete's review builds on the same events.
import { randomUUID } from 'node:crypto';
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { ProposalEvent, ProposalPrepared } from '../../contracts/events.ts';
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import type { z } from 'zod';
import { KIND_OPERATIONS, WRITE_KINDS, WRITE_RECORD_JSON_SCHEMAS, WRITE_VERSION, writeKindOf, writeKinds, writeRecordSchemas, type ProposalStatus, type writeContext, type NormalisedAction, type Proposal, type WriteKind, type WriteProposalBody } from '../../contracts/write.ts';
import { areaOf, permissionFormPath, WRITE_PERMISSIONS, type WritePermission } from '../../contracts/write-permissions.ts';
import { PROPOSALS, proposalDocOf, type ProposalDoc } from '../../projections/proposals.ts';
import { WORKOUT_DETAILS, WORKOUTS } from '../../projections/workouts.ts';
import type { ItemDoc } from '../../projections/items.ts';
import type { Caller } from '../api/auth.ts';
import type { App } from '../app.ts';
import { DomainError } from '../domain/errors.ts';
import { decidePrepare, itemKeysOf, statusAt, type PreparedProposal } from '../domain/proposal.ts';
import { approvalKeys, decideApprove, decideReject, decideUndo, ReviewRefusal, undoDeadline, type BeforeImage } from '../domain/proposal-review.ts';
import { itemKey } from '../domain/record.ts';
import type { Loaded } from '../record-service.ts';
import { addDays, todayIn } from '../domain/time.ts';
import { nextLink, receiptOf, recordEventsDigest } from '../domain/receipt-chain.ts';
import { SealedDetails } from './sealed.ts';
import { pagesOf } from '../store/read-store.ts';

/** What the sealed part of a prepared proposal holds. */
export interface ProposalDetails {
  actions: NormalisedAction[];
  summaries: string[];
}

/** Proposals read at a time when the pending ones or a page of history are gathered. */
const PROPOSALS_PAGE = 100;
/** The `by_prepared` keyset of a proposal. */
const byPrepared = (d: ProposalDoc): [string, string] => [d.prepared_at, d.id];

/** Where each kind's current items are read from. */
const COLLECTIONS: Record<Exclude<WriteKind, 'completed_workout'>, string> = {
  exercise: 'exercises',
  saved_routine: 'routines',
  meal: 'meals',
  recovery_checkin: 'checkins',
  body_measurement: 'body_measurements',
  goal: 'goals',
  equipment_setup: 'equipment_setups',
  fitness_preferences: 'fitness_preferences',
};

export function approvalUrl(baseUrl: string, commandId: string): string {
  return `${baseUrl}/proposals/${commandId}`;
}

/** What proposals are made of: the record stream, the read models, the clock and the write switch. */
export type ProposalDeps = Pick<App, 'config' | 'clock' | 'reads' | 'records' | 'maintenance'>;

export class ProposalService {
  readonly #app: ProposalDeps;
  readonly #sealed: SealedDetails;

  constructor(deps: ProposalDeps) {
    this.#app = deps;
    this.#sealed = new SealedDetails(deps.reads, deps.clock);
  }

  static readonly collections = SealedDetails.collections;

  /** `get_write_context`: what this connection may propose, where to ask for more, and the limits. */
  async context(caller: Caller): Promise<z.infer<typeof writeContext>> {
    const now = this.#app.clock.now();
    const timezone = caller.athlete.profile.timezone;
    const today = todayIn(timezone, now.getTime());
    const lacking = WRITE_PERMISSIONS.filter((p) => !caller.writePermissions.includes(p));
    return {
      version: WRITE_VERSION,
      grant_id: caller.grantId,
      permissions: caller.writePermissions,
      read_scopes: caller.scopes,
      permissions_url: this.#permissionsUrl(caller, lacking.length ? lacking : WRITE_PERMISSIONS),
      kinds: writeKinds.map((kind) => ({
        kind,
        areas: kind === 'goal' ? [...new Set(Object.values(GOAL_AREAS))].sort() : [areaOf(WRITE_KINDS[kind], null)],
        operations: [...KIND_OPERATIONS[kind]],
        record_schema: WRITE_RECORD_JSON_SCHEMAS[kind],
      })),
      goal_areas: GOAL_AREAS,
      limits: {
        maximum_changes: WRITE_POLICY.changesPerProposal,
        proposal_expiry_minutes: WRITE_POLICY.proposalExpiryMinutes,
        scheduling_horizon_days: WRITE_POLICY.schedulingHorizonDays,
        undo_window_days: WRITE_POLICY.undoWindowDays,
      },
      record: { timezone, today, latest_scheduling_date: addDays(today, WRITE_POLICY.schedulingHorizonDays) },
      writes_paused: (await this.#app.maintenance.retryAfter('write')) !== null,
    };
  }

  /** The permission form's address for this connection, asking for `permissions`. */
  permissionsUrl(caller: Caller, permissions: readonly WritePermission[]): string {
    return this.#permissionsUrl(caller, permissions);
  }

  #permissionsUrl(caller: Caller, permissions: readonly WritePermission[]): string {
    return `${this.#app.config.baseUrl}${permissionFormPath(caller.grantId, permissions)}`;
  }

  /**
   * `get_write_record`: the item's current body in the write shape, with its revision and area (whose
   * read scope the caller must hold); null when it is not in this athlete's record. Found by its id;
   * a check-in by its date too (one a day), and the fitness preferences by neither (one an athlete,
   * sharing the athlete's id).
   */
  async record(athleteId: string, kind: WriteKind, ref: { id?: string | undefined; date?: string | undefined }) {
    let doc: ItemDoc | null;
    const id = kind === 'fitness_preferences' ? (ref.id ?? athleteId) : ref.id;
    if (id === undefined) {
      if (kind !== 'recovery_checkin' || ref.date === undefined) return null;
      [doc = null] = await this.#app.reads.page<ItemDoc>(COLLECTIONS[kind], { partition: athleteId, index: 'by_date', prefix: [ref.date], direction: 'asc', limit: 1 });
    } else if (kind === 'completed_workout') {
      const [summary, detail] = await Promise.all([this.#app.reads.get<ItemDoc>(WORKOUTS, athleteId, id), this.#app.reads.get<ItemDoc>(WORKOUT_DETAILS, athleteId, id)]);
      doc = summary && detail ? { ...summary, ...detail } : null;
    } else {
      doc = await this.#app.reads.get<ItemDoc>(COLLECTIONS[kind], athleteId, id);
    }
    if (!doc) return null;
    const fields = Object.keys(writeRecordSchemas[kind].shape);
    const record = Object.fromEntries(fields.map((f) => [f, doc[f]]));
    return { kind, id: doc.id, revision: doc.revision, area: areaOf(WRITE_KINDS[kind] as RecordKind, doc as { goal_type?: RecordItem<'goal'>['goal_type'] }), created_at: doc.created_at, updated_at: doc.updated_at, record };
  }

  /**
   * `prepare_write_proposal`. Decided against the record stream as it is (not a read model), so a
   * stale revision is caught however far projections lag; the proposal event is appended at the
   * revision decided against, so the `command_id` is claimed by the same append that found it free.
   */
  async prepare(caller: Caller, body: WriteProposalBody): Promise<Proposal> {
    const athleteId = caller.athlete.athlete_id;
    const now = this.#app.clock.now();
    const actor = { type: 'agent_proposal' as const, id: body.command_id };
    const found = await this.#app.records.command(athleteId, actor, async (loaded) => {
      const images = await loaded.images(itemKeysOf(body));
      const decision = decidePrepare(
        {
          body,
          caller: { grantId: caller.grantId, clientId: caller.clientId, clientName: caller.clientName, scopes: caller.scopes, writePermissions: caller.writePermissions },
          now,
          timezone: caller.athlete.profile.timezone,
          newId: randomUUID,
        },
        loaded.state,
        loaded.proposals,
        images,
      );
      // A replay answers from the stream it was decided on: a projection worker may not have caught up.
      if (decision.outcome === 'replay') return { events: [], result: proposalDocOf(await loaded.proposalEvents(decision.command_id), decision.command_id)! };
      const event = await this.#preparedEvent(athleteId, decision.proposal);
      return { events: [event], result: proposalDocOf([event], body.command_id)! };
    });
    return this.#view(found, now);
  }

  async #preparedEvent(athleteId: string, p: PreparedProposal): Promise<ProposalPrepared> {
    const details: ProposalDetails = { actions: p.actions, summaries: p.changes.map((c) => c.summary!) };
    return {
      type: 'proposal.prepared',
      data: {
        command_id: p.command_id,
        grant_id: p.grant_id,
        client_id: p.client_id,
        client_name: p.client_name,
        body_sha256: p.body_sha256,
        prepared_at: p.prepared_at,
        expires_at: p.expires_at,
        changes: p.changes.map(({ summary: _summary, ...change }) => change),
        dependencies: p.dependencies,
        details: await this.#sealed.seal(athleteId, details),
      },
    };
  }

  /** `get_write_proposal`: only the connection that prepared it sees it; to any other it does not exist. */
  async get(caller: Caller, commandId: string): Promise<Proposal | null> {
    const athleteId = caller.athlete.athlete_id;
    const doc = await this.#app.reads.get<ProposalDoc>(PROPOSALS, athleteId, commandId);
    if (!doc || doc.grant_id !== caller.grantId) return null;
    return this.#view(doc, this.#app.clock.now());
  }

  async #view(doc: ProposalDoc, now: Date): Promise<Proposal> {
    const details = await this.#sealed.open<ProposalDetails>(doc.details);
    const status = statusAt(doc, now);
    return {
      command_id: doc.id,
      version: WRITE_VERSION,
      status,
      client: { client_id: doc.client_id, name: doc.client_name },
      prepared_at: doc.prepared_at,
      expires_at: doc.expires_at,
      decided_at: doc.decided_at ?? (status === 'expired' ? doc.expires_at : null),
      approval_url: status === 'prepared' ? approvalUrl(this.#app.config.baseUrl, doc.id) : null,
      changes: doc.changes.map((c, i) => ({ ...c, summary: details?.summaries[i] ?? null })),
      actions: details?.actions ?? null,
      receipt: doc.receipt,
      conflict: doc.conflict && { ...doc.conflict, kind: writeKindOf(doc.conflict.kind) ?? 'exercise' },
      undone_at: doc.undone_at,
    };
  }

  // -------------------------------------------------------------------------------------------
  // The athlete's moves (web app only: no REST or MCP operation reaches these)

  /**
   * Approves a proposal: its record changes and its commit in one append at the record's revision,
   * or, if the record changed since preparation, the proposal becomes conflicted and nothing is
   * saved; past its expiry it becomes expired. A refusal (not awaiting review) changes nothing.
   */
  async approve(athleteId: string, commandId: string): Promise<{ outcome: 'committed' | 'expired' | 'conflicted' }> {
    const now = this.#app.clock.now();
    return this.#app.records.command<{ outcome: 'committed' | 'expired' | 'conflicted' }>(athleteId, athleteActor(athleteId), async (loaded) => {
      const { entry, prepared } = await this.#found(loaded, commandId);
      const details = await this.#sealed.open<ProposalDetails>(prepared.details);
      const decision = decideApprove({ now, record: loaded.state, entry, prepared, actions: details?.actions ?? null, images: await loaded.images(approvalKeys(details?.actions ?? [])) });
      if (decision.outcome !== 'committed') return { events: decision.events, result: { outcome: decision.outcome } };
      const committedAt = now.toISOString();
      // The receipt's chain link goes in the commit itself: one append writes both (receipt-chain.ts).
      const link = nextLink(
        athleteId,
        loaded.lastLink,
        { event: 'proposal.committed', command_id: commandId, receipt: receiptOf({ client_id: prepared.client_id, name: prepared.client_name }, { committed_at: committedAt, changes: decision.changes }), affected: decision.affected, record_events_sha256: recordEventsDigest(decision.recordEvents) },
        decision.recordEvents.length,
      );
      const committed: ProposalEvent = {
        type: 'proposal.committed',
        data: { command_id: commandId, committed_at: committedAt, changes: decision.changes, affected: decision.affected, undo: await this.#sealed.sealWith(prepared.details.key_id, decision.before), link },
      };
      return { events: [...decision.recordEvents, committed], result: { outcome: 'committed' as const } };
    });
  }

  async reject(athleteId: string, commandId: string): Promise<{ outcome: 'rejected' | 'expired' }> {
    const now = this.#app.clock.now();
    return this.#app.records.command(athleteId, athleteActor(athleteId), async (loaded) => {
      const events = decideReject((await this.#found(loaded, commandId)).entry, now);
      return { events, result: { outcome: events[0]!.type === 'proposal.rejected' ? ('rejected' as const) : ('expired' as const) } };
    });
  }

  /** Undoes a committed batch as a whole, or refuses (`ReviewRefusal`) and changes nothing. */
  async undo(athleteId: string, commandId: string): Promise<void> {
    const now = this.#app.clock.now();
    await this.#app.records.command(athleteId, athleteActor(athleteId), async (loaded) => {
      const { entry, prepared, committed } = await this.#found(loaded, commandId);
      if (!committed) throw new ReviewRefusal('not_committed', `this proposal is ${statusAt(entry, now)}; only a committed proposal can be undone`);
      const before = await this.#sealed.open<BeforeImage[]>(committed.undo);
      const decision = decideUndo({ now, record: loaded.state, entry, committedAt: committed.committed_at, affected: committed.affected, dependencies: prepared.dependencies, before });
      const undoneAt = now.toISOString();
      const link = nextLink(athleteId, loaded.lastLink, { event: 'proposal.undone', command_id: commandId, undone_at: undoneAt, affected: decision.affected, record_events_sha256: recordEventsDigest(decision.recordEvents) }, decision.recordEvents.length);
      const undone: ProposalEvent = { type: 'proposal.undone', data: { command_id: commandId, undone_at: undoneAt, affected: decision.affected, link } };
      return { events: [...decision.recordEvents, undone], result: undefined };
    });
  }

  /**
   * Retention (spec 3 rule 3): destroys the keys of proposals prepared longer ago than the undo
   * window allows (retention, plus the expiry within which a commit happens), so their actions,
   * summaries and earlier bodies can no longer be read; the minimal receipts stay in the clear.
   */
  async purge(): Promise<{ keysDestroyed: number; cutoff: string }> {
    const cutoff = retentionCutoff(this.#app.clock.now());
    return { keysDestroyed: await this.#sealed.destroyBefore(cutoff), cutoff: cutoff.toISOString() };
  }

  async #found(loaded: Loaded, commandId: string) {
    const entry = loaded.proposals.get(commandId);
    const events = await loaded.proposalEvents(commandId);
    const prepared = events.find((e): e is ProposalPrepared => e.type === 'proposal.prepared');
    if (!entry || !prepared) throw new DomainError('not_found', `there is no proposal ${commandId}`);
    const committed = events.find((e): e is Extract<ProposalEvent, { type: 'proposal.committed' }> => e.type === 'proposal.committed');
    return { entry, prepared: prepared.data, committed: committed?.data ?? null };
  }

  // -------------------------------------------------------------------------------------------
  // What the athlete's pages show

  /**
   * The athlete's decided or expired proposals, newest prepared first, `limit` at a time: `before`
   * is the previous page's `next` (its last proposal's preparation time and id), null at the end.
   */
  async history(athleteId: string, limit: number, before?: [string, string]): Promise<{ docs: ProposalDoc[]; next: [string, string] | null }> {
    const now = this.#app.clock.now();
    const docs: ProposalDoc[] = [];
    const query = { partition: athleteId, index: 'by_prepared', direction: 'desc' as const, limit: PROPOSALS_PAGE };
    for await (const page of pagesOf<ProposalDoc>(this.#app.reads, PROPOSALS, query, byPrepared, before)) {
      for (const d of page) {
        if (statusAt(d, now) === 'prepared') continue;
        docs.push(d);
        if (docs.length === limit) return { docs, next: byPrepared(d) };
      }
    }
    return { docs, next: null };
  }

  /**
   * Every proposal awaiting the athlete's review now, soonest to expire first: what Home announces
   * and the proposals page puts first. All of them, however many were prepared since: only those prepared
   * within the expiry can still await review, and they are read a page at a time.
   */
  async pending(athleteId: string): Promise<ProposalDoc[]> {
    const now = this.#app.clock.now();
    const since = new Date(now.getTime() - WRITE_POLICY.proposalExpiryMinutes * 60_000).toISOString();
    const pending: ProposalDoc[] = [];
    const query = { partition: athleteId, index: 'by_prepared', direction: 'desc' as const, limit: PROPOSALS_PAGE, range: { gte: since } };
    for await (const page of pagesOf<ProposalDoc>(this.#app.reads, PROPOSALS, query, byPrepared)) pending.push(...page.filter((d) => statusAt(d, now) === 'prepared'));
    return pending.sort((a, b) => a.expires_at.localeCompare(b.expires_at));
  }

  /** One proposal of the athlete, as the review page shows it; null when it is not theirs. */
  async review(athleteId: string, commandId: string): Promise<ProposalReview | null> {
    const doc = await this.#app.reads.get<ProposalDoc>(PROPOSALS, athleteId, commandId);
    if (!doc) return null;
    const now = this.#app.clock.now();
    const details = await this.#sealed.open<ProposalDetails>(doc.details);
    const before = doc.undo ? await this.#sealed.open<BeforeImage[]>(doc.undo) : null;
    const current = new Map<string, Record<string, unknown> | null>();
    if (details && statusAt(doc, now) === 'prepared') {
      for (const a of details.actions) {
        if (a.op === 'create') continue;
        current.set(itemKey(WRITE_KINDS[a.kind], a.id), (await this.record(athleteId, a.kind, { id: a.id }))?.record ?? null);
      }
    }
    return { doc, status: statusAt(doc, now), details, before, current, undoDeadline: doc.receipt ? undoDeadline(doc.receipt.committed_at).toISOString() : null };
  }
}

export interface ProposalReview {
  doc: ProposalDoc;
  status: ProposalStatus;
  details: ProposalDetails | null;
  /** A committed batch's earlier bodies, in the order of `doc.affected`; null once removed. */
  before: BeforeImage[] | null;
  /** While awaiting review: the current write shape of each item an update or delete names, by `kind/id`. */
  current: Map<string, Record<string, unknown> | null>;
  undoDeadline: string | null;
}

const athleteActor = (athleteId: string) => ({ type: 'athlete' as const, id: athleteId });

/** Keys made before this instant belong to proposals past every undo: prepared + expiry + retention. */
export function retentionCutoff(now: Date): Date {
  return new Date(now.getTime() - WRITE_POLICY.recoveryRetentionDays * 86_400_000 - WRITE_POLICY.proposalExpiryMinutes * 60_000);
}

const GOAL_AREAS = {
  target_1rm: areaOf('goal', { goal_type: 'target_1rm' }),
  target_bodyweight: areaOf('goal', { goal_type: 'target_bodyweight' }),
  weekly_session_count: areaOf('goal', { goal_type: 'weekly_session_count' }),
  weekly_volume: areaOf('goal', { goal_type: 'weekly_volume' }),
  daily_calories: areaOf('goal', { goal_type: 'daily_calories' }),
  daily_protein: areaOf('goal', { goal_type: 'daily_protein' }),
};
