// Where records' fold snapshots are kept: in the read store, as everything derived from the log
// (losing them costs a cold command a whole-stream read, nothing more). A snapshot's rows are split
// into documents of at most PART_ROWS rows each (MongoDB refuses a document over 16 MB); a head
// document names the snapshot's parts and is written last, so that a reader never mixes two.
import { randomUUID } from 'node:crypto';
import { SNAPSHOT_SECTIONS, type FoldSnapshot, type SnapshotHead, type SnapshotRows } from '../domain/record-snapshot.ts';
import type { CollectionSpec, Doc, ReadStore } from './read-store.ts';

const SNAPSHOTS = 'record_snapshots';
const HEAD = 'head';
/** Rows of one part document: a few hundred kilobytes at most (a proposal's row is ~200 bytes). */
const PART_ROWS = 5000;

interface HeadDoc extends Doc {
  generation: string;
  /** How many parts each section was split into. */
  parts: Record<string, number>;
  snapshot: SnapshotHead;
}

interface PartDoc extends Doc {
  rows: unknown[];
}

export interface FoldSnapshots {
  /** The athlete's latest snapshot, or null (none, or unreadable: a cold command then reads the whole stream). */
  get(athleteId: string): Promise<FoldSnapshot | null>;
  /** Keeps `snapshot` as the athlete's latest. */
  put(snapshot: FoldSnapshot): Promise<void>;
}

const partId = (generation: string, section: string, i: number) => `${generation}.${section}.${i}`;

export class ReadStoreFoldSnapshots implements FoldSnapshots {
  static readonly collections: CollectionSpec[] = [{ name: SNAPSHOTS, indexes: [] }];
  readonly #reads: ReadStore;

  constructor(reads: ReadStore) {
    this.#reads = reads;
  }

  async get(athleteId: string): Promise<FoldSnapshot | null> {
    const head = await this.#reads.get<HeadDoc>(SNAPSHOTS, athleteId, HEAD);
    // None, or one written in another shape (it is derived data: the stream is read instead).
    if (!head?.parts || !head.snapshot) return null;
    const ids = SNAPSHOT_SECTIONS.flatMap((section) => Array.from({ length: head.parts[section] ?? 0 }, (_, i) => partId(head.generation, section, i)));
    const parts = new Map((await this.#reads.getMany<PartDoc>(SNAPSHOTS, athleteId, ids)).map((p) => [p.id, p.rows]));
    if (parts.size !== ids.length) return null;
    const rows = Object.fromEntries(
      SNAPSHOT_SECTIONS.map((section) => [section, Array.from({ length: head.parts[section] ?? 0 }, (_, i) => parts.get(partId(head.generation, section, i))!).flat()]),
    ) as unknown as SnapshotRows;
    return { head: head.snapshot, rows };
  }

  async put(snapshot: FoldSnapshot): Promise<void> {
    const athleteId = snapshot.head.athlete_id;
    const found = await this.#reads.get<HeadDoc>(SNAPSHOTS, athleteId, HEAD);
    const previous = found?.parts && found.snapshot ? found : null;
    if (previous && previous.snapshot.revision >= snapshot.head.revision) return;
    const generation = randomUUID();
    const parts: Record<string, number> = {};
    for (const section of SNAPSHOT_SECTIONS) {
      const rows: unknown[] = snapshot.rows[section];
      parts[section] = Math.ceil(rows.length / PART_ROWS);
      for (let i = 0; i < parts[section]; i++) await this.#reads.upsert(SNAPSHOTS, athleteId, { id: partId(generation, section, i), rows: rows.slice(i * PART_ROWS, (i + 1) * PART_ROWS) } satisfies PartDoc);
    }
    await this.#reads.upsert(SNAPSHOTS, athleteId, { id: HEAD, generation, parts, snapshot: snapshot.head } satisfies HeadDoc);
    // The parts of the snapshot it replaced. Another instance's, written meanwhile, may go too: its
    // head then names parts that are gone, and a reader reads the whole stream once.
    if (previous) for (const [section, n] of Object.entries(previous.parts)) for (let i = 0; i < n; i++) await this.#reads.delete(SNAPSHOTS, athleteId, partId(previous.generation, section, i));
  }
}
