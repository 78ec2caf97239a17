// The athlete's moves on a proposal (spec 3): approve, reject, undo, and what time does (expiry).
// Each is a command with a state guard first, then its policy; each returns the events to append
// in one append to the record stream, or a refusal. Approval and undo reuse the record decider, so
// "all or nothing" and "nothing changed since" are the record's own rules.
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { AffectedItem, ProposalEvent, ProposalPrepared, RecordEvent } from '../../contracts/events.ts';
import { recordChangeOf } from '../../contracts/events.ts';
import type { RecordKind } from '../../contracts/record.ts';
import { WRITE_KINDS, type NormalisedAction } from '../../contracts/write.ts';
import { DomainError } from './errors.ts';
import { recordChangesOf, statusAt, type ProposalEntry } from './proposal.ts';
import { decideChanges, itemKey, live, type ItemImage, type RecordChange, type RecordState } from './record.ts';
import { nextLink, receiptOf, recordEventsDigest, type ReceiptLink } from './receipt-chain.ts';

/** The body an affected item had before a commit (null: the commit created it), for undo. */
export interface BeforeImage {
  kind: RecordKind;
  id: string;
  item: { id: string } | null;
  /** When it was first created; a restored item keeps it. */
  created_at: string | null;
}

export type ReviewRefusalReason =
  /** Not awaiting review any more (or never prepared): committed, rejected, conflicted, undone, expired. */
  | 'not_pending'
  /** Undo asked of a proposal that was never committed, or was undone already. */
  | 'not_committed'
  | 'undo_window_passed'
  | 'recovery_data_removed'
  /** An affected record or dependency changed since the save: the whole undo is prevented. */
  | 'undo_blocked';

export class ReviewRefusal extends Error {
  readonly reason: ReviewRefusalReason;
  /** The record that blocks an undo, and how: changed or removed since the save, or (an exercise the batch created) used since. */
  readonly item: { kind: RecordKind; id: string; how: 'changed' | 'removed' | 'in_use' } | null;
  constructor(reason: ReviewRefusalReason, message: string, item: ReviewRefusal['item'] = null) {
    super(message);
    this.name = 'ReviewRefusal';
    this.reason = reason;
    this.item = item;
  }
}

/** What a conflict names: the action (or dependency) whose record changed, and how. */
export interface Conflict {
  action_index: number | null;
  kind: RecordKind;
  id: string;
  reason: 'changed' | 'removed' | 'taken';
}

export interface ApproveContext {
  now: Date;
  record: RecordState;
  entry: ProposalEntry;
  prepared: ProposalPrepared['data'];
  /** The sealed actions, opened; null once their key is destroyed. */
  actions: NormalisedAction[] | null;
  /** Current images of `approvalKeys(...)`. */
  images: ReadonlyMap<string, ItemImage>;
}

export type ApproveDecision =
  | {
      outcome: 'committed';
      recordEvents: RecordEvent[];
      changes: Array<{
        index: number;
        op: NormalisedAction['op'];
        kind: NormalisedAction['kind'];
        id: string;
        revision_before: number | null;
        revision_after: number;
      }>;
      affected: AffectedItem[];
      before: BeforeImage[];
    }
  | { outcome: 'expired'; events: ProposalEvent[] }
  | { outcome: 'conflicted'; events: ProposalEvent[]; conflict: Conflict };

/** The items whose current bodies approval needs: every action's item, and a deleted workout's feedback. */
export function approvalKeys(actions: ReadonlyArray<Pick<NormalisedAction, 'op' | 'kind' | 'id'>>): Set<string> {
  const keys = new Set<string>();
  for (const a of actions) {
    const kind = WRITE_KINDS[a.kind];
    keys.add(itemKey(kind, a.id));
    if (kind === 'workout' && a.op === 'delete') keys.add(itemKey('feedback', a.id));
  }
  return keys;
}

function requirePending(entry: ProposalEntry, now: Date): 'prepared' | 'expired' {
  const status = statusAt(entry, now);
  if (status !== 'prepared' && !(status === 'expired' && entry.status === 'prepared')) {
    throw new ReviewRefusal('not_pending', `this proposal is ${status}; only a proposal awaiting review can be approved or rejected`);
  }
  return status;
}

/**
 * Approve: before expiry, and only if nothing the batch touches or relies on changed since it was
 * prepared. Then every change is decided again by the record decider on the record as it is now,
 * and saved with the commit in one append; if the record refuses, the proposal is conflicted.
 */
export function decideApprove(ctx: ApproveContext): ApproveDecision {
  const at = ctx.now.toISOString();
  const commandId = ctx.prepared.command_id;
  if (requirePending(ctx.entry, ctx.now) === 'expired') {
    return { outcome: 'expired', events: [{ type: 'proposal.expired', data: { command_id: commandId, expired_at: ctx.entry.expires_at } }] };
  }
  if (!ctx.actions) throw new ReviewRefusal('recovery_data_removed', 'the details of this proposal were removed');
  const changes = recordChangesOf(ctx.actions, ctx.prepared.dependencies, ctx.images);
  let recordEvents: RecordEvent[];
  try {
    recordEvents = decideChanges(changes, ctx.record);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const conflict = conflictOf(error, changes, ctx.prepared.dependencies.length);
    return { outcome: 'conflicted', conflict, events: [{ type: 'proposal.conflicted', data: { command_id: commandId, conflicted_at: at, conflict } }] };
  }
  const { affected, before } = savedItems(recordEvents, ctx.record, ctx.images);
  const receipt = ctx.actions.map((a, index) => {
    const line = affected.find((x) => x.kind === WRITE_KINDS[a.kind] && x.id === a.id)!;
    return { index, op: a.op, kind: a.kind, id: a.id, revision_before: line.revision_before, revision_after: line.revision_after };
  });
  return { outcome: 'committed', recordEvents, changes: receipt, affected, before };
}

/**
 * What a change about to be saved does to each item (`record` as it is before it), and each
 * item's body before it from `images` (the current images of every item it updates or deletes):
 * what undoing it needs.
 */
export function savedItems(
  recordEvents: readonly RecordEvent[],
  record: RecordState,
  images: ReadonlyMap<string, ItemImage>,
): { affected: AffectedItem[]; before: BeforeImage[] } {
  const affected = recordEvents.map((event): AffectedItem => {
    const { kind, op } = recordChangeOf(event.type)!;
    const data = event.data as { item?: { id: string }; id?: string; revision: number };
    const id = data.item?.id ?? data.id!;
    const before = live(record, kind, id);
    return { kind, id, change: op, revision_before: before?.revision ?? null, revision_after: data.revision };
  });
  const before = affected.map((x): BeforeImage => {
    const image = images.get(itemKey(x.kind, x.id));
    return {
      kind: x.kind,
      id: x.id,
      item: x.revision_before === null ? null : (image?.item ?? null),
      created_at: x.revision_before === null ? null : (image?.created_at ?? null),
    };
  });
  return { affected, before };
}

/** A record a prepared batch saw that is no longer as it saw it: what approving now would run into. */
export interface StaleRecord extends Conflict {
  /**
   * The record in the way, when it is another than the one named (the check-in that took the day
   * a new check-in was for); otherwise the named record itself.
   */
  holder: { kind: RecordKind; id: string };
}

/**
 * Checks a prepared batch against the record as it is, as approval would, without deciding
 * anything: every item it updates or deletes and every record it relies on, at the revision it
 * saw; then the record's own rules over the whole batch (a day another check-in took since). Empty
 * when approving now would save the batch.
 */
export function staleRecords(
  prepared: Pick<ProposalPrepared['data'], 'dependencies'>,
  actions: readonly NormalisedAction[],
  record: RecordState,
  images: ReadonlyMap<string, ItemImage>,
): StaleRecord[] {
  const stale: StaleRecord[] = [];
  const check = (actionIndex: number | null, kind: RecordKind, id: string, revision: number) => {
    const current = live(record, kind, id);
    if (!current || current.revision !== revision)
      stale.push({ action_index: actionIndex, kind, id, reason: current ? 'changed' : 'removed', holder: { kind, id } });
  };
  for (const d of prepared.dependencies) check(null, d.kind, d.id, d.revision);
  actions.forEach((a, i) => {
    if (a.op !== 'create') check(i, WRITE_KINDS[a.kind], a.id, a.base_revision!);
  });
  if (stale.length) return stale;
  const changes = recordChangesOf([...actions], prepared.dependencies, images);
  try {
    decideChanges(changes, record);
    return [];
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const conflict = conflictOf(error, changes, prepared.dependencies.length);
    return [{ ...conflict, holder: holderOf(conflict, actions, record) }];
  }
}

/** The record holding what a refused create needed: the check-in of the day, or the item of the id. */
function holderOf(conflict: Conflict, actions: readonly NormalisedAction[], record: RecordState): { kind: RecordKind; id: string } {
  const action = conflict.action_index === null ? null : actions[conflict.action_index];
  if (conflict.reason === 'taken' && conflict.kind === 'checkin' && action?.record) {
    const holder = record.checkinIdByDate.get(String(action.record.date));
    if (holder) return { kind: 'checkin', id: holder };
  }
  return { kind: conflict.kind, id: conflict.id };
}

/** Which record an approval's refusal is about, as the review page names it. */
function conflictOf(error: DomainError, changes: RecordChange[], dependencyCount: number): Conflict {
  const match = /^changes\[(\d+)\]/.exec(error.issues[0]?.path ?? '');
  // A batch of one change names no index; the record decider's other refusals concern its first.
  const index = match ? Number(match[1]) : 0;
  const change = changes[index]!;
  const id = 'id' in change ? change.id : (change.item as { id: string }).id;
  const reason = error.code === 'not_found' ? 'removed' : error.code === 'date_taken' || error.code === 'already_exists' ? 'taken' : 'changed';
  return { action_index: index < dependencyCount ? null : index - dependencyCount, kind: change.kind, id, reason };
}

/** Reject: nothing saved. A proposal past its expiry is expired instead. */
export function decideReject(entry: ProposalEntry, now: Date): ProposalEvent[] {
  if (requirePending(entry, now) === 'expired') return [{ type: 'proposal.expired', data: { command_id: entry.command_id, expired_at: entry.expires_at } }];
  return [{ type: 'proposal.rejected', data: { command_id: entry.command_id, rejected_at: now.toISOString() } }];
}

export interface UndoContext {
  now: Date;
  record: RecordState;
  entry: ProposalEntry;
  committedAt: string;
  affected: readonly AffectedItem[];
  dependencies: ProposalPrepared['data']['dependencies'];
  /** The sealed before-images, opened; null once their key is destroyed. */
  before: readonly BeforeImage[] | null;
}

/** The last instant a batch committed at `committedAt` can be undone. */
export function undoDeadline(committedAt: string): Date {
  return new Date(Date.parse(committedAt) + WRITE_POLICY.undoWindowDays * 86_400_000);
}

/**
 * Undo: within the window, and only if every affected record and dependency is as the commit left
 * it; then the whole batch is reversed with new record events (created items removed, changed
 * ones set back, deleted ones brought back), never a rewrite of history.
 */
export function decideUndo(ctx: UndoContext): { recordEvents: RecordEvent[]; affected: AffectedItem[] } {
  if (ctx.entry.status !== 'committed')
    throw new ReviewRefusal('not_committed', `this proposal is ${statusAt(ctx.entry, ctx.now)}; only a committed proposal can be undone`);
  return decideReversal({ ...ctx, savedAt: ctx.committedAt, noun: 'batch' });
}

/**
 * Reverses a saved change (an approved batch, or the athlete's own edit) as a whole: within the
 * undo window, only if every affected record and dependency is as the change left it, with new
 * record events. `noun` names the change in refusals ("batch").
 */
export function decideReversal(ctx: {
  now: Date;
  record: RecordState;
  savedAt: string;
  affected: readonly AffectedItem[];
  dependencies: UndoContext['dependencies'];
  before: readonly BeforeImage[] | null;
  noun: string;
}): { recordEvents: RecordEvent[]; affected: AffectedItem[] } {
  if (ctx.now.getTime() >= undoDeadline(ctx.savedAt).getTime()) {
    throw new ReviewRefusal(
      'undo_window_passed',
      `a ${ctx.noun} can be undone for ${WRITE_POLICY.undoWindowDays} days after it was saved; this one was saved on ${ctx.savedAt.slice(0, 10)}`,
    );
  }
  if (!ctx.before) throw new ReviewRefusal('recovery_data_removed', `the earlier values of this ${ctx.noun} were removed, so it can no longer be undone`);
  const changes = undoChanges(ctx.affected, ctx.before, ctx.dependencies);
  let recordEvents: RecordEvent[];
  try {
    recordEvents = decideChanges(changes, ctx.record);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const match = /^changes\[(\d+)\]/.exec(error.issues[0]?.path ?? '');
    const change = changes[match ? Number(match[1]) : 0]!;
    // Why, as the decider found it: changed or removed since, or (an exercise the change created)
    // used by something saved since.
    const how = error.code === 'not_found' ? 'removed' : error.code === 'not_supported' ? 'in_use' : 'changed';
    const item = { kind: change.kind, id: 'id' in change ? change.id : (change.item as { id: string }).id, how } as const;
    const why = {
      removed: `was removed after this ${ctx.noun} was saved`,
      in_use: 'is used by a workout, routine or goal saved since',
      changed: `changed after this ${ctx.noun} was saved`,
    }[how];
    throw new ReviewRefusal('undo_blocked', `the ${item.kind.replace('_', ' ')} ${item.id} ${why}, so nothing was undone`, item);
  }
  const affected = recordEvents.map((event): AffectedItem => {
    const { kind, op } = recordChangeOf(event.type)!;
    const data = event.data as { item?: { id: string }; id?: string; revision: number };
    const id = data.item?.id ?? data.id!;
    return {
      kind,
      id,
      change: op,
      revision_before: ctx.affected.find((x) => x.kind === kind && x.id === id)?.revision_after ?? null,
      revision_after: data.revision,
    };
  });
  return { recordEvents, affected };
}

/**
 * The changes that reverse a commit. Brought-back items first (in the commit's order: a workout
 * before its feedback), then items set back, then created items removed in reverse order (a new
 * workout before the new exercise it uses). Dependencies are asserted as the commit left them.
 */
function undoChanges(affected: readonly AffectedItem[], before: readonly BeforeImage[], dependencies: UndoContext['dependencies']): RecordChange[] {
  const restores: RecordChange[] = [];
  const updates: RecordChange[] = [];
  const removals: RecordChange[] = [];
  affected.forEach((x, i) => {
    const image = before[i]!;
    if (x.change === 'created') removals.unshift({ op: 'delete', kind: x.kind, id: x.id, base_revision: x.revision_after });
    else if (image.item === null) throw new Error(`no earlier body of ${x.kind} ${x.id}`);
    else if (x.change === 'deleted')
      restores.push({ op: 'restore', kind: x.kind, item: image.item, base_revision: x.revision_after, created_at: image.created_at! });
    else updates.push({ op: 'update', kind: x.kind, item: image.item, base_revision: x.revision_after });
  });
  return [...dependencies.map((d): RecordChange => ({ op: 'expect', kind: d.kind, id: d.id, revision: d.revision })), ...restores, ...updates, ...removals];
}

type ProposalCommitted = Extract<ProposalEvent, { type: 'proposal.committed' }>;

/**
 * The commit of an approved batch, after its record events: with the receipt chain's next link,
 * which goes in the commit itself, so that one append writes both (receipt-chain.ts). `undo` is
 * the batch's earlier bodies, sealed.
 */
export function committedEvent(input: {
  athleteId: string;
  lastLink: ReceiptLink | null;
  prepared: ProposalPrepared['data'];
  committedAt: string;
  decision: Extract<ApproveDecision, { outcome: 'committed' }>;
  undo: ProposalCommitted['data']['undo'];
}): ProposalCommitted {
  const { prepared, decision, committedAt } = input;
  const link = nextLink(
    input.athleteId,
    input.lastLink,
    {
      event: 'proposal.committed',
      command_id: prepared.command_id,
      receipt: receiptOf({ client_id: prepared.client_id, name: prepared.client_name }, { committed_at: committedAt, changes: decision.changes }),
      affected: decision.affected,
      record_events_sha256: recordEventsDigest(decision.recordEvents),
    },
    decision.recordEvents.length,
  );
  return {
    type: 'proposal.committed',
    data: { command_id: prepared.command_id, committed_at: committedAt, changes: decision.changes, affected: decision.affected, undo: input.undo, link },
  };
}

/** The undo of a committed batch, after its record events, with the receipt chain's next link. */
export function undoneEvent(input: {
  athleteId: string;
  lastLink: ReceiptLink | null;
  commandId: string;
  undoneAt: string;
  decision: { recordEvents: RecordEvent[]; affected: AffectedItem[] };
}): ProposalEvent {
  const { commandId, undoneAt, decision } = input;
  const link = nextLink(
    input.athleteId,
    input.lastLink,
    {
      event: 'proposal.undone',
      command_id: commandId,
      undone_at: undoneAt,
      affected: decision.affected,
      record_events_sha256: recordEventsDigest(decision.recordEvents),
    },
    decision.recordEvents.length,
  );
  return { type: 'proposal.undone', data: { command_id: commandId, undone_at: undoneAt, affected: decision.affected, link } };
}
