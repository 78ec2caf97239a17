// A record's fold as plain data, so that it can be kept (RecordService writes it every so many
// events) and a command on a record no process holds reads it and the events after it instead of
// the whole stream. In two parts: a head with what every command may need (the receipt chain's
// last link, check-ins by date, exercise names, imported files, the proposals the limits count),
// and the sections that grow with the record (items, proposals, source references) in buckets by
// the hash of their keys. A cold command reads the head, then only the buckets its keys fall in
// (`PartialMap`); a snapshot taken later writes again only the buckets whose keys changed.
// A snapshot of another format or athlete is not read (null).
import type { ProposalStatus } from '../../contracts/write.ts';
import { bucketOf, type PartialMap } from './partial-map.ts';
import { ProposalState, type ProposalEntry } from './proposal.ts';
import type { ReceiptLink } from './receipt-chain.ts';
import { emptyFold, FOLD_SECTIONS, sectionMaps, type FoldSection, type RecordFold } from './record-fold.ts';
import type { ItemState } from './record.ts';

/** Raised when what a snapshot holds, or how, changes: older snapshots are then ignored. */
export const SNAPSHOT_FORMAT = 3;

/** The rows a bucket is sized for: a bucket is read whole, so a few tens of kilobytes. */
const BUCKET_ROWS = 128;
/** A section whose rows outgrew its buckets this many times over is split again (a whole rewrite). */
const REBUCKET_AT = 4;

const STATUSES: readonly ProposalStatus[] = ['prepared', 'committed', 'rejected', 'expired', 'conflicted', 'undone'];

/** An item: its state, first and latest stream revisions, the exercises it uses, the batch of its latest change. */
export type ItemRow = [
  key: string,
  revision: number,
  deleted: 0 | 1,
  first: number,
  latest: number,
  uses: string[] | 0,
  batch: [command_id: string, revision: number, undo: 0 | 1] | 0,
];
/** A proposal: its entry (none for events of a proposal never prepared here) and its events' stream revisions. */
export type ProposalRow = [
  id: string,
  entry: [grant: string, digest: string, status: number, prepared_at: string, expires_at: string, sealed_bytes: number] | 0,
  revisions: number[],
];
export type SourceRefRow = [ref: string, workout_id: string];
export type SectionRow = ItemRow | ProposalRow | SourceRefRow;

export interface SectionHead {
  buckets: number;
  /** Each bucket's generation (the write that holds it), null for an empty one. */
  generations: Array<string | null>;
  /** Each bucket's rows. */
  rows: number[];
}

export interface SnapshotHead {
  format: typeof SNAPSHOT_FORMAT;
  athlete_id: string;
  /** This snapshot's write: the buckets it wrote carry it. */
  generation: string;
  revision: number;
  /** The global log position of the event at `revision`: a stream replaced since (a restored store) does not match it. */
  position: number;
  last_link: ReceiptLink | null;
  /** The athlete's last edit, while not undone: its id and the stream revision of its `edit.saved`. */
  last_edit: [edit_id: string, revision: number] | null;
  imported_files: string[];
  /** Each sync's position (RecordState.syncPositions); absent in snapshots written before the Hevy sync. */
  sync_positions?: Array<[source: string, since: string]>;
  checkins: Array<[date: string, id: string]>;
  exercise_names: Array<[name: string, id: string]>;
  /** The proposals the limits may count (`ProposalState.listed`), in the order prepared. */
  listed: ProposalRow[];
  sections: Record<FoldSection, SectionHead>;
}

/** One bucket's rows, as a store keeps them. */
export interface SnapshotBucket {
  section: FoldSection;
  bucket: number;
  rows: SectionRow[];
}

/** A snapshot to write: its head and the buckets it writes again. */
export interface SnapshotWrite {
  head: SnapshotHead;
  buckets: SnapshotBucket[];
  /** The generation of the snapshot whose other buckets it shares; null when it writes every one. */
  base: string | null;
}

/** How many buckets `rows` rows want, at `bucketRows` a bucket: a power of two. */
function bucketsFor(rows: number, bucketRows: number): number {
  let buckets = 1;
  while (buckets * bucketRows < rows) buckets *= 2;
  return buckets;
}

/**
 * The snapshot of `fold` at `position`, written as a change to `base` (the snapshot the fold was
 * read from, or last wrote): only the buckets holding `dirty` keys are written again, each whole
 * (so each must be loaded). Without a base, or for a section that outgrew its buckets, every
 * bucket is written, which needs the whole section: `needs` names what must be loaded first, and
 * the write is null until it is. The proposals the limits may count are those as of `now`.
 */
export function snapshotOf(
  fold: RecordFold,
  position: number,
  base: SnapshotHead | null,
  dirty: Record<FoldSection, ReadonlySet<string>>,
  generation: string,
  now: Date,
  /** Rows a bucket is sized for (tests split a small record into many buckets). */
  bucketRows = BUCKET_ROWS,
): { write: SnapshotWrite | null; needs: Array<[FoldSection, number | null]> } {
  if (fold.revision === 'no_stream') return { write: null, needs: [] };
  const needs: Array<[FoldSection, number | null]> = [];
  const buckets: SnapshotBucket[] = [];
  const sections = {} as Record<FoldSection, SectionHead>;
  let shares = false;
  for (const section of FOLD_SECTIONS) {
    const [main] = sectionMaps(fold, section) as [PartialMap<unknown>];
    const was = base?.sections[section];
    const rows = was ? was.rows.reduce((a, b) => a + b, 0) + dirty[section].size : null;
    let head: SectionHead;
    let written: Set<number>;
    if (!was || rows! > was.buckets * bucketRows * REBUCKET_AT) {
      if (!main.complete) {
        needs.push([section, null]);
        continue;
      }
      const count = bucketsFor(main.size, bucketRows);
      head = { buckets: count, generations: Array<string | null>(count).fill(null), rows: Array<number>(count).fill(0) };
      written = new Set(Array.from({ length: count }, (_, b) => b));
    } else {
      head = { buckets: was.buckets, generations: [...was.generations], rows: [...was.rows] };
      shares = true;
      written = new Set([...dirty[section]].map((key) => bucketOf(key, was.buckets)));
      for (const b of written) if (!main.isLoaded(b)) needs.push([section, b]);
    }
    sections[section] = head;
    for (const [b, list] of rowsIn(fold, section, head.buckets, written)) {
      head.rows[b] = list.length;
      head.generations[b] = list.length ? generation : null;
      if (list.length) buckets.push({ section, bucket: b, rows: list });
    }
  }
  if (needs.length) return { write: null, needs };
  const s = fold.state;
  const listed = fold.proposals.listed(now);
  const head: SnapshotHead = {
    format: SNAPSHOT_FORMAT,
    athlete_id: s.athleteId,
    generation,
    revision: fold.revision,
    position,
    last_link: fold.lastLink,
    last_edit: fold.lastEdit ? [fold.lastEdit.edit_id, fold.lastEdit.revision] : null,
    imported_files: [...s.importedFiles],
    sync_positions: [...s.syncPositions],
    checkins: [...s.checkinIdByDate],
    exercise_names: [...s.exerciseIdByName],
    listed: [...listed].map((id) => proposalRow(fold, id)).sort((a, b) => (a[2][0] ?? 0) - (b[2][0] ?? 0)),
    sections,
  };
  return { write: { head, buckets, base: shares ? base!.generation : null }, needs: [] };
}

/** The rows of the `wanted` buckets of `section`, by bucket, as `fold` holds them. */
function rowsIn(fold: RecordFold, section: FoldSection, buckets: number, wanted: ReadonlySet<number>): Map<number, SectionRow[]> {
  if (section === 'source_refs') return fold.state.workoutIdBySourceRef.entriesIn(buckets, wanted);
  if (section === 'proposals') return mapValues(fold.proposalEvents.entriesIn(buckets, wanted), ([id]) => proposalRow(fold, id));
  return mapValues(fold.state.items.entriesIn(buckets, wanted), ([key, item]): ItemRow => {
    const at = fold.itemEvents.get(key)!;
    const uses = fold.state.exerciseUses.get(key);
    const batch = fold.itemBatches.get(key);
    return [
      key,
      item.revision,
      item.deleted ? 1 : 0,
      at.first,
      at.latest,
      uses ? [...uses] : 0,
      batch ? [batch.command_id, batch.revision, batch.move === 'undo' ? 1 : 0] : 0,
    ];
  });
}

function mapValues<T, U>(lists: Map<number, T[]>, f: (t: T) => U): Map<number, U[]> {
  return new Map([...lists].map(([b, list]) => [b, list.map(f)]));
}

function proposalRow(fold: RecordFold, id: string): ProposalRow {
  const p = fold.proposals.get(id);
  return [
    id,
    p ? [p.grant_id, p.body_sha256, STATUSES.indexOf(p.status), p.prepared_at, p.expires_at, p.sealed_bytes] : 0,
    [...(fold.proposalEvents.get(id) ?? [])],
  ];
}

/**
 * The fold a snapshot's head holds, each section loaded from no bucket yet (`mergeBucket` adds
 * them); null when the head is of another format or athlete.
 */
export function foldOfHead(head: SnapshotHead, athleteId: string): RecordFold | null {
  if (head.format !== SNAPSHOT_FORMAT || head.athlete_id !== athleteId) return null;
  const fold = emptyFold(athleteId);
  fold.revision = head.revision;
  fold.lastLink = head.last_link;
  fold.lastEdit = head.last_edit ? { edit_id: head.last_edit[0], revision: head.last_edit[1] } : null;
  const s = fold.state;
  for (const file of head.imported_files) s.importedFiles.add(file);
  for (const [source, since] of head.sync_positions ?? []) s.syncPositions.set(source, since);
  for (const [date, id] of head.checkins) {
    s.checkinIdByDate.set(date, id);
    // Each check-in's day, the other way round: evolve keeps the two maps in step.
    s.checkinDateById.set(id, date);
  }
  for (const [name, id] of head.exercise_names) s.exerciseIdByName.set(name, id);
  // The listed proposals go in while the map is whole and empty, so that `set` lists them again.
  fold.proposals = new ProposalState(head.listed.flatMap(([id, entry]) => (entry ? [[id, entryOf(id, entry)] as const] : [])));
  for (const [id, , revisions] of head.listed) fold.proposalEvents.set(id, revisions);
  for (const section of FOLD_SECTIONS) {
    for (const map of sectionMaps(fold, section)) {
      map.startPartial(head.sections[section].buckets);
      map.takeDirty();
    }
    head.sections[section].generations.forEach((generation, b) => {
      if (generation === null) mergeBucket(fold, section, b, []);
    });
  }
  return fold;
}

function entryOf(id: string, [grant, digest, status, preparedAt, expiresAt, sealedBytes]: Exclude<ProposalRow[1], 0>): ProposalEntry {
  return {
    command_id: id,
    grant_id: grant,
    body_sha256: digest,
    status: STATUSES[status]!,
    prepared_at: preparedAt,
    expires_at: expiresAt,
    sealed_bytes: sealedBytes,
  };
}

/** Adds a bucket's rows, as the snapshot held them, to a fold read from its head. */
export function mergeBucket(fold: RecordFold, section: FoldSection, b: number, rows: readonly SectionRow[]): void {
  if (section === 'source_refs') {
    fold.state.workoutIdBySourceRef.merge(b, rows as SourceRefRow[]);
    return;
  }
  if (section === 'proposals') {
    const list = rows as ProposalRow[];
    fold.proposals.merge(
      b,
      list.flatMap(([id, entry]) => (entry ? [[id, entryOf(id, entry)] as const] : [])),
    );
    fold.proposalEvents.merge(
      b,
      list.map(([id, , revisions]) => [id, revisions] as const),
    );
    return;
  }
  const list = rows as ItemRow[];
  fold.state.items.merge(
    b,
    list.map(([key, revision, deleted]) => [key, { revision, deleted: deleted === 1 } satisfies ItemState] as const),
  );
  fold.state.exerciseUses.merge(
    b,
    list.flatMap(([key, , , , , uses]) => (uses ? [[key, uses] as const] : [])),
  );
  fold.itemEvents.merge(
    b,
    list.map(([key, , , first, latest]) => [key, { first, latest }] as const),
  );
  fold.itemBatches.merge(
    b,
    list.flatMap(([key, , , , , , batch]) =>
      batch ? [[key, { command_id: batch[0], revision: batch[1], move: batch[2] === 1 ? ('undo' as const) : ('commit' as const) }] as const] : [],
    ),
  );
}
