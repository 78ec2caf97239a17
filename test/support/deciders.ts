// Our deciders as decider-spec.ts takes them (`decide(command, state)`, `evolve`, `initialState`),
// and the events a test gives them. The record and import deciders decide on `RecordState`, folded
// by the record's own `evolve`. The proposal deciders (prepare, approve, reject, undo) and the
// athlete's edit deciders (save, undo) decide on the record stream as the service loads it
// (services/record-service.ts): the fold its commands decide on (`foldEvent`, from `emptyFold`),
// and its events, from which item bodies, a proposal's own events and the athlete's last edit are
// read back by revision as the service reads them.
import type { EditEvent, ProposalEvent, ProposalPrepared, RecordChangeEvent, RecordEvent, RecordStreamEvent, Sealed } from '../../contracts/events.ts';
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import type { NormalisedAction } from '../../contracts/write.ts';
import { decideEdit, decideEditUndo, editKeys, type EditCommand, type LastEdit } from '../../services/domain/athlete-edit.ts';
import type { DomainErrorCode, DomainError } from '../../services/domain/errors.ts';
import {
  approvalKeys,
  decideApprove,
  decideReject,
  decideUndo,
  ReviewRefusal,
  type ApproveDecision,
  type BeforeImage,
  type ReviewRefusalReason,
} from '../../services/domain/proposal-review.ts';
import {
  decidePrepare,
  itemKeysOf,
  type PrepareCommand,
  type PrepareDecision,
  type PreparedProposal,
  type WriteRefusal,
  type WriteRefusalReason,
} from '../../services/domain/proposal.ts';
import { decideHevySync, hevySyncKeys, type HevySyncCommand, type HevySyncDecision } from '../../services/domain/hevy-sync.ts';
import { decideImport, type ImportCommand, type ImportDecision } from '../../services/domain/import.ts';
import { emptyFold, foldEvent, imageRevisions, type RecordFold } from '../../services/domain/record-fold.ts';
import { decideChanges, evolve, initialRecordState, itemImages, type ItemImage, type RecordChange, type RecordState } from '../../services/domain/record.ts';
import { domainRefusals, reviewRefusals, writeRefusals, type Decider } from './decider-spec.ts';

// ---------------------------------------------------------------------------------------------
// The record decider: a batch of changes, decided on the record's state

export function recordDecider(athleteId: string): Decider<RecordChange[], RecordEvent, RecordState, RecordEvent[], DomainError, DomainErrorCode> {
  return { decide: (changes, state) => decideChanges(changes, state), evolve, initialState: () => initialRecordState(athleteId), refusals: domainRefusals };
}

/** An import: parsed workouts of an export, decided on the record's state (through the record decider). */
export function importDecider(athleteId: string): Decider<ImportCommand, RecordEvent, RecordState, ImportDecision, DomainError, DomainErrorCode> {
  return { decide: decideImport, evolve, initialState: () => initialRecordState(athleteId), refusals: domainRefusals };
}

/**
 * A record event, as the record decider writes it. `${K}.created` with K not yet known is no member
 * of the union TypeScript can pick, so each builder asserts its type once, here.
 */
export const created = <K extends RecordKind>(kind: K, item: RecordItem<K>, revision = 1): RecordEvent =>
  ({ type: `${kind}.created`, data: { item, revision } }) as RecordChangeEvent<K>;
export const updated = <K extends RecordKind>(kind: K, item: RecordItem<K>, revision: number): RecordEvent =>
  ({ type: `${kind}.updated`, data: { item, revision } }) as RecordChangeEvent<K>;
export const deleted = (kind: RecordKind, id: string, revision: number): RecordEvent =>
  ({ type: `${kind}.deleted`, data: { id, revision } }) as RecordChangeEvent;
/**
 * An item created again (restored by an undo) or carried over, with the times it keeps: the event
 * schema has them (contracts/events.ts), `RecordChangeEvent` leaves them out, so they are added.
 */
export function createdWith<K extends RecordKind>(
  kind: K,
  item: RecordItem<K>,
  revision: number,
  times: { created_at: string; updated_at?: string },
): RecordEvent {
  const event = created(kind, item, revision);
  Object.assign(event.data, times);
  return event;
}

// ---------------------------------------------------------------------------------------------
// The record stream, loaded: what the proposal deciders decide on

export interface LoadedStream {
  fold: RecordFold;
  /** The stream's events by revision, each with when it occurred (an item's first and last change times come from it). */
  events: Array<RecordStreamEvent & { revision: number; occurred_at: string }>;
}

/** Folds one event into the loaded stream, at the next revision, as occurring at `occurredAt`. */
const evolveStream =
  (occurredAt: string) =>
  (stream: LoadedStream, event: RecordStreamEvent): LoadedStream => {
    const revision = stream.events.length;
    foldEvent(stream.fold, { revision, type: event.type, data: event.data });
    stream.events.push({ ...event, revision, occurred_at: occurredAt });
    return stream;
  };

/** The current images of `keys`, read back from the events the fold says hold them (as `Loaded.images`). */
export function imagesOf(stream: LoadedStream, keys: ReadonlySet<string>): Map<string, ItemImage> {
  return itemImages(
    imageRevisions(stream.fold, keys).map((revision) => stream.events[revision]!),
    keys,
  );
}

/** A proposal's entry and its prepared and committed events, read back as the service reads them. */
function proposalOf(stream: LoadedStream, commandId: string) {
  const entry = stream.fold.proposals.get(commandId);
  const events = (stream.fold.proposalEvents.get(commandId) ?? []).map((revision) => stream.events[revision]! as ProposalEvent);
  const prepared = events.find((e) => e.type === 'proposal.prepared');
  // A test that names a proposal it never gave is wrong, whatever the decider would say: no refusal.
  if (!entry || !prepared) throw new Error(`no proposal ${commandId} among the given events`);
  const committed = events.find((e) => e.type === 'proposal.committed');
  return { entry, prepared: prepared.data, committed: committed?.data ?? null };
}

interface StreamOptions {
  athleteId: string;
  /** When each given event occurred. */
  occurredAt: string;
}

type StreamDecider<Command, Outcome, R extends Error, Code extends string> = Decider<Command, RecordStreamEvent, LoadedStream, Outcome, R, Code>;

const streamOf = ({ athleteId, occurredAt }: StreamOptions) => ({
  evolve: evolveStream(occurredAt),
  initialState: (): LoadedStream => ({ fold: emptyFold(athleteId), events: [] }),
});

/** Prepare: an agent's batch, decided on the record and its proposals, with the bodies its updates and deletes name. */
export function prepareDecider(options: StreamOptions): StreamDecider<PrepareCommand, PrepareDecision, WriteRefusal, WriteRefusalReason> {
  return {
    ...streamOf(options),
    decide: (command, s) => decidePrepare(command, s.fold.state, s.fold.proposals, imagesOf(s, itemKeysOf(command.body))),
    refusals: writeRefusals,
  };
}

/** The athlete approves a proposal at `now`; `actions` are its sealed actions opened (null: their key destroyed). */
export interface ApproveCommand {
  command_id: string;
  now: Date;
  actions: NormalisedAction[] | null;
}

export function approveDecider(options: StreamOptions): StreamDecider<ApproveCommand, ApproveDecision, ReviewRefusal, ReviewRefusalReason> {
  return {
    ...streamOf(options),
    decide: (command, s) => {
      const { entry, prepared } = proposalOf(s, command.command_id);
      return decideApprove({
        now: command.now,
        record: s.fold.state,
        entry,
        prepared,
        actions: command.actions,
        images: imagesOf(s, approvalKeys(command.actions ?? [])),
      });
    },
    refusals: reviewRefusals,
  };
}

export interface RejectCommand {
  command_id: string;
  now: Date;
}

export function rejectDecider(options: StreamOptions): StreamDecider<RejectCommand, ProposalEvent[], ReviewRefusal, ReviewRefusalReason> {
  return { ...streamOf(options), decide: (command, s) => decideReject(proposalOf(s, command.command_id).entry, command.now), refusals: reviewRefusals };
}

/** The athlete undoes a committed proposal at `now`; `before` are the sealed earlier bodies opened (null: their key destroyed). */
export interface UndoCommand {
  command_id: string;
  now: Date;
  before: readonly BeforeImage[] | null;
}

export function undoDecider(options: StreamOptions): StreamDecider<UndoCommand, ReturnType<typeof decideUndo>, ReviewRefusal, ReviewRefusalReason> {
  return {
    ...streamOf(options),
    decide: (command, s) => {
      const { entry, prepared, committed } = proposalOf(s, command.command_id);
      // As the service does: a proposal never committed has no commit to undo (decideUndo's own check covers one undone since).
      if (!committed) throw new ReviewRefusal('not_committed', `this proposal is ${entry.status}; only a committed proposal can be undone`);
      return decideUndo({
        now: command.now,
        record: s.fold.state,
        entry,
        committedAt: committed.committed_at,
        affected: committed.affected,
        dependencies: prepared.dependencies,
        before: command.before,
      });
    },
    refusals: reviewRefusals,
  };
}

// ---------------------------------------------------------------------------------------------
// The athlete's own edits: decided on the same loaded stream, their last edit read back by revision

/** An edit: the athlete's batch of write actions, decided on the record with the bodies its updates and deletes name. */
export function editDecider(options: StreamOptions): StreamDecider<EditCommand, Array<RecordEvent | EditEvent>, WriteRefusal, WriteRefusalReason> {
  return {
    ...streamOf(options),
    decide: (command, s) => decideEdit(command, s.fold.state, imagesOf(s, editKeys(command.actions))),
    refusals: writeRefusals,
  };
}

/** The athlete's last edit, read back from the stream as the service reads it (`Loaded.lastEdit`). */
export function lastEditOf(stream: LoadedStream): LastEdit {
  const at = stream.fold.lastEdit;
  const event = at ? stream.events[at.revision] : undefined;
  return event?.type === 'edit.saved' ? event.data : null;
}

/** The athlete undoes the edit `edit_id` at `now`. */
export interface EditUndoCommand {
  edit_id: string;
  now: Date;
}

export function editUndoDecider(options: StreamOptions): StreamDecider<EditUndoCommand, Array<RecordEvent | EditEvent>, ReviewRefusal, ReviewRefusalReason> {
  return {
    ...streamOf(options),
    decide: (command, s) => decideEditUndo({ now: command.now, record: s.fold.state, last: lastEditOf(s), editId: command.edit_id }),
    refusals: reviewRefusals,
  };
}

// ---------------------------------------------------------------------------------------------
// Proposal events, as the service writes them from a decision

/** Sealed data the deciders never open (the service opens it and hands them the contents): `bytes` long. */
export const sealedOf = (bytes = 0): Sealed => ({ key_id: '00000000-0000-4000-8000-000000000077', iv: '', tag: '', ciphertext: 'x'.repeat(bytes) });

/** The proposal a prepare decided; fails the test on a replay. */
export function preparedProposal(decision: PrepareDecision): PreparedProposal {
  if (decision.outcome !== 'prepared') throw new Error(`expected a prepared proposal, not ${decision.outcome}`);
  return decision.proposal;
}

/** `proposal.prepared` for a prepared proposal: the changes without their summaries, the details sealed (`sealedBytes` long). */
export function preparedEvent(p: PreparedProposal, sealedBytes = 0): ProposalPrepared {
  const { command_id, grant_id, client_id, client_name, body_sha256, prepared_at, expires_at, dependencies } = p;
  const changes = p.changes.map(({ summary: _summary, ...change }) => change);
  return {
    type: 'proposal.prepared',
    data: { command_id, grant_id, client_id, client_name, body_sha256, prepared_at, expires_at, changes, dependencies, details: sealedOf(sealedBytes) },
  };
}

/** The events a committed approval appends: its record events, then `proposal.committed`. */
export function commitEvents(commandId: string, committedAt: Date, d: Extract<ApproveDecision, { outcome: 'committed' }>): RecordStreamEvent[] {
  return [
    ...d.recordEvents,
    {
      type: 'proposal.committed',
      data: { command_id: commandId, committed_at: committedAt.toISOString(), changes: d.changes, affected: d.affected, undo: sealedOf() },
    },
  ];
}

/** The committed decision of an approval; fails the test on any other outcome. */
export function committedDecision(d: ApproveDecision): Extract<ApproveDecision, { outcome: 'committed' }> {
  if (d.outcome !== 'committed') throw new Error(`expected a commit, not ${d.outcome}`);
  return d;
}

// ---------------------------------------------------------------------------------------------
// The Hevy sync: a run's feed, decided on the record with the bodies of the workouts it may touch

export function hevySyncDecider(options: StreamOptions): StreamDecider<HevySyncCommand, HevySyncDecision, DomainError, DomainErrorCode> {
  return {
    ...streamOf(options),
    decide: (command, s) => decideHevySync(command, s.fold.state, imagesOf(s, hevySyncKeys(command, s.fold.state))),
    refusals: domainRefusals,
  };
}
