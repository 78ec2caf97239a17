// A connection's write proposals and the athlete's view of them: what a connection may propose,
// the current write shape of an item, a proposal read back, the review, history and pending lists;
// and the transitions (prepare.ts, approve.ts, reject.ts, undo.ts, retention.ts), each in a file
// of its own, run from here with the service's ports.
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { ProposalEvent, ProposalPrepared } from '../../contracts/events.ts';

type ProposalCommitted = Extract<ProposalEvent, { type: 'proposal.committed' }>;
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import type { z } from 'zod';
import {
  KIND_OPERATIONS,
  WRITE_KINDS,
  WRITE_RECORD_JSON_SCHEMAS,
  WRITE_VERSION,
  writeKindOf,
  writeKinds,
  writeRecordSchemas,
  type ProposalStatus,
  type writeContext,
  type NormalisedAction,
  type Proposal,
  type WriteKind,
  type WriteProposalBody,
  type Receipt,
} from '../../contracts/write.ts';
import { areaOf, permissionFormPath, WRITE_PERMISSIONS, type WritePermission } from '../../contracts/write-permissions.ts';
import { PROPOSALS, type ProposalDoc, type WaitingItem } from '../../projections/proposals.ts';
import { WORKOUT_DETAILS, WORKOUTS } from '../../projections/workouts.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import type { Caller } from '../identity/caller.ts';
import { statusAt } from '../domain/proposal.ts';
import { approvalKeys, staleRecords, undoDeadline, type BeforeImage, type StaleRecord } from '../domain/proposal-review.ts';
import { itemKey, type ItemImage } from '../domain/record.ts';
import { logReceiptOf } from '../domain/receipt-chain.ts';
import { changeSummary, type ChangedBy, type ChangeInput } from '../words/changes.ts';
import type { WordsContext } from '../words/record-fields.ts';
import type { Loaded } from '../commands/record-service.ts';
import { addDays, todayIn } from '../domain/time.ts';
import { SealedDetails } from './sealed.ts';
import { pendingProposals, proposalHistory, waitingProposals } from '../reads/proposals.ts';
import { approveProposal, type ApproveOutcome } from './approve.ts';
import { changedBy, type ProposalCommandContext, type ProposalDeps, type ProposalDetails } from './moves.ts';
import { prepareProposal } from './prepare.ts';
import { rejectProposal } from './reject.ts';
import { purgeProposalKeys } from './retention.ts';
import { undoProposal } from './undo.ts';
import { NotYetProjected, projectedPast } from '../reads/projected.ts';

/** Where each kind's current items are read from. */
const COLLECTIONS: Record<Exclude<WriteKind, 'completed_workout'>, string> = {
  exercise: ITEM_COLLECTIONS.exercise,
  saved_routine: ITEM_COLLECTIONS.routine,
  meal: ITEM_COLLECTIONS.meal,
  recovery_checkin: ITEM_COLLECTIONS.checkin,
  body_measurement: ITEM_COLLECTIONS.body_measurement,
  goal: ITEM_COLLECTIONS.goal,
  equipment_setup: ITEM_COLLECTIONS.equipment_setup,
  fitness_preferences: ITEM_COLLECTIONS.fitness_preferences,
};

export function approvalUrl(baseUrl: string, commandId: string): string {
  return `${baseUrl}/proposals/${commandId}`;
}

/** What proposals are made of: the record stream, the read models, the keys that seal their details, the clock and the write switch. */
export class ProposalService {
  readonly #app: ProposalDeps;
  readonly #sealed: SealedDetails;
  /** What the transitions (prepare.ts, approve.ts, reject.ts, undo.ts, retention.ts) run with. */
  readonly #ctx: ProposalCommandContext;

  constructor(deps: ProposalDeps) {
    this.#app = deps;
    this.#sealed = new SealedDetails(deps.keys, deps.clock);
    this.#ctx = { deps, sealed: this.#sealed };
  }

  /** `prepare_write_proposal` (prepare.ts), answered as the connection sees the proposal. */
  async prepare(caller: Caller, body: WriteProposalBody): Promise<Proposal> {
    const now = this.#app.clock.now();
    const { doc, prepared } = await prepareProposal(this.#ctx, caller, body, now);
    if (prepared) this.#app.onTransition?.('prepared');
    return this.#view(caller, doc, now);
  }

  /** The athlete approves (approve.ts): web app only, as are the other moves. */
  async approve(athleteId: string, commandId: string): Promise<{ outcome: ApproveOutcome; position: number | null }> {
    const result = await approveProposal(this.#ctx, athleteId, commandId);
    if (result.position !== null) this.#app.onTransition?.(result.outcome);
    return result;
  }

  async reject(athleteId: string, commandId: string): Promise<{ outcome: 'rejected' | 'expired'; position: number | null }> {
    const result = await rejectProposal(this.#ctx, athleteId, commandId);
    if (result.position !== null) this.#app.onTransition?.(result.outcome);
    return result;
  }

  async undo(athleteId: string, commandId: string): Promise<{ position: number | null }> {
    const result = await undoProposal(this.#ctx, athleteId, commandId);
    if (result.position !== null) this.#app.onTransition?.('undone');
    return result;
  }

  /** Retention (retention.ts). */
  purge(): Promise<{ keysDestroyed: number; cutoff: string }> {
    return purgeProposalKeys(this.#ctx);
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
        maximum_pending_proposals: this.#app.config.proposalLimits.pendingProposals,
        maximum_proposal_bytes_per_day: this.#app.config.proposalLimits.proposalBytesPerDay,
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
      [doc = null] = await this.#app.reads.page<ItemDoc>(COLLECTIONS[kind], {
        partition: athleteId,
        index: 'by_date',
        prefix: [ref.date],
        direction: 'asc',
        limit: 1,
      });
    } else if (kind === 'completed_workout') {
      const [summary, detail] = await Promise.all([
        this.#app.reads.get<ItemDoc>(WORKOUTS, athleteId, id),
        this.#app.reads.get<ItemDoc>(WORKOUT_DETAILS, athleteId, id),
      ]);
      doc = summary && detail ? { ...summary, ...detail } : null;
    } else {
      doc = await this.#app.reads.get<ItemDoc>(COLLECTIONS[kind], athleteId, id);
    }
    if (!doc) return null;
    const fields = Object.keys(writeRecordSchemas[kind].shape);
    const record = Object.fromEntries(fields.map((f) => [f, doc[f]]));
    return {
      kind,
      id: doc.id,
      revision: doc.revision,
      area: areaOf(WRITE_KINDS[kind] as RecordKind, doc as { goal_type?: RecordItem<'goal'>['goal_type'] }),
      created_at: doc.created_at,
      updated_at: doc.updated_at,
      record,
    };
  }

  /** `get_write_proposal`: only the connection that prepared it sees it; to any other it does not exist. */
  async get(caller: Caller, commandId: string): Promise<Proposal | null> {
    const athleteId = caller.athlete.athlete_id;
    const doc = await this.#projectedDoc(athleteId, commandId);
    if (!doc || doc.grant_id !== caller.grantId) return null;
    return this.#view(caller, doc, this.#app.clock.now());
  }

  /**
   * A proposal's read-model document. One missing there but in the athlete's log (just prepared,
   * projections in a worker not there yet) is waited for, bounded: the approval_url an agent has
   * just handed over is never a 404; past the wait, `NotYetProjected` (503). Null when the log
   * has no such proposal.
   */
  async #projectedDoc(athleteId: string, commandId: string): Promise<ProposalDoc | null> {
    const doc = await this.#app.reads.get<ProposalDoc>(PROPOSALS, athleteId, commandId);
    if (doc) return doc;
    const position = await this.#app.records.proposalPosition(athleteId, commandId);
    if (position === null) return null;
    await this.projected(position, 'this proposal');
    return this.#app.reads.get<ProposalDoc>(PROPOSALS, athleteId, commandId);
  }

  /** Waits, bounded, until the read models show the log up to `position` (a write's), or throws `NotYetProjected`. */
  async projected(position: number | null, what: string): Promise<void> {
    if (
      position !== null &&
      !(await projectedPast(
        this.#app.reads,
        this.#app.runner.projections.map((p) => p.name),
        position,
      ))
    )
      throw new NotYetProjected(what);
  }

  /**
   * A proposal as its client reads it. Each change's summary is made now, in the athlete's units,
   * from the actions and the record as it is (or was, for a saved batch): the same words as the
   * athlete's page, never a sentence stored when it was prepared.
   */
  async #view(caller: Caller, doc: ProposalDoc, now: Date): Promise<Proposal> {
    const athleteId = caller.athlete.athlete_id;
    const status = statusAt(doc, now);
    const { details, before, receipt } = await this.#opened(athleteId, doc);
    const changes = details ? await this.#changeInputs(athleteId, doc, details.actions, before, null) : null;
    const words: WordsContext | null = details && {
      profile: caller.athlete.profile,
      exerciseName: await this.#exerciseNames(athleteId, details.actions, changes!),
    };
    return {
      command_id: doc.id,
      version: WRITE_VERSION,
      status,
      client: { client_id: doc.client_id, name: doc.client_name },
      prepared_at: doc.prepared_at,
      expires_at: doc.expires_at,
      decided_at: doc.decided_at ?? (status === 'expired' ? doc.expires_at : null),
      approval_url: status === 'prepared' ? approvalUrl(this.#app.config.baseUrl, doc.id) : null,
      changes: doc.changes.map((c, i) => ({ ...c, summary: changes && words ? changeSummary(changes[i]!, words) : null })),
      reason: details?.reason ?? null,
      actions: details?.actions ?? null,
      receipt,
      conflict: doc.conflict && {
        action_index: doc.conflict.action_index,
        kind: writeKindOf(doc.conflict.kind) ?? 'exercise',
        id: doc.conflict.id,
        reason: doc.conflict.reason,
      },
      undone_at: doc.undone_at,
    };
  }

  /**
   * A proposal's sealed parts, read from its events in the log (the read model keeps where they
   * are, not a copy): the actions and reason, and a saved batch's earlier bodies; null once
   * retention destroyed their key. And its receipt as the log holds it (`#receipt`).
   */
  async #opened(
    athleteId: string,
    doc: ProposalDoc,
  ): Promise<{ prepared: ProposalPrepared['data']; details: ProposalDetails | null; before: BeforeImage[] | null; receipt: Receipt | null }> {
    const revisions = doc.committed_revision === null ? [doc.prepared_revision] : [doc.prepared_revision, doc.committed_revision];
    const events = (await this.#app.records.readEvents(athleteId, revisions)) as ProposalEvent[];
    const prepared = events.find((e): e is ProposalPrepared => e.type === 'proposal.prepared' && e.data.command_id === doc.id);
    if (!prepared) throw new Error(`proposal ${doc.id} of athlete ${athleteId} has no proposal.prepared at revision ${doc.prepared_revision}`);
    const committed = events.find((e): e is ProposalCommitted => e.type === 'proposal.committed' && e.data.command_id === doc.id);
    const [details, before] = await Promise.all([
      this.#sealed.open<ProposalDetails>(prepared.data.details),
      committed ? this.#sealed.open<BeforeImage[]>(committed.data.undo) : null,
    ]);
    return { prepared: prepared.data, details, before, receipt: await this.#receipt(athleteId, doc, events) };
  }

  /**
   * A proposal's receipt as the event log holds it (issue 39), never the read model's copy, which
   * someone with the store could have edited: made from the events at the revisions the document
   * names, read anyway, when they hold its commit. A document that claims a commit they do not hold
   * is checked against the proposal's events by the record stream's own index of them.
   */
  async #receipt(athleteId: string, doc: ProposalDoc, events: ReadonlyArray<{ type: string; data: unknown }>): Promise<Receipt | null> {
    const logged = logReceiptOf(events, doc.id);
    if (logged || (doc.receipt === null && doc.committed_revision === null)) return logged?.receipt ?? null;
    return logReceiptOf(await this.#app.records.read(athleteId, (loaded) => loaded.proposalEvents(doc.id)), doc.id)?.receipt ?? null;
  }

  /**
   * Each action with the body its words compare the proposal to: the item as a saved batch found
   * it (its earlier body, while kept), or as it is now (`current`, or the read models'). A create
   * has none.
   */
  async #changeInputs(
    athleteId: string,
    doc: ProposalDoc,
    actions: readonly NormalisedAction[],
    before: BeforeImage[] | null,
    current: ReadonlyMap<string, Body | null> | null,
  ): Promise<ChangeInput[]> {
    const saved = doc.affected !== null;
    return Promise.all(
      actions.map(async (a): Promise<ChangeInput> => {
        const key = itemKey(WRITE_KINDS[a.kind], a.id);
        let body: Body | null = null;
        if (a.op !== 'create') {
          if (saved) {
            const i = doc.affected!.findIndex((x) => itemKey(x.kind, x.id) === key);
            const image = i >= 0 ? before?.[i]?.item : undefined;
            body = image ? writeShape(a.kind, image as Body) : null;
          } else if (current) body = current.get(key) ?? null;
          else body = (await this.record(athleteId, a.kind, { id: a.id }))?.record ?? null;
        }
        return { op: a.op, kind: a.kind, record: (a.record as Body | null) ?? null, current: body };
      }),
    );
  }

  /** Names of every exercise the bodies use: the batch's new ones as proposed, the rest from the catalog. */
  async #exerciseNames(
    athleteId: string,
    actions: readonly NormalisedAction[],
    changes: readonly ChangeInput[],
    extra: readonly string[] = [],
  ): Promise<(id: string) => string | null> {
    const names = new Map<string, string>();
    for (const a of actions) if (a.kind === 'exercise' && a.op === 'create' && a.record) names.set(a.id, `${String(a.record.name)} (new in this batch)`);
    const ids = new Set([...extra, ...changes.flatMap((c) => [...exerciseIdsIn(c.kind, c.record), ...exerciseIdsIn(c.kind, c.current)])]);
    await Promise.all(
      [...ids]
        .filter((id) => !names.has(id))
        .map(async (id) => {
          const doc = await this.#app.reads.get<{ id: string; name: string }>(COLLECTIONS.exercise, athleteId, id);
          if (doc) names.set(id, doc.name);
        }),
    );
    return (id) => names.get(id) ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // What the athlete's pages show

  /** The athlete's decided or expired proposals (reads/proposals.ts). */
  history(athleteId: string, limit: number, before?: [string, string]): Promise<{ docs: ProposalDoc[]; next: [string, string] | null }> {
    return proposalHistory(this.#app.reads, this.#app.clock.now(), athleteId, limit, before);
  }

  /** The proposals awaiting the athlete's review now (reads/proposals.ts). */
  waiting(athleteId: string): Promise<WaitingItem[]> {
    return waitingProposals(this.#app.reads, this.#app.clock.now(), athleteId);
  }

  /** The documents of waiting proposals still awaiting review (reads/proposals.ts). */
  pending(athleteId: string, items: readonly WaitingItem[]): Promise<ProposalDoc[]> {
    return pendingProposals(this.#app.reads, this.#app.clock.now(), athleteId, items);
  }

  /**
   * One proposal of the athlete, as the review page shows it; null when it is not theirs. While it
   * awaits review, it is checked against the record stream as it is, as approval would: the items
   * it changes are shown as they are now, and `stale` names every record no longer as it saw it.
   */
  async review(athleteId: string, commandId: string): Promise<ProposalReview | null> {
    const doc = await this.#projectedDoc(athleteId, commandId);
    if (!doc) return null;
    const now = this.#app.clock.now();
    const status = statusAt(doc, now);
    const { prepared, details, before, receipt } = await this.#opened(athleteId, doc);
    let current: Map<string, Body | null> | null = null;
    let stale: StaleChange[] = [];
    if (details && status === 'prepared') {
      ({ current, stale } = await this.#app.records.read(athleteId, async (loaded) => {
        const images = await loaded.images(approvalKeys(details.actions));
        const current = new Map(
          [...approvalKeys(details.actions)].map((key) => {
            const item = images.get(key)?.item;
            const kind = writeKindOf(key.slice(0, key.indexOf('/')) as RecordKind);
            return [key, item && kind ? writeShape(kind, item as Body) : null];
          }),
        );
        return { current, stale: await this.#staleChanges(loaded, prepared, details.actions, images) };
      }));
    }
    const changes = details ? await this.#changeInputs(athleteId, doc, details.actions, before, current) : null;
    const receiptItems = new Map<string, Body | null>();
    for (const c of receipt?.changes ?? [])
      receiptItems.set(itemKey(WRITE_KINDS[c.kind], c.id), (await this.record(athleteId, c.kind, { id: c.id }))?.record ?? null);
    const exerciseName = await this.#exerciseNames(athleteId, details?.actions ?? [], changes ?? [], [
      ...(receipt?.changes ?? []).flatMap((c) => exerciseIdsIn(c.kind, receiptItems.get(itemKey(WRITE_KINDS[c.kind], c.id)) ?? null)),
      ...(doc.conflict?.kind === 'exercise' ? [doc.conflict.id] : []),
      ...stale.flatMap((x) => (x.holder.kind === 'exercise' ? [x.holder.id] : exerciseIdsIn(x.kind, x.body))),
      ...(before ?? []).flatMap((b, i) => {
        const kind = writeKindOf(b.kind);
        return kind && b.item ? exerciseIdsIn(kind, b.item as Body) : doc.affected?.[i]?.kind === 'exercise' ? [b.id] : [];
      }),
    ]);
    return {
      doc,
      status,
      details,
      before,
      changes,
      stale,
      exerciseName,
      receipt,
      receiptItems,
      undoDeadline: receipt ? undoDeadline(receipt.committed_at).toISOString() : null,
    };
  }

  /** The stale records of a prepared batch, each with its body as it is and what last changed it. */
  async #staleChanges(
    loaded: Loaded,
    prepared: ProposalPrepared['data'],
    actions: readonly NormalisedAction[],
    images: ReadonlyMap<string, ItemImage>,
  ): Promise<StaleChange[]> {
    const found = staleRecords(prepared, actions, loaded.state, images);
    const holders = await loaded.images(new Set(found.map((x) => itemKey(x.holder.kind, x.holder.id))));
    return Promise.all(
      found.map(async (x): Promise<StaleChange> => {
        const key = itemKey(x.holder.kind, x.holder.id);
        const kind = writeKindOf(x.holder.kind) ?? 'exercise';
        const item = holders.get(key)?.item ?? null;
        const change = await loaded.lastChange(key);
        return { ...x, kind, body: item ? writeShape(kind, item as Body) : null, at: change?.at ?? null, by: await changedBy(loaded, change) };
      }),
    );
  }
}

type Body = Record<string, unknown>;

/** A stale record as the review page tells it: which, its body as it is now (null once removed), when and by what it changed. */
export interface StaleChange extends Omit<StaleRecord, 'kind'> {
  kind: WriteKind;
  body: Body | null;
  at: string | null;
  by: ChangedBy;
}

/** A record item in its kind's write shape: without its id and what the server made (an import's source). */
export function writeShape(kind: WriteKind, item: Body): Body {
  return Object.fromEntries(Object.keys(writeRecordSchemas[kind].shape).map((f) => [f, item[f]]));
}

/** The exercises a body of `kind` uses. */
function exerciseIdsIn(kind: WriteKind, body: Body | null): string[] {
  if (!body) return [];
  if (kind === 'goal') return typeof body.exercise_id === 'string' ? [body.exercise_id] : [];
  if (kind === 'completed_workout' || kind === 'saved_routine')
    return (body.exercises as Array<{ exercise_id: unknown }>).flatMap((e) => (typeof e.exercise_id === 'string' ? [e.exercise_id] : []));
  return [];
}

/** The athlete's moves refused while writes are paused for maintenance: nothing is saved. */
export interface ProposalReview {
  doc: ProposalDoc;
  status: ProposalStatus;
  details: ProposalDetails | null;
  /** A committed batch's earlier bodies, in the order of `doc.affected`; null once removed. */
  before: BeforeImage[] | null;
  /** Each action with the body it is compared to (see `#changeInputs`); null once the details are removed. */
  changes: ChangeInput[] | null;
  /** While awaiting review: every record no longer as the batch saw it; approving now would save nothing. */
  stale: StaleChange[];
  /** Names of the exercises the page shows. */
  exerciseName(id: string): string | null;
  /** A committed batch's receipt as the event log holds it (not the read model's copy in `doc`); null until committed. */
  receipt: Receipt | null;
  /** A committed batch's records as they are now, by `kind/id` (null: no longer in the record), for the receipt's links. */
  receiptItems: Map<string, Body | null>;
  undoDeadline: string | null;
}

const GOAL_AREAS = {
  target_1rm: areaOf('goal', { goal_type: 'target_1rm' }),
  target_bodyweight: areaOf('goal', { goal_type: 'target_bodyweight' }),
  weekly_session_count: areaOf('goal', { goal_type: 'weekly_session_count' }),
  weekly_volume: areaOf('goal', { goal_type: 'weekly_volume' }),
  daily_calories: areaOf('goal', { goal_type: 'daily_calories' }),
  daily_protein: areaOf('goal', { goal_type: 'daily_protein' }),
};
