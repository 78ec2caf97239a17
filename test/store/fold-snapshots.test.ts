// Record fold snapshots as the service keeps them: a record no process holds is loaded from its
// snapshot's head and the events after it, not the whole stream, plus only the buckets its
// commands ask for, and equals the whole stream folded; the next snapshot is written as a change;
// a snapshot that no longer matches the stream (replaced, as by a restored store), or whose
// buckets are gone, is not used.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { FoldSection } from '../../services/domain/record-fold.ts';
import { SNAPSHOT_FORMAT, type SnapshotHead, type SnapshotWrite } from '../../services/domain/record-snapshot.ts';
import { RecordService, SNAPSHOT_EVERY } from '../../services/commands/record-service.ts';
import { ProposalService } from '../../services/writes/proposals.ts';
import type { Caller } from '../../services/identity/caller.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { writeProposalBody } from '../../contracts/write.ts';
import type { EventStore } from '../../services/store/event-store.ts';
import { ReadStoreFoldSnapshots, type FoldSnapshots } from '../../services/store/fold-snapshots.ts';
import { openTestApp, registerAthlete, type TestApp } from '../support/app.ts';
import { plain } from '../support/plain.ts';

/** The event store, counting the events its stream reads answer. */
function counting(events: EventStore): { store: EventStore; read: () => number } {
  let read = 0;
  const store = new Proxy(events, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === 'readStream')
        return async (...args: Parameters<EventStore['readStream']>) => {
          const answer = await target.readStream(...args);
          read += answer.length;
          return answer;
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, read: () => read };
}

const loadedFold = (l: Awaited<ReturnType<RecordService['load']>>) =>
  plain({ state: l.state, proposals: l.proposals, revision: l.revision, lastLink: l.lastLink });

/** The snapshot store, counting the buckets read. */
function countingBuckets(snapshots: FoldSnapshots): { store: FoldSnapshots; read: () => number } {
  let read = 0;
  return {
    store: {
      head: (athleteId) => snapshots.head(athleteId),
      buckets: (head, section, wanted) => {
        read += wanted.length;
        return snapshots.buckets(head, section, wanted);
      },
      put: (write) => snapshots.put(write),
    },
    read: () => read,
  };
}

const ATHLETE = { type: 'athlete', id: 'test' } as const;
const meal = (name = 'Oats') => ({
  id: randomUUID(),
  eaten_at: '2026-05-01T08:00:00.000Z',
  name,
  calories_kcal: 400,
  protein_g: 15,
  carbohydrate_g: 60,
  fat_g: 8,
});

/**
 * An athlete whose record has `events` meal events, in commands of a hundred: the service keeps a
 * snapshot as a command (or a look, at the end) finds SNAPSHOT_EVERY events folded since the last.
 */
async function longRecord(t: TestApp, events = SNAPSHOT_EVERY + 150): Promise<{ athleteId: string; meals: string[] }> {
  const athleteId = await registerAthlete(t.app);
  const meals: string[] = [];
  for (let i = 0; i < Math.ceil(events / 100); i++) {
    const batch = Array.from({ length: 100 }, () => meal());
    meals.push(...batch.map((m) => m.id));
    await t.app.records.change(
      athleteId,
      batch.map((item) => ({ op: 'create' as const, kind: 'meal' as const, item })),
      ATHLETE,
    );
  }
  await t.app.records.load(athleteId);
  await t.app.records.snapshotsWritten();
  return { athleteId, meals };
}

const wholeLoad = (t: TestApp, athleteId: string) => new RecordService(t.app.events, t.app.clock).load(athleteId);

test('a record no process holds is loaded from its snapshot and the events after it, and equals the whole stream folded', async () => {
  const t = await openTestApp();
  try {
    const { athleteId } = await longRecord(t);
    const total = ((await t.app.events.streamRevision(streams.record(athleteId))) as number) + 1;
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const kept = await snapshots.head(athleteId);
    assert.ok(kept, 'a snapshot was kept');
    assert.ok(kept.revision >= SNAPSHOT_EVERY - 1 && kept.revision < total - 1, `kept at revision ${kept.revision} of ${total}`);

    const cold = counting(t.app.events);
    const fromSnapshot = await new RecordService(cold.store, t.app.clock, snapshots).load(athleteId);
    assert.equal(loadedFold(fromSnapshot), loadedFold(await wholeLoad(t, athleteId)));
    assert.is(cold.read(), total - 1 - kept.revision, 'only the events after the snapshot were read');
  } finally {
    await t.close();
  }
});

test('a command on a record no process holds reads the snapshot head and only the buckets its keys fall in, and decides as on the whole record', async () => {
  const t = await openTestApp();
  try {
    // Taken at the last event: no events after it, whose folding would load buckets of its own.
    const { athleteId, meals } = await longRecord(t, SNAPSHOT_EVERY);
    const snapshots = countingBuckets(new ReadStoreFoldSnapshots(t.app.reads));
    const head = (await snapshots.store.head(athleteId))!;
    assert.ok(head.sections.items.buckets >= 4, `the items are in ${head.sections.items.buckets} buckets`);
    const service = new RecordService(t.app.events, t.app.clock, snapshots.store);
    const [updated] = await service.change(
      athleteId,
      [{ op: 'update', kind: 'meal', item: { ...meal('Porridge'), id: meals[3]! }, base_revision: 1 }],
      ATHLETE,
    );
    assert.is((updated!.data as { revision: number }).revision, 2);
    assert.is(
      snapshots.read(),
      1,
      `${snapshots.read()} bucket(s) read of ${head.sections.items.buckets + head.sections.proposals.buckets + head.sections.source_refs.buckets}`,
    );
    // Refusals too are as on the whole record: a revision gone by, an id that exists.
    const refused = async (change: Parameters<RecordService['change']>[1][number]) =>
      service.change(athleteId, [change], ATHLETE).then(
        () => 'saved',
        (e: { code?: string }) => e.code,
      );
    assert.is(await refused({ op: 'update', kind: 'meal', item: { ...meal(), id: meals[3]! }, base_revision: 1 }), 'revision_conflict');
    assert.is(await refused({ op: 'create', kind: 'meal', item: { ...meal(), id: meals[200]! } }), 'already_exists');
    assert.is(await refused({ op: 'delete', kind: 'meal', id: meals[400]!, base_revision: 1 }), 'saved');
    assert.is(await refused({ op: 'delete', kind: 'meal', id: meals[400]!, base_revision: 1 }), 'not_found');
    assert.equal(loadedFold(await service.load(athleteId)), loadedFold(await wholeLoad(t, athleteId)));
  } finally {
    await t.close();
  }
});

test("preparing a proposal on a record no process holds reads one bucket, its new item's, however often the decision runs again for it", async () => {
  const t = await openTestApp();
  try {
    const { athleteId } = await longRecord(t, SNAPSHOT_EVERY);
    const { password_hash: _hash, ...athlete } = (await t.app.athletes.get(athleteId))!;
    for (let i = 0; i < 6; i++) {
      const snapshots = countingBuckets(new ReadStoreFoldSnapshots(t.app.reads));
      const proposals = new ProposalService({ ...t.app, records: new RecordService(t.app.events, t.app.clock, snapshots.store) });
      const caller: Caller = {
        athlete,
        grantId: randomUUID(),
        clientId: 'test',
        clientName: 'Test',
        scopes: ['nutrition'],
        writePermissions: WRITE_PERMISSIONS,
      };
      const body = writeProposalBody.parse({
        version: 'agent-access-write.v1',
        command_id: randomUUID(),
        actions: [
          {
            op: 'create',
            kind: 'meal',
            record: { eaten_at: '2026-05-01T08:00:00Z', name: 'Oats', calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 },
          },
        ],
      });
      assert.is((await proposals.prepare(caller, body)).status, 'prepared');
      // The record has no proposal in its snapshot, so no bucket of them: the new meal's id is the one key looked up.
      assert.is(snapshots.read(), 1, `prepare ${i + 1}: ${snapshots.read()} buckets read`);
    }
  } finally {
    await t.close();
  }
});

test("a partial fold's next snapshot is written as a change of the one it was read from: the buckets it shares stay, and read back whole it equals the stream", async () => {
  const t = await openTestApp();
  try {
    const { athleteId, meals } = await longRecord(t, SNAPSHOT_EVERY);
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const first = (await snapshots.head(athleteId))!;
    const service = new RecordService(t.app.events, t.app.clock, snapshots);
    // Enough events for another snapshot, through a service that read the record from that one:
    // changes to one meal, so that one bucket of items changes.
    for (let revision = 1; revision <= SNAPSHOT_EVERY; revision++)
      await service.change(athleteId, [{ op: 'update', kind: 'meal', item: { ...meal(), id: meals[7]! }, base_revision: revision }], ATHLETE);
    await service.read(athleteId, async () => undefined);
    await service.snapshotsWritten();
    const second = (await snapshots.head(athleteId))!;
    assert.ok(second.revision > first.revision, `a newer snapshot: ${second.revision} after ${first.revision}`);
    const shared = (s: FoldSection) => second.sections[s].generations.filter((g, b) => g !== null && g === first.sections[s].generations[b]).length;
    assert.is(shared('items'), first.sections.items.generations.filter((g) => g !== null).length - 1, 'only the bucket whose key changed is written again');
    const cold = new RecordService(t.app.events, t.app.clock, snapshots);
    assert.equal(loadedFold(await cold.load(athleteId)), loadedFold(await wholeLoad(t, athleteId)));
  } finally {
    await t.close();
  }
});

test('a snapshot that does not match the stream (the event at its revision is another) is not used: the whole stream is read', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app);
    for (let i = 0; i < 3; i++) await t.app.records.change(athleteId, [{ op: 'create', kind: 'meal', item: meal(`Meal ${i}`) }], ATHLETE);
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const whole = await wholeLoad(t, athleteId);
    const total = (whole.revision as number) + 1;
    // What a snapshot of another store's stream would say: a revision this stream has, another event at it.
    await snapshots.put({ head: { ...emptyHead(athleteId, 'other', total - 2), position: 999_999_999 }, buckets: [], base: null });
    const cold = counting(t.app.events);
    const loaded = await new RecordService(cold.store, t.app.clock, snapshots).load(athleteId);
    assert.equal(loadedFold(loaded), loadedFold(whole));
    assert.is(cold.read(), total, 'the whole stream was read');
  } finally {
    await t.close();
  }
});

test("a fold whose snapshot's buckets are gone (a newer one replaced them) is read again, and the command decides as on the whole record", async () => {
  const t = await openTestApp();
  try {
    const { athleteId, meals } = await longRecord(t);
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const service = new RecordService(t.app.events, t.app.clock, snapshots);
    await service.change(athleteId, [{ op: 'update', kind: 'meal', item: { ...meal(), id: meals[0]! }, base_revision: 1 }], ATHLETE);
    // Every bucket goes, as when another instance's snapshot replaced them all; the head stays.
    for (const { partition, doc } of await t.app.reads.dump('record_snapshots'))
      if (partition === athleteId && doc.id !== 'head') await t.app.reads.delete('record_snapshots', athleteId, doc.id);
    const revisionOf = async (id: string) => (await service.load(athleteId)).state.items.get(`meal/${id}`)?.revision;
    const [updated] = await service.change(
      athleteId,
      meals.slice(1, 40).map((id) => ({ op: 'update' as const, kind: 'meal' as const, item: { ...meal(), id }, base_revision: 1 })),
      ATHLETE,
    );
    assert.is((updated!.data as { revision: number }).revision, 2);
    assert.is(await revisionOf(meals[39]!), 2);
    assert.equal(loadedFold(await service.load(athleteId)), loadedFold(await wholeLoad(t, athleteId)));
  } finally {
    await t.close();
  }
});

/** A head of no rows, for the store's own rules. */
function emptyHead(athleteId: string, generation: string, revision: number): SnapshotHead {
  const section = { buckets: 1, generations: [null], rows: [0] };
  return {
    format: SNAPSHOT_FORMAT,
    athlete_id: athleteId,
    generation,
    revision,
    position: revision,
    last_link: null,
    last_edit: null,
    imported_files: [],
    checkins: [],
    exercise_names: [],
    listed: [],
    sections: { items: section, proposals: section, source_refs: section },
  };
}

test('the store keeps the newest snapshot; one written as a change of another than the latest is refused; buckets a newer one replaced are removed', async () => {
  const t = await openTestApp();
  try {
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const athleteId = randomUUID();
    const rows = (n: number) => Array.from({ length: n }, (_, i) => [`w${i}`, `workout-${i}`] as [string, string]);
    const write = (generation: string, revision: number, base: string | null, buckets: Array<[number, number]>, from?: SnapshotHead): SnapshotWrite => {
      const head = emptyHead(athleteId, generation, revision);
      const generations: Array<string | null> = from ? [...from.sections.source_refs.generations] : [null, null, null, null];
      for (const [b] of buckets) generations[b] = generation;
      head.sections = { ...head.sections, source_refs: { buckets: 4, generations, rows: generations.map((g) => (g ? 1 : 0)) } };
      return { head, base, buckets: buckets.map(([bucket, n]) => ({ section: 'source_refs', bucket, rows: rows(n) })) };
    };
    const first = write('a', 600, null, [
      [0, 3],
      [1, 2],
      [2, 1],
    ]);
    assert.ok(await snapshots.put(first));
    assert.equal(await snapshots.head(athleteId), first.head);
    assert.equal(
      await snapshots.buckets(first.head, 'source_refs', [0, 2, 3]),
      new Map([
        [0, rows(3)],
        [2, rows(1)],
        [3, []],
      ]),
    );
    assert.not.ok(await snapshots.put(write('old', 599, null, [[0, 1]])), 'an older snapshot does not replace a newer one');
    assert.not.ok(await snapshots.put(write('stale', 700, 'not-the-latest', [[0, 1]], first.head)), 'nor one written as a change of another');
    const change = write('b', 800, 'a', [[1, 5]], first.head);
    assert.ok(await snapshots.put(change));
    assert.equal(
      await snapshots.buckets(change.head, 'source_refs', [0, 1]),
      new Map([
        [0, rows(3)],
        [1, rows(5)],
      ]),
      'the buckets it shares are read from the earlier write',
    );
    assert.is(await snapshots.buckets(first.head, 'source_refs', [1]), null, 'the bucket it replaced is gone');
    const docs = async () => (await t.app.reads.dump('record_snapshots')).filter((d) => d.partition === athleteId).length;
    assert.is(await docs(), 4, 'the head and three buckets');
    assert.ok(await snapshots.put(write('c', 900, null, [[3, 1]])), 'a snapshot writing every bucket replaces any older one');
    assert.is(await docs(), 2, 'every bucket of the one it replaced is removed');
  } finally {
    await t.close();
  }
});

test.run();
