// The access history's counting: calls folded into hourly buckets by several instances and summed
// by a reader equal a brute-force count of the calls, per operation and per local day; retention
// drops what is older than the period; and on a real store, instances sharing it add up rather
// than overwrite, a second flush adds to the first, and the purge deletes only expired hours.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessHistory } from '../../services/operations/access-history.ts';
import {
  ACCESS_HISTORY_DAYS,
  countOf,
  hourOf,
  itemsIn,
  mergeCounts,
  retentionStart,
  summariseReads,
  type AccessBucket,
} from '../../services/domain/access-history.ts';
import { localDateOf } from '../../services/domain/time.ts';
import { openTestApp } from '../support/app.ts';
import { registerPro } from '../support/connect.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-29T12:00:00.000Z'); // Europe/London's clocks change that night
const OPERATIONS = ['list_completed_workouts', 'get_completed_workout', 'list_meals'];
const ZONES = ['Europe/London', 'Asia/Kolkata', 'Pacific/Kiritimati', 'America/St_Johns', 'UTC'];

interface Call {
  operation: string;
  at: number;
  items: number;
  instance: number;
}

/** What each instance would have written: its calls merged per (operation, hour). */
function bucketsOf(calls: Call[]): AccessBucket[] {
  const byKey = new Map<string, AccessBucket>();
  for (const c of calls) {
    const hour = hourOf(c.at);
    const key = `${c.instance} ${c.operation} ${hour}`;
    const count = countOf(c.items, c.at);
    const known = byKey.get(key);
    byKey.set(
      key,
      known ? { ...known, ...mergeCounts(known, count) } : { athlete_id: 'a', grant_id: 'g', operation: c.operation, scope: null, hour, ...count },
    );
  }
  return [...byKey.values()];
}

test('itemsIn: a page counts its items (none is 0), a single-item answer 1', () => {
  assert.is(itemsIn({ items: [1, 2, 3], next_cursor: null }), 3);
  assert.is(itemsIn({ items: [], next_cursor: null }), 0);
  assert.is(itemsIn({ workout: { id: 'w' } }), 1);
});

test('hourOf: instants of one UTC hour share a bucket; the next hour starts a new one', () => {
  assert.is(hourOf(Date.parse('2026-01-01T10:00:00.000Z')), '2026-01-01T10:00:00.000Z');
  assert.is(hourOf(Date.parse('2026-01-01T10:59:59.999Z')), '2026-01-01T10:00:00.000Z');
  assert.is(hourOf(Date.parse('2026-01-01T11:00:00.000Z')), '2026-01-01T11:00:00.000Z');
});

test('mergeCounts adds calls and items and keeps the later last call, in either order', () => {
  const a = { calls: 2, items: 7, last_at: '2026-01-01T10:05:00.000Z' };
  const b = { calls: 1, items: 0, last_at: '2026-01-01T10:30:00.000Z' };
  assert.equal(mergeCounts(a, b), { calls: 3, items: 7, last_at: b.last_at });
  assert.equal(mergeCounts(b, a), { calls: 3, items: 7, last_at: b.last_at });
});

test('property: buckets of several instances, summed, equal a brute-force count per operation and per local day, from the retention start on', () => {
  let dropped = 0;
  let sharedBuckets = 0;
  const call = fc.record({
    operation: fc.constantFrom(...OPERATIONS),
    // Up to 100 days back: some before the 90-day period.
    at: fc.integer({ min: NOW - 100 * DAY, max: NOW }),
    items: fc.integer({ min: 0, max: 10 }),
    instance: fc.integer({ min: 0, max: 2 }),
  });
  fc.assert(
    fc.property(fc.array(call, { minLength: 0, maxLength: 60 }), fc.constantFrom(...ZONES), (calls, zone) => {
      // Calls bunched into few hours too, so that buckets of one hour from several instances meet.
      const bunched = calls.map((c, i) => (i % 3 === 0 ? { ...c, at: NOW - (c.at % (3 * 3_600_000)) } : c));
      const since = retentionStart(NOW);
      const summary = summariseReads(bucketsOf(bunched), since, zone);

      const kept = bunched.filter((c) => hourOf(c.at) >= since);
      dropped += bunched.length - kept.length;
      const hours = new Map<string, Set<number>>();
      for (const c of kept) hours.set(`${c.operation} ${hourOf(c.at)}`, (hours.get(`${c.operation} ${hourOf(c.at)}`) ?? new Set()).add(c.instance));
      sharedBuckets += [...hours.values()].filter((s) => s.size > 1).length;

      const expected = (group: Call[]) => ({
        calls: group.length,
        items: group.reduce((n, c) => n + c.items, 0),
        last_at: new Date(Math.max(...group.map((c) => c.at))).toISOString(),
      });
      for (const op of OPERATIONS) {
        const mine = kept.filter((c) => c.operation === op);
        const total = summary.operations.find((o) => o.operation === op);
        if (mine.length === 0) assert.is(total, undefined);
        else assert.equal({ calls: total?.calls, items: total?.items, last_at: total?.last_at }, expected(mine), op);
        const dates = new Set(mine.map((c) => localDateOf(hourOf(c.at), zone)));
        for (const date of dates) {
          const day = summary.days.find((d) => d.date === date && d.operation === op);
          assert.equal(
            { calls: day?.calls, items: day?.items, last_at: day?.last_at },
            expected(mine.filter((c) => localDateOf(hourOf(c.at), zone) === date)),
            `${op} on ${date}`,
          );
        }
        assert.is(summary.days.filter((d) => d.operation === op).length, dates.size);
      }
      assert.ok(
        summary.days.every((d, i, all) => i === 0 || all[i - 1]!.date >= d.date),
        'newest day first',
      );
    }),
    { numRuns: 300 },
  );
  assert.ok(dropped > 0, 'some calls fell before the retention period');
  assert.ok(sharedBuckets > 0, 'some hours were counted by more than one instance');
});

test('on the store: two instances add up, a second flush adds to the first, reads from another connection stay apart', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  try {
    const athlete = await registerPro(t.app);
    const grant = randomUUID();
    const one = new AccessHistory(t.app.reads, t.clock);
    const two = new AccessHistory(t.app.reads, t.clock);
    one.record(athlete, grant, 'list_meals', 'nutrition', 5);
    two.record(athlete, grant, 'list_meals', 'nutrition', 3);
    two.record(athlete, randomUUID(), 'list_meals', 'nutrition', 9);
    await Promise.all([one.flush(), two.flush()]);
    t.clock.advance(60_000);
    one.record(athlete, grant, 'list_meals', 'nutrition', 2);
    await one.flush();

    const history = await two.connection(athlete, grant, 'Europe/London');
    assert.equal(history.reads.operations, [{ operation: 'list_meals', scope: 'nutrition', calls: 3, items: 10, last_at: '2026-06-01T12:01:00.000Z' }]);
    assert.equal(
      history.reads.days.map((d) => [d.date, d.calls, d.items]),
      [['2026-06-01', 3, 10]],
    );
    assert.is(history.days, ACCESS_HISTORY_DAYS);
  } finally {
    await t.close();
  }
});

test('on the store: the purge deletes the hours before the period and keeps the rest', async () => {
  const t = await openTestApp({ now: '2026-01-01T00:30:00.000Z' });
  try {
    const athlete = await registerPro(t.app);
    const grant = randomUUID();
    const log = new AccessHistory(t.app.reads, t.clock);
    log.record(athlete, grant, 'list_meals', 'nutrition', 1);
    t.clock.advance(2 * 3_600_000);
    log.record(athlete, grant, 'get_completed_workout', 'training', 1);
    await log.flush();
    // 90 days after the second call: the first's hour is out; the second's is the first hour kept.
    t.clock.set(new Date(Date.parse('2026-01-01T02:30:00.000Z') + ACCESS_HISTORY_DAYS * DAY).toISOString());
    assert.is(await log.purge(), 1);
    assert.is(await log.purge(), 0);
    assert.equal(
      (await t.app.reads.dump('connection_reads')).map((d) => d.doc.operation),
      ['get_completed_workout'],
    );
  } finally {
    await t.close();
  }
});

test('on the store: counts of an account another instance deleted are dropped, not written back', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  try {
    const [gone, kept] = [await registerPro(t.app), await registerPro(t.app, 'kept@example.com')];
    const grant = randomUUID();
    // Another instance's buffer: the deletion's `forget` runs in the instance that deletes.
    const other = new AccessHistory(t.app.reads, t.clock);
    other.record(gone, grant, 'list_meals', 'nutrition', 4);
    other.record(kept, grant, 'list_meals', 'nutrition', 2);
    await t.app.accounts.delete(gone, { type: 'operator', id: 'test' });
    await other.flush();
    assert.equal(
      (await t.app.reads.dump('connection_reads')).map((d) => [d.doc.athlete_id, d.doc.items]),
      [[kept, 2]],
    );
  } finally {
    await t.close();
  }
});

test.run();
