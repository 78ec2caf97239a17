// A record's fold as plain data, so that it can be kept (RecordService writes it every so many
// events) and a command on a record no process holds reads it and the events after it instead of
// the whole stream. Compact: maps as parallel arrays, values that repeat (a proposal's connection
// and status, the exercises a workout uses) as indexes into a table, derivable maps left out.
// `decodeFold(encodeFold(f))` equals `f`; a snapshot of another version is not read (null).
import type { ProposalStatus } from '../../contracts/write.ts';
import { ProposalState, type ProposalEntry } from './proposal.ts';
import type { ReceiptLink } from './receipt-chain.ts';
import { initialRecordState } from './record.ts';
import type { RecordFold } from './record-fold.ts';

/** Raised when what a snapshot holds, or how, changes: older snapshots are then ignored. */
export const SNAPSHOT_FORMAT = 1;

const STATUSES: readonly ProposalStatus[] = ['prepared', 'committed', 'rejected', 'expired', 'conflicted', 'undone'];

/** What a snapshot holds besides its rows. */
export interface SnapshotHead {
  format: typeof SNAPSHOT_FORMAT;
  athlete_id: string;
  revision: number;
  /** The global log position of the event at `revision`: a stream replaced since (a restored store) does not match it. */
  position: number;
  last_link: ReceiptLink | null;
  imported_files: string[];
  /** The exercises workouts, routines and goals use (`exercise_uses` names them by index). */
  exercise_ids: string[];
  /** The connections of the proposals (`proposals` names them by index). */
  grants: string[];
}

/** The fold's maps as rows: what a store may split into parts of any size. */
export interface SnapshotRows {
  /** Each item (`kind/id`): its revision, whether deleted (0/1), its first and latest stream revisions. */
  items: Array<[key: string, revision: number, deleted: 0 | 1, first: number, latest: number]>;
  checkins: Array<[date: string, id: string]>;
  exercise_names: Array<[name: string, id: string]>;
  source_refs: Array<[ref: string, id: string]>;
  exercise_uses: Array<[key: string, uses: number[]]>;
  proposals: Array<[id: string, grant: number, digest: string, status: number, prepared_at: string, expires_at: string, sealed_bytes: number, revisions: number[]]>;
  item_batches: Array<[key: string, command_id: string, revision: number, move: 0 | 1]>;
}

export interface FoldSnapshot {
  head: SnapshotHead;
  rows: SnapshotRows;
}

export const SNAPSHOT_SECTIONS = ['items', 'checkins', 'exercise_names', 'source_refs', 'exercise_uses', 'proposals', 'item_batches'] as const satisfies ReadonlyArray<keyof SnapshotRows>;

/** The fold as plain data, `position` being that of its last event; null for a fold of an empty stream. */
export function encodeFold(fold: RecordFold, position: number): FoldSnapshot | null {
  if (fold.revision === 'no_stream') return null;
  const s = fold.state;
  const keys = [...fold.itemEvents.keys()];
  const exerciseIds: string[] = [];
  const exerciseIndex = new Map<string, number>();
  const indexOf = (table: string[], index: Map<string, number>, value: string) => {
    let i = index.get(value);
    if (i === undefined) index.set(value, (i = table.push(value) - 1));
    return i;
  };
  const grants: string[] = [];
  const grantIndex = new Map<string, number>();
  const rows: SnapshotRows = {
    items: keys.map((k) => {
      const item = s.items.get(k)!;
      const at = fold.itemEvents.get(k)!;
      return [k, item.revision, item.deleted ? 1 : 0, at.first, at.latest];
    }),
    checkins: [...s.checkinIdByDate],
    exercise_names: [...s.exerciseIdByName],
    source_refs: [...s.workoutIdBySourceRef],
    exercise_uses: [...s.exerciseUses].map(([key, ids]) => [key, ids.map((id) => indexOf(exerciseIds, exerciseIndex, id))]),
    proposals: [...fold.proposals.values()].map((p) => [
      p.command_id,
      indexOf(grants, grantIndex, p.grant_id),
      p.body_sha256,
      STATUSES.indexOf(p.status),
      p.prepared_at,
      p.expires_at,
      p.sealed_bytes,
      [...(fold.proposalEvents.get(p.command_id) ?? [])],
    ]),
    item_batches: [...fold.itemBatches].map(([key, b]) => [key, b.command_id, b.revision, b.move === 'undo' ? 1 : 0]),
  };
  return {
    head: { format: SNAPSHOT_FORMAT, athlete_id: s.athleteId, revision: fold.revision, position, last_link: fold.lastLink, imported_files: [...s.importedFiles], exercise_ids: exerciseIds, grants },
    rows,
  };
}

/** The fold a snapshot holds, or null when it is of another format or athlete. */
export function decodeFold({ head, rows }: FoldSnapshot, athleteId: string): RecordFold | null {
  if (head.format !== SNAPSHOT_FORMAT || head.athlete_id !== athleteId) return null;
  const state = initialRecordState(athleteId);
  const itemEvents = new Map<string, { first: number; latest: number }>();
  for (const [key, revision, deleted, first, latest] of rows.items) {
    state.items.set(key, { revision, deleted: deleted === 1 });
    itemEvents.set(key, { first, latest });
  }
  for (const [date, id] of rows.checkins) {
    state.checkinIdByDate.set(date, id);
    // Each check-in's day, the other way round: evolve keeps the two maps in step.
    state.checkinDateById.set(id, date);
  }
  for (const [name, id] of rows.exercise_names) state.exerciseIdByName.set(name, id);
  for (const [ref, id] of rows.source_refs) state.workoutIdBySourceRef.set(ref, id);
  for (const file of head.imported_files) state.importedFiles.add(file);
  for (const [key, uses] of rows.exercise_uses) state.exerciseUses.set(key, uses.map((i) => head.exercise_ids[i]!));
  const proposals = new ProposalState();
  const proposalEvents = new Map<string, readonly number[]>();
  for (const [id, grant, digest, status, preparedAt, expiresAt, sealedBytes, at] of rows.proposals) {
    const entry: ProposalEntry = { command_id: id, grant_id: head.grants[grant]!, body_sha256: digest, status: STATUSES[status]!, prepared_at: preparedAt, expires_at: expiresAt, sealed_bytes: sealedBytes };
    proposals.set(id, entry);
    proposalEvents.set(id, at);
  }
  const itemBatches = new Map<string, { command_id: string; revision: number; move: 'commit' | 'undo' }>();
  for (const [key, commandId, revision, move] of rows.item_batches) itemBatches.set(key, { command_id: commandId, revision, move: move === 1 ? 'undo' : 'commit' });
  return { state, proposals, revision: head.revision, lastLink: head.last_link, itemEvents, proposalEvents, itemBatches };
}
