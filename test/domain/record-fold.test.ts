// The record fold that RecordService keeps between commands: caught up piece by piece it must equal
// the whole stream folded at once, a copy must leave the original as it was, and the item bodies
// it reads back by revision must equal those folded from the whole stream.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { evolveProposals, ProposalState } from '../../services/domain/proposal.ts';
import { lastLink } from '../../services/domain/receipt-chain.ts';
import { evolve, initialRecordState, itemImages, type RecordState } from '../../services/domain/record.ts';
import { cloneFold, emptyFold, foldEvent, imageRevisions, type RecordFold } from '../../services/domain/record-fold.ts';
import { decodeFold, encodeFold, type FoldSnapshot } from '../../services/domain/record-snapshot.ts';
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

test('a snapshot of the fold at any revision, read back and caught up with the events after it, equals the stream folded at once', async () => {
  for (const { athleteId, events } of await recordStreams()) {
    const whole = events.reduce(foldEvent, emptyFold(athleteId));
    assert.ok(whole.proposals.size > 0 && whole.itemBatches.size > 0 && whole.state.exerciseUses.size > 0 && whole.state.checkinIdByDate.size > 0, 'the log reaches every map a snapshot keeps');
    for (let k = 1; k <= events.length; k++) {
      const kept = events.slice(0, k).reduce(foldEvent, emptyFold(athleteId));
      const snapshot = encodeFold(kept, events[k - 1]!.position)!;
      // As a store keeps it: plain JSON, nothing shared with the fold it came from.
      const read = decodeFold(JSON.parse(JSON.stringify(snapshot)) as FoldSnapshot, athleteId)!;
      assert.equal(plain(read), plain(kept), `the snapshot at revision ${k - 1}`);
      assert.equal(plain(events.slice(k).reduce(foldEvent, read)), plain(whole), `caught up from the snapshot at revision ${k - 1}`);
    }
    assert.is(encodeFold(emptyFold(athleteId), 0), null, 'an empty stream has no snapshot');
    const snapshot = encodeFold(whole, 1)!;
    assert.is(decodeFold(snapshot, 'another-athlete'), null, "another athlete's snapshot is not read");
    assert.is(decodeFold({ ...snapshot, head: { ...snapshot.head, format: 0 as 1 } }, athleteId), null, 'nor one of another format');
  }
});

test.run();
