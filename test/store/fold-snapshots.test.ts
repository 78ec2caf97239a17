// Record fold snapshots as the service keeps them: a record no process holds is loaded from its
// snapshot and the events after it, not the whole stream, and equals the whole stream folded; a
// snapshot that no longer matches the stream (replaced, as by a restored store) is not used; a
// snapshot larger than one part is split and read back whole.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import type { FoldSnapshot } from '../../services/domain/record-snapshot.ts';
import { RecordService, SNAPSHOT_EVERY } from '../../services/record-service.ts';
import type { EventStore } from '../../services/store/event-store.ts';
import { ReadStoreFoldSnapshots } from '../../services/store/fold-snapshots.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { plain } from '../support/plain.ts';

/** The event store, counting the events its stream reads answer. */
function counting(events: EventStore): { store: EventStore; read: () => number } {
  let read = 0;
  const store = new Proxy(events, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === 'readStream') return async (...args: Parameters<EventStore['readStream']>) => {
        const answer = await target.readStream(...args);
        read += answer.length;
        return answer;
      };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, read: () => read };
}

const loadedFold = (l: Awaited<ReturnType<RecordService['load']>>) => plain({ state: l.state, proposals: l.proposals, revision: l.revision, lastLink: l.lastLink });

test('a record no process holds is loaded from its snapshot and the events after it, and equals the whole stream folded', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app);
    const meal = () => ({ id: randomUUID(), eaten_at: '2026-05-01T08:00:00.000Z', name: 'Oats', calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 });
    // More events than a snapshot waits for, in commands of a hundred: the service keeps one on the way.
    for (let i = 0; i < Math.ceil((SNAPSHOT_EVERY + 150) / 100); i++) {
      await t.app.records.change(athleteId, Array.from({ length: 100 }, () => ({ op: 'create' as const, kind: 'meal' as const, item: meal() })), { type: 'athlete', id: 'test' });
    }
    await t.app.records.snapshotsWritten();
    const total = ((await t.app.events.streamRevision(streams.record(athleteId))) as number) + 1;
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const kept = await snapshots.get(athleteId);
    assert.ok(kept, 'a snapshot was kept');
    assert.ok(kept.head.revision >= SNAPSHOT_EVERY - 1 && kept.head.revision < total - 1, `kept at revision ${kept.head.revision} of ${total}`);

    const whole = await new RecordService(t.app.events, t.app.clock).load(athleteId);
    const cold = counting(t.app.events);
    const fromSnapshot = await new RecordService(cold.store, t.app.clock, snapshots).load(athleteId);
    assert.equal(loadedFold(fromSnapshot), loadedFold(whole));
    assert.is(cold.read(), total - 1 - kept.head.revision, 'only the events after the snapshot were read');

    // A command decided on a fold loaded from a snapshot is the same command.
    const service = new RecordService(t.app.events, t.app.clock, snapshots);
    const [created] = await service.change(athleteId, [{ op: 'create', kind: 'meal', item: meal() }], { type: 'athlete', id: 'test' });
    assert.is((created!.data as { revision: number }).revision, 1);
    assert.equal(loadedFold(await service.load(athleteId)), loadedFold(await new RecordService(t.app.events, t.app.clock).load(athleteId)));
  } finally {
    await t.close();
  }
});

test('a snapshot that does not match the stream (the event at its revision is another) is not used: the whole stream is read', async () => {
  const t = await openTestApp();
  try {
    const athleteId = await registerAthlete(t.app);
    for (let i = 0; i < 3; i++) {
      await t.app.records.change(athleteId, [{ op: 'create', kind: 'meal', item: { id: randomUUID(), eaten_at: '2026-05-01T08:00:00.000Z', name: `Meal ${i}`, calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 } }], { type: 'athlete', id: 'test' });
    }
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const whole = await new RecordService(t.app.events, t.app.clock).load(athleteId);
    const total = (whole.revision as number) + 1;
    // What a snapshot of another store's stream would say: a revision this stream has, another event at it.
    await snapshots.put({
      head: { format: 1, athlete_id: athleteId, revision: total - 2, position: 999_999_999, last_link: null, imported_files: [], exercise_ids: [], grants: [] },
      rows: { items: [], checkins: [], exercise_names: [], source_refs: [], exercise_uses: [], proposals: [], item_batches: [] },
    });
    const cold = counting(t.app.events);
    const loaded = await new RecordService(cold.store, t.app.clock, snapshots).load(athleteId);
    assert.equal(loadedFold(loaded), loadedFold(whole));
    assert.is(cold.read(), total, 'the whole stream was read');
  } finally {
    await t.close();
  }
});

test('a snapshot of more rows than one part holds is split into parts and read back whole; a newer one replaces it, an older one does not', async () => {
  const t = await openTestApp();
  try {
    const snapshots = new ReadStoreFoldSnapshots(t.app.reads);
    const athleteId = randomUUID();
    const rows = 12_345;
    const snapshot: FoldSnapshot = {
      head: { format: 1, athlete_id: athleteId, revision: 40_000, position: 123, last_link: null, imported_files: ['f'], exercise_ids: ['e'], grants: ['g'] },
      rows: {
        items: Array.from({ length: rows }, (_, i) => [`meal/${i}`, 1, 0, i, i] as [string, number, 0, number, number]),
        checkins: [['2026-01-01', 'c']],
        exercise_names: [],
        source_refs: [],
        exercise_uses: [['workout/w', [0]]],
        proposals: Array.from({ length: rows }, (_, i) => [`p${i}`, 0, 'd', 1, 'a', 'b', i, [i]] as FoldSnapshot['rows']['proposals'][number]),
        item_batches: [],
      },
    };
    await snapshots.put(snapshot);
    assert.equal(await snapshots.get(athleteId), snapshot);
    const count = async () => (await t.app.reads.dump('record_snapshots')).filter((d) => d.partition === athleteId).length;
    const parts = await count();
    assert.ok(parts >= 1 + 2 * Math.ceil(rows / 5000), `${parts} documents`);
    const older = { ...snapshot, head: { ...snapshot.head, revision: 39_999 }, rows: { ...snapshot.rows, items: [] } };
    await snapshots.put(older);
    assert.equal(await snapshots.get(athleteId), snapshot, 'an older snapshot does not replace a newer one');
    const newer = { ...snapshot, head: { ...snapshot.head, revision: 40_001 }, rows: { ...snapshot.rows, items: [] } };
    await snapshots.put(newer);
    assert.equal(await snapshots.get(athleteId), newer);
    assert.ok((await count()) < parts, "the replaced snapshot's parts are removed");
  } finally {
    await t.close();
  }
});

test.run();
