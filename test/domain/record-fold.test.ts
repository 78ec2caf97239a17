// The record fold that RecordService keeps between commands: caught up piece by piece it must equal
// the whole stream folded at once, a copy must leave the original as it was, and the item bodies
// it reads back by revision must equal those folded from the whole stream.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { evolveProposals, ProposalState } from '../../services/domain/proposal.ts';
import { lastLink } from '../../services/domain/receipt-chain.ts';
import { decideChanges, evolve, initialRecordState, itemImages, live, type RecordState } from '../../services/domain/record.ts';
import {
  batchOfLatest,
  cloneFold,
  emptyFold,
  FOLD_SECTIONS,
  foldEvent,
  imageRevisions,
  isWhole,
  keysOf,
  sectionMaps,
  type FoldSection,
  type RecordFold,
} from '../../services/domain/record-fold.ts';
import {
  foldOfHead,
  SNAPSHOT_FORMAT,
  mergeBucket,
  snapshotOf,
  type SectionRow,
  type SnapshotHead,
  type SnapshotWrite,
} from '../../services/domain/record-snapshot.ts';
import { Missing } from '../../services/domain/partial-map.ts';
import { DomainError } from '../../services/domain/errors.ts';
import type { RecordKind } from '../../contracts/record.ts';
import type { RecordEvent } from '../../contracts/events.ts';
import type { StoredEvent } from '../../services/store/event-store.ts';
import { recordLog } from '../support/event-log.ts';
import { plain } from '../support/plain.ts';

/** The reference log's record streams, each with its proposals' whole life cycle. */
async function recordStreams(): Promise<Array<{ athleteId: string; events: StoredEvent[] }>> {
  const { events } = await recordLog();
  const byStream = new Map<string, StoredEvent[]>();
  for (const e of events) if (e.stream.startsWith('record-')) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e]);
  return [...byStream].map(([stream, list]) => ({ athleteId: stream.slice('record-'.length), events: list }));
}

/** The fold as the service made it before it kept one: every event through `evolve` and `evolveProposals`. */
function foldedOnce(athleteId: string, events: StoredEvent[]): { state: RecordState; proposals: ProposalState } {
  const state = initialRecordState(athleteId);
  const proposals = new ProposalState();
  for (const e of events) {
    evolve(state, { type: e.type, data: e.data } as RecordEvent);
    evolveProposals(proposals, e);
  }
  return { state, proposals };
}

test('the reference log has record streams with proposals committed and undone', async () => {
  const all = await recordStreams();
  assert.ok(all.length >= 1);
  assert.ok(all.some(({ events }) => events.some((e) => e.type === 'proposal.undone')));
  assert.is(all[0]!.events[0]!.stream, streams.record(all[0]!.athleteId));
});

test('caught up from any point, a copy of a kept fold equals the stream folded at once, and the kept one stays as it was', async () => {
  for (const { athleteId, events } of await recordStreams()) {
    const whole = events.reduce(foldEvent, emptyFold(athleteId));
    const once = foldedOnce(athleteId, events);
    assert.equal(plain(whole.state), plain(once.state));
    assert.equal(plain(whole.proposals), plain(once.proposals));
    assert.equal(whole.lastLink, lastLink(events));
    assert.is(whole.revision, events.length - 1);
    for (let k = 0; k <= events.length; k++) {
      const kept: RecordFold = events.slice(0, k).reduce(foldEvent, emptyFold(athleteId));
      const before = plain(kept);
      const caught = events.slice(k).reduce(foldEvent, cloneFold(kept));
      assert.equal(plain(caught), plain(whole), `caught up from revision ${k}`);
      assert.equal(plain(kept), before, `the fold kept at revision ${k} changed when a copy was caught up`);
    }
  }
});

test('the bodies read back at the revisions the fold names equal those folded from the whole stream', async () => {
  for (const { athleteId, events } of await recordStreams()) {
    const fold = events.reduce(foldEvent, emptyFold(athleteId));
    const asFolded = (list: StoredEvent[]) => list.map((e) => ({ type: e.type, data: e.data, occurred_at: String(e.metadata.occurred_at) }));
    const keys = new Set(fold.itemEvents.keys());
    assert.ok(keys.size > 10);
    const revisions = new Set(imageRevisions(fold, keys));
    const read = events.filter((e) => revisions.has(e.revision));
    assert.ok(read.length < events.length, 'only the first and latest change of each item are read');
    assert.equal(plain(itemImages(asFolded(read), keys)), plain(itemImages(asFolded(events), keys)));
    for (const [commandId, at] of fold.proposalEvents) {
      assert.equal(
        at.map((r) => events[r]!.data),
        events.filter((e) => e.type.startsWith('proposal.') && (e.data as { command_id: string }).command_id === commandId).map((e) => e.data),
      );
    }
    assert.ok(fold.proposalEvents.size > 0);
  }
});

/** A snapshot as a store keeps it (plain JSON, nothing shared with the fold it came from), and a way to load its buckets into a fold read from its head. */
interface Kept {
  head: SnapshotHead;
  buckets: Map<string, SectionRow[]>;
  load(fold: RecordFold, section: FoldSection, wanted: number[] | null): void;
}

function kept(write: SnapshotWrite, earlier?: Kept): Kept {
  const copy = JSON.parse(JSON.stringify(write)) as SnapshotWrite;
  const buckets = new Map<string, SectionRow[]>(earlier?.buckets);
  for (const b of copy.buckets) buckets.set(`${b.section}.${b.bucket}.${copy.head.generation}`, b.rows);
  const rowsOf = (section: FoldSection, b: number) => {
    const generation = copy.head.sections[section].generations[b];
    return generation ? buckets.get(`${section}.${b}.${generation}`)! : [];
  };
  const load = (fold: RecordFold, section: FoldSection, wanted: number[] | null) => {
    const count = copy.head.sections[section].buckets;
    for (const b of wanted ?? Array.from({ length: count }, (_, i) => i)) mergeBucket(fold, section, b, rowsOf(section, b));
  };
  return { head: copy.head, buckets, load };
}

const noDirty = () => Object.fromEntries(FOLD_SECTIONS.map((s) => [s, new Set<string>()])) as Record<FoldSection, Set<string>>;
const NOW = new Date('2026-11-28T00:00:00Z');

/** A bucket's rows here: the reference log's records are small, and split this finely they span many buckets. */
const BUCKET_ROWS = 2;

/** A whole snapshot of a whole fold. */
function wholeSnapshot(fold: RecordFold, position: number): SnapshotWrite {
  const { write, needs } = snapshotOf(fold, position, null, noDirty(), randomUUID(), NOW, BUCKET_ROWS);
  assert.equal(needs, []);
  return write!;
}

/** Runs `look` on a partial fold as the command loop does: what it misses is loaded, and it runs again. */
function asked<T>(fold: RecordFold, store: Kept, look: () => T): { value: T; misses: number } {
  for (let misses = 0; ; misses++) {
    try {
      return { value: look(), misses };
    } catch (error) {
      if (!(error instanceof Missing)) throw error;
      const [map] = sectionMaps(fold, error.section as FoldSection);
      store.load(fold, error.section as FoldSection, error.key === null ? null : [map!.bucketOf(error.key)]);
    }
  }
}

/** Every bucket of every section loaded: the fold as a whole. */
function whole(fold: RecordFold, store: Kept): RecordFold {
  for (const section of FOLD_SECTIONS) store.load(fold, section, null);
  assert.ok(isWhole(fold));
  return fold;
}

const foldOf = (f: RecordFold) =>
  plain({
    state: f.state,
    proposals: f.proposals,
    revision: f.revision,
    lastLink: f.lastLink,
    itemEvents: f.itemEvents,
    proposalEvents: f.proposalEvents,
    itemBatches: f.itemBatches,
    lastEdit: f.lastEdit,
  });

test('a snapshot of the fold at any revision, read back whole and caught up with the events after it, equals the stream folded at once', async () => {
  for (const { athleteId, events } of await recordStreams()) {
    const all = events.reduce(foldEvent, emptyFold(athleteId));
    assert.ok(
      all.proposals.size > 0 && all.itemBatches.size > 0 && all.state.exerciseUses.size > 0 && all.state.checkinIdByDate.size > 0,
      'the log reaches every map a snapshot keeps',
    );
    for (let k = 1; k <= events.length; k++) {
      const at = events.slice(0, k).reduce(foldEvent, emptyFold(athleteId));
      const store = kept(wholeSnapshot(at, events[k - 1]!.position));
      const read = whole(foldOfHead(store.head, athleteId)!, store);
      assert.equal(foldOf(read), foldOf(at), `the snapshot at revision ${k - 1}`);
      assert.equal(foldOf(events.slice(k).reduce(foldEvent, read)), foldOf(all), `caught up from the snapshot at revision ${k - 1}`);
    }
    assert.is(snapshotOf(emptyFold(athleteId), 0, null, noDirty(), 'g', NOW).write, null, 'an empty stream has no snapshot');
    const head = wholeSnapshot(all, 1).head;
    assert.is(foldOfHead(head, 'another-athlete'), null, "another athlete's snapshot is not read");
    assert.is(foldOfHead({ ...head, format: (SNAPSHOT_FORMAT - 1) as typeof SNAPSHOT_FORMAT }, athleteId), null, 'nor one of another format');
  }
});

test('a fold read from a snapshot head, given only the buckets folding and each question ask for, answers as the whole fold, and its next snapshot written as a change reads back whole', async () => {
  let misses = 0;
  for (const { athleteId, events } of await recordStreams()) {
    const all = events.reduce(foldEvent, emptyFold(athleteId));
    for (let k = 1; k < events.length; k++) {
      const store = kept(wholeSnapshot(events.slice(0, k).reduce(foldEvent, emptyFold(athleteId)), events[k - 1]!.position));
      const partial = foldOfHead(store.head, athleteId)!;
      const rest = events.slice(k);
      // What folding the events after the snapshot reads is loaded first (as RecordService does): nothing then is missing.
      for (const e of rest)
        for (const [section, key] of keysOf(e)) {
          const [map] = sectionMaps(partial, section);
          if (!map!.knows(key)) store.load(partial, section, [map!.bucketOf(key)]);
        }
      rest.reduce(foldEvent, partial);
      const ask = <T>(look: () => T): T => {
        const answer = asked(partial, store, look);
        misses += answer.misses;
        return answer.value;
      };
      for (const key of all.state.items.keys()) {
        const [kind, id] = key.split('/') as [RecordKind, string];
        assert.equal(
          ask(() => live(partial.state, kind, id)),
          live(all.state, kind, id),
          key,
        );
        assert.equal(
          ask(() => partial.itemEvents.get(key)),
          all.itemEvents.get(key),
        );
        assert.equal(
          ask(() => batchOfLatest(partial, key)),
          batchOfLatest(all, key),
        );
        if (kind === 'exercise') {
          const deleting = (f: RecordFold) => () =>
            decision(() => decideChanges([{ op: 'delete', kind, id, base_revision: all.state.items.get(key)!.revision }], f.state));
          assert.equal(ask(deleting(partial)), deleting(all)(), `deleting ${key}: whether it is in use`);
        }
      }
      for (const [id, entry] of all.proposals)
        assert.equal(
          ask(() => partial.proposals.get(id)),
          entry,
        );
      for (const grant of new Set([...all.proposals.values()].map((p) => p.grant_id))) {
        for (const now of [NOW, new Date('2026-01-01T00:00:00Z')]) {
          assert.equal(partial.proposals.openOf(grant, now), all.proposals.openOf(grant, now), 'the limits count the same open proposals, none loaded');
          assert.equal(partial.proposals.recentOf(grant, now), all.proposals.recentOf(grant, now));
        }
      }
      assert.equal(
        ask(() => partial.proposals.get('never-prepared')),
        undefined,
      );
      // The next snapshot, as a change of the one read: only the buckets whose keys changed are written.
      const dirty = Object.fromEntries(FOLD_SECTIONS.map((s) => [s, new Set(sectionMaps(partial, s).flatMap((m) => [...m.takeDirty()]))])) as Record<
        FoldSection,
        Set<string>
      >;
      const position = events[events.length - 1]!.position;
      let planned = snapshotOf(partial, position, store.head, dirty, randomUUID(), NOW, BUCKET_ROWS);
      for (const [section, b] of planned.needs) store.load(partial, section, b === null ? null : [b]);
      planned = snapshotOf(partial, position, store.head, dirty, randomUUID(), NOW, BUCKET_ROWS);
      const next = kept(planned.write!, store);
      assert.is(planned.write!.base, store.head.generation);
      assert.equal(foldOf(whole(foldOfHead(next.head, athleteId)!, next)), foldOf(all), `the snapshot written as a change after revision ${k - 1}`);
    }
  }
  assert.ok(misses > 50, `questions were answered by loading buckets (${misses} times)`);
});

/** A decision's events, or the code it was refused with. */
function decision(decide: () => unknown): unknown {
  try {
    return decide();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

test.run();
