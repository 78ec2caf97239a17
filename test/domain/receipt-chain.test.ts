// The receipt chain's pure parts: links made one after another verify; a changed receipt, a
// removed or reordered link, a stripped link and a changed record event each break it, at the
// link concerned; commits from before the chain are counted, not covered. The receipts the log
// holds (what every surface shows) are the ones the links cover, and a read model's copy of one is
// told apart from them field by field.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ChainVerifier,
  genesis,
  lastLink,
  LogReceipts,
  logReceiptOf,
  nextLink,
  receiptDrift,
  receiptOf,
  recordEventsDigest,
  verifyChain,
  type ChainEvent,
  type LogReceipt,
} from '../../services/domain/receipt-chain.ts';

const athlete = randomUUID();
const client = { client_id: 'https://agent.example/client.json', name: 'Agent' };

/** A stream: for each proposal, prepared, then a meal created and the commit in one "append". */
function stream(n: number): ChainEvent[] {
  const events: ChainEvent[] = [];
  const push = (type: string, data: unknown) => events.push({ revision: events.length, position: events.length + 1, type, data, metadata: {} });
  for (let i = 0; i < n; i++) {
    const command_id = randomUUID();
    const id = randomUUID();
    push('proposal.prepared', { command_id, client_id: client.client_id, client_name: client.name });
    const record = [{ type: 'meal.created', data: { item: { id, name: `meal ${i}` }, revision: 1 } }];
    const changes = [{ index: 0, op: 'create' as const, kind: 'meal' as const, id, revision_before: null, revision_after: 1 }];
    const affected = [{ kind: 'meal' as const, id, change: 'created' as const, revision_before: null, revision_after: 1 }];
    const committed_at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const link = nextLink(
      athlete,
      lastLink(events),
      {
        event: 'proposal.committed',
        command_id,
        receipt: receiptOf(client, { committed_at, changes }),
        affected,
        record_events_sha256: recordEventsDigest(record),
      },
      record.length,
    );
    for (const r of record) push(r.type, r.data);
    push('proposal.committed', { command_id, committed_at, changes, affected, link });
  }
  return events;
}

const renumber = (events: ChainEvent[]) => events.map((e, i) => ({ ...e, revision: i }));
// biome-ignore lint/suspicious/noExplicitAny: each event's data, read field by field as the chain's tampering cases need
const data = (e: ChainEvent) => e.data as Record<string, any>;

test('an intact chain verifies, and its first link follows the athlete-bound genesis', () => {
  const events = stream(3);
  const report = verifyChain(athlete, events);
  assert.is(report.broken, null);
  assert.is(report.links, 3);
  assert.is(data(events[2]!).link.previous, genesis(athlete));
  assert.is(report.head!.digest, data(events[8]!).link.digest);
  // The same stream is not another athlete's chain.
  assert.is(verifyChain(randomUUID(), events).broken!.sequence, 1);
});

test('a changed receipt breaks its own link', () => {
  const events = stream(3);
  data(events[5]!).changes[0].revision_after = 2;
  assert.equal([verifyChain(athlete, events).broken!.sequence, verifyChain(athlete, events).links], [2, 1]);
});

test('a changed record event breaks the link that covers it', () => {
  const events = stream(3);
  data(events[7]!).item.name = 'something else';
  assert.is(verifyChain(athlete, events).broken!.sequence, 3);
});

test('a removed link is named; so is a reordered one', () => {
  const removed = renumber(stream(3).filter((_, i) => i !== 2));
  const broken = verifyChain(athlete, removed).broken!;
  assert.is(broken.sequence, 1);
  assert.match(broken.reason, 'link #1 is missing');
  const events = stream(3);
  const swapped = renumber([...events.slice(3, 6), ...events.slice(0, 3), ...events.slice(6)]);
  assert.is(verifyChain(athlete, swapped).broken!.sequence, 1);
});

test('a stripped link breaks the chain once it has started; commits before it are only counted', () => {
  const events = stream(2);
  delete data(events[5]!).link;
  assert.match(verifyChain(athlete, events).broken!.reason, 'no link stored');
  const old = stream(2);
  delete data(old[2]!).link;
  // Relinking the rest from the genesis, as a store upgraded after its first commit would be.
  const later = stream(1).map((e) => ({ ...e, revision: e.revision + 3 }));
  const report = verifyChain(athlete, [...old.slice(0, 3), ...later]);
  assert.equal([report.unlinked, report.links, report.broken], [1, 1, null]);
});

test("the log's receipts are the ones its links cover, an undo's time and link joined to its commit's", () => {
  const events = stream(3);
  const verifier = new ChainVerifier(athlete);
  for (const e of events) verifier.add(e);
  assert.is(verifier.broken, null);
  const commits = events.filter((e) => e.type === 'proposal.committed');
  assert.equal(
    [...verifier.receipts.values()],
    commits.map((e) => ({
      command_id: data(e).command_id,
      receipt: receiptOf(client, { committed_at: data(e).committed_at, changes: data(e).changes }),
      undone_at: null,
      receipt_link: data(e).link,
      undo_link: null,
    })),
  );
  const first = data(commits[0]!).command_id;
  const undoLink = { sequence: 4, previous: 'p', digest: 'd', record_events: 1 };
  const undone = {
    revision: 9,
    position: 10,
    type: 'proposal.undone',
    data: { command_id: first, undone_at: '2026-01-02T00:00:00.000Z', link: undoLink },
    metadata: {},
  };
  const one = logReceiptOf([...events.filter((e) => data(e).command_id === first), undone], first)!;
  assert.equal([one.undone_at, one.undo_link], ['2026-01-02T00:00:00.000Z', undoLink]);
  // A commit whose preparation is not in the log makes no receipt; nor does a proposal never committed.
  assert.is(logReceiptOf([commits[0]!], first), null);
  assert.is(logReceiptOf(events.slice(0, 1), first), null);
  // Past a broken link the verifier stops verifying, but still folds the receipts an export shows.
  const broken = stream(3);
  data(broken[2]!).changes[0].revision_after = 2;
  const past = new ChainVerifier(athlete);
  for (const e of broken) past.add(e);
  assert.equal([past.broken!.sequence, past.receipts.size], [1, 3]);
  const fold = new LogReceipts();
  for (const e of broken) fold.add(e);
  assert.equal([...fold.values()], [...past.receipts.values()]);
});

test("receiptDrift names each field of a read model's copy that differs from the log's, and a receipt one side lacks", () => {
  const events = stream(1);
  const commandId = data(events[0]!).command_id;
  const log = logReceiptOf(events, commandId)!;
  const copy = (): LogReceipt => structuredClone(log);
  assert.equal(receiptDrift(copy(), log), []);
  // The same values in another key order (as a document store may keep them) agree.
  const reordered = copy();
  reordered.receipt = Object.fromEntries(Object.entries(reordered.receipt).reverse()) as LogReceipt['receipt'];
  assert.equal(receiptDrift(reordered, log), []);
  const edited = copy();
  edited.receipt.changes[0]!.revision_after = 2;
  assert.equal(receiptDrift(edited, log), ['receipt.changes[0].revision_after']);
  const renamed = copy();
  renamed.receipt.client.name = 'Agenu';
  renamed.undone_at = '2026-01-02T00:00:00.000Z';
  assert.equal(receiptDrift(renamed, log), ['receipt.client.name', 'undone_at']);
  const added = copy();
  added.receipt.changes.push({ ...added.receipt.changes[0]!, index: 1 });
  assert.equal(receiptDrift(added, log), ['receipt.changes[1]']);
  const linkless = copy();
  linkless.receipt_link = null;
  assert.equal(receiptDrift(linkless, log), ['receipt_link']);
  assert.equal(receiptDrift(copy(), null), ['receipt (the event log holds none)']);
  assert.equal(receiptDrift(null, log), ['receipt (the read model holds none)']);
  assert.equal(receiptDrift(null, null), []);
});

test.run();
