// Where records' fold snapshots are kept: in the read store, as everything derived from the log
// (losing them costs a cold command a whole-stream read, nothing more). A head document per
// athlete, and a document per bucket of rows named by the write that made it; the head, written
// last, names each bucket's, so a reader never mixes two writes. Buckets a write replaced are
// removed after its head; a reader that finds one gone reads the new head instead.
import type { FoldSection } from '../domain/record-fold.ts';
import type { SectionRow, SnapshotHead, SnapshotWrite } from '../domain/record-snapshot.ts';
import type { CollectionSpec, Doc, ReadStore } from './read-store.ts';

const SNAPSHOTS = 'record_snapshots';
const HEAD = 'head';

interface HeadDoc extends Doc {
  snapshot: SnapshotHead;
}

interface BucketDoc extends Doc {
  rows: SectionRow[];
}

export interface FoldSnapshots {
  /** The athlete's latest snapshot's head, or null (none, or unreadable: a cold command then reads the whole stream). */
  head(athleteId: string): Promise<SnapshotHead | null>;
  /** The rows of buckets `wanted` of the snapshot `head`, by bucket; null when one is gone (a later write replaced it). */
  buckets(head: SnapshotHead, section: FoldSection, wanted: readonly number[]): Promise<Map<number, SectionRow[]> | null>;
  /**
   * Keeps `write` as the athlete's latest snapshot if it is newer, and, when it shares buckets
   * with the snapshot it was based on, if that is still the latest. Answers whether it did.
   */
  put(write: SnapshotWrite): Promise<boolean>;
}

const bucketId = (section: string, bucket: number, generation: string) => `${section}.${bucket}.${generation}`;

export class ReadStoreFoldSnapshots implements FoldSnapshots {
  static readonly collections: CollectionSpec[] = [{ name: SNAPSHOTS, indexes: [] }];
  readonly #reads: ReadStore;

  constructor(reads: ReadStore) {
    this.#reads = reads;
  }

  async head(athleteId: string): Promise<SnapshotHead | null> {
    const head = await this.#reads.get<HeadDoc>(SNAPSHOTS, athleteId, HEAD);
    // None, or one written in another shape (it is derived data: the stream is read instead).
    return head?.snapshot?.sections ? head.snapshot : null;
  }

  async buckets(head: SnapshotHead, section: FoldSection, wanted: readonly number[]): Promise<Map<number, SectionRow[]> | null> {
    const found = new Map<number, SectionRow[]>();
    const ids = new Map<string, number>();
    for (const b of wanted) {
      const generation = head.sections[section].generations[b];
      if (generation) ids.set(bucketId(section, b, generation), b);
      else found.set(b, []);
    }
    if (ids.size === 0) return found;
    const docs = await this.#reads.getMany<BucketDoc>(SNAPSHOTS, head.athlete_id, [...ids.keys()]);
    if (docs.length !== ids.size) return null;
    for (const doc of docs) found.set(ids.get(doc.id)!, doc.rows);
    return found;
  }

  async put({ head, buckets, base }: SnapshotWrite): Promise<boolean> {
    const athleteId = head.athlete_id;
    const latest = await this.head(athleteId);
    if (latest && latest.revision >= head.revision) return false;
    if (base !== null && latest?.generation !== base) return false;
    for (const { section, bucket, rows } of buckets)
      await this.#reads.upsert(SNAPSHOTS, athleteId, { id: bucketId(section, bucket, head.generation), rows } satisfies BucketDoc);
    await this.#reads.upsert(SNAPSHOTS, athleteId, { id: HEAD, snapshot: head } satisfies HeadDoc);
    // The buckets of the snapshot it replaced that it does not share. Another instance's, written
    // meanwhile, may go too: its head then names buckets that are gone, and a reader of it reads the head again.
    if (latest) {
      const kept = new Set(
        (Object.keys(head.sections) as FoldSection[]).flatMap((s) => head.sections[s].generations.map((g, b) => (g ? bucketId(s, b, g) : ''))),
      );
      for (const s of Object.keys(latest.sections) as FoldSection[]) {
        for (const [b, g] of latest.sections[s].generations.entries())
          if (g && !kept.has(bucketId(s, b, g))) await this.#reads.delete(SNAPSHOTS, athleteId, bucketId(s, b, g));
      }
    }
    return true;
  }
}
