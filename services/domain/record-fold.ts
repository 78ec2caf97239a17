// The athlete's record stream folded into what commands decide on: the record's state, its
// proposals, the receipt chain's last link, and where in the stream each item's and each
// proposal's events are. Where rather than what: an item's body is read back from the stream only
// when a decision needs it (undo, review), so the fold stays small however long the history, and
// a fold can be kept and caught up with the events appended since (`foldEvent`). The maps that grow
// with the record are partial (`PartialMap`), in three sections a snapshot keeps by bucket: a fold
// read from a snapshot holds the buckets asked for (record-snapshot.ts).
import type { RecordEvent } from '../../contracts/events.ts';
import type { RecordKind } from '../../contracts/record.ts';
import { recordChangeOf } from '../../contracts/events.ts';
import { PartialMap } from './partial-map.ts';
import { evolveProposals, ProposalState } from './proposal.ts';
import { linkOf, type ReceiptLink } from './receipt-chain.ts';
import { cloneRecordState, evolve, initialRecordState, itemKey, sourceIdKey, type RecordState } from './record.ts';

export interface RecordFold {
  state: RecordState;
  proposals: ProposalState;
  /** The revision of the last event folded. */
  revision: number | 'no_stream';
  lastLink: ReceiptLink | null;
  /** By item key (`kind/id`): the stream revisions of its first and latest change, the two `itemImages` needs. */
  itemEvents: PartialMap<{ first: number; latest: number }>;
  /** By command id: the stream revisions of the proposal's events, in order. */
  proposalEvents: PartialMap<readonly number[]>;
  /**
   * By item key: the commit or undo that wrote the item's change at `revision` (the stream revision
   * of its event). The athlete is the actor of an approval's record events; this tells which batch.
   */
  itemBatches: PartialMap<{ command_id: string; revision: number; move: 'commit' | 'undo' }>;
  /** The athlete's last edit (its `edit.saved` at this stream revision), while it is not undone. */
  lastEdit: { edit_id: string; revision: number } | null;
}

/** The sections a snapshot keeps by bucket, each with the maps its rows carry (keyed alike). */
export const FOLD_SECTIONS = ['items', 'proposals', 'source_refs'] as const;
export type FoldSection = (typeof FOLD_SECTIONS)[number];

export function sectionMaps(fold: RecordFold, section: FoldSection): Array<PartialMap<unknown>> {
  const maps = {
    items: [fold.state.items, fold.state.exerciseUses, fold.itemEvents, fold.itemBatches],
    proposals: [fold.proposals, fold.proposalEvents],
    source_refs: [fold.state.workoutIdBySourceRef],
  }[section];
  return maps as Array<PartialMap<unknown>>;
}

/** Whether the fold holds all of every section. */
export function isWhole(fold: RecordFold): boolean {
  return FOLD_SECTIONS.every((section) => sectionMaps(fold, section).every((map) => map.complete));
}

/**
 * The keys `foldEvent` reads or writes in each section for `event`: what a partial fold loads
 * before folding it. Folding one that misses a key throws `Missing` half-way; the fold is then
 * thrown away, so this need only be right to be fast, not to be correct.
 */
export function keysOf(event: FoldedEvent): Array<[FoldSection, string]> {
  const keys: Array<[FoldSection, string]> = [];
  const change = recordChangeOf(event.type);
  if (change) {
    const data = event.data as { item?: { id: string; source?: { app: string; ref: string; id?: string } | null }; id?: string };
    keys.push(['items', itemKey(change.kind, data.item?.id ?? data.id!)]);
    const source = change.kind === 'workout' ? data.item?.source : null;
    if (source) keys.push(['source_refs', `${source.app}:${source.ref}`]);
    if (source?.id) keys.push(['source_refs', sourceIdKey(source.app, source.id)]);
  }
  if (event.type.startsWith('proposal.')) {
    const data = event.data as { command_id: string; affected?: ReadonlyArray<{ kind: RecordKind; id: string }> };
    keys.push(['proposals', data.command_id]);
    // Usually the items of the record events just before it, in the same append; not for a fold taken between the two.
    for (const x of data.affected ?? []) keys.push(['items', itemKey(x.kind, x.id)]);
  }
  return keys;
}

export interface FoldedEvent {
  revision: number;
  type: string;
  data: unknown;
}

export function emptyFold(athleteId: string): RecordFold {
  return {
    state: initialRecordState(athleteId),
    proposals: new ProposalState(),
    revision: 'no_stream',
    lastLink: null,
    itemEvents: new PartialMap('items'),
    proposalEvents: new PartialMap('proposals'),
    itemBatches: new PartialMap('items'),
    lastEdit: null,
  };
}

/** A copy of a whole fold that stays as it was while the original is folded further: for whoever holds it outside the commands. */
export function cloneFold(f: RecordFold): RecordFold {
  // Proposal entries, item positions and revision lists are replaced on change, never edited: sharing them is safe.
  return {
    ...f,
    state: cloneRecordState(f.state),
    proposals: new ProposalState(f.proposals),
    itemEvents: PartialMap.copyOf(f.itemEvents),
    proposalEvents: PartialMap.copyOf(f.proposalEvents),
    itemBatches: PartialMap.copyOf(f.itemBatches),
  };
}

/** Folds the next event of the stream into `fold` (in place: the fold owns it). */
export function foldEvent(fold: RecordFold, event: FoldedEvent): RecordFold {
  // Events were validated when written (RecordService); folding trusts them.
  evolve(fold.state, event as RecordEvent);
  evolveProposals(fold.proposals, event);
  fold.revision = event.revision;
  const link = linkOf(event);
  if (link) fold.lastLink = link;
  if (event.type === 'edit.saved') fold.lastEdit = { edit_id: (event.data as { edit_id: string }).edit_id, revision: event.revision };
  if (event.type === 'edit.undone') fold.lastEdit = null;
  const change = recordChangeOf(event.type);
  if (change) {
    const data = event.data as { item?: { id: string }; id?: string };
    const key = itemKey(change.kind, data.item?.id ?? data.id!);
    fold.itemEvents.set(key, { first: fold.itemEvents.get(key)?.first ?? event.revision, latest: event.revision });
  }
  if (event.type.startsWith('proposal.')) {
    const data = event.data as { command_id: string; affected?: ReadonlyArray<{ kind: RecordKind; id: string }> };
    fold.proposalEvents.set(data.command_id, [...(fold.proposalEvents.get(data.command_id) ?? []), event.revision]);
    // A commit or undo is appended with its record events, just before it: each affected item's latest event is the batch's.
    for (const x of data.affected ?? []) {
      const key = itemKey(x.kind, x.id);
      const at = fold.itemEvents.get(key);
      if (at) fold.itemBatches.set(key, { command_id: data.command_id, revision: at.latest, move: event.type === 'proposal.undone' ? 'undo' : 'commit' });
    }
  }
  return fold;
}

/** The batch whose commit or undo made the item's latest change; null for a change of another kind (an import, an edit). */
export function batchOfLatest(fold: RecordFold, key: string): { command_id: string; move: 'commit' | 'undo' } | null {
  const batch = fold.itemBatches.get(key);
  return batch && batch.revision === fold.itemEvents.get(key)?.latest ? { command_id: batch.command_id, move: batch.move } : null;
}

/** The stream revisions holding what `itemImages` needs for `keys`. */
export function imageRevisions(fold: RecordFold, keys: ReadonlySet<string>): number[] {
  return [...keys].flatMap((key) => {
    const at = fold.itemEvents.get(key);
    return at ? [at.first, at.latest] : [];
  });
}
