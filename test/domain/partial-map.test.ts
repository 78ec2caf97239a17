// The partial map a fold read from a snapshot holds: it answers only what it knows (an entry
// held, a key deleted here, any key of a bucket loaded) and throws `Missing` for the rest; entries
// merged from a bucket never override what was written or deleted here since the snapshot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketOf, Missing, PartialMap } from '../../services/domain/partial-map.ts';

/** Keys that fall in bucket 0 and bucket 1 of 2. */
const keys = Array.from({ length: 40 }, (_, i) => `meal/${i}`);
const [a, b] = [keys.filter((k) => bucketOf(k, 2) === 0), keys.filter((k) => bucketOf(k, 2) === 1)] as [string[], string[]];

const missing = (f: () => unknown): Missing | null => {
  try {
    f();
    return null;
  } catch (error) {
    if (error instanceof Missing) return error;
    throw error;
  }
};

test('buckets are stable: the same key falls in the same bucket, and keys spread over the buckets', () => {
  assert.is(bucketOf('workout/abc', 64), bucketOf('workout/abc', 64));
  assert.ok(a.length > 5 && b.length > 5, `${a.length} and ${b.length} of ${keys.length}`);
  const spread = new Set(keys.map((k) => bucketOf(k, 8)));
  assert.is(spread.size, 8);
});

test('a key of a bucket not loaded is Missing; of a loaded bucket it is answered, present or absent', () => {
  const map = new PartialMap<number>('items').startPartial(2);
  assert.equal(
    missing(() => map.get(a[0]!)),
    new Missing('items', a[0]!),
  );
  assert.ok(missing(() => map.has(b[0]!)));
  map.merge(0, [[a[0]!, 1]]);
  assert.is(map.get(a[0]!), 1);
  assert.is(map.has(a[1]!), false, 'a key of a loaded bucket that it does not hold is absent');
  assert.ok(map.knows(a[1]!));
  assert.not.ok(map.knows(b[0]!));
  assert.ok(
    missing(() => map.get(b[0]!)),
    'the other bucket is still missing',
  );
});

test('iterating, or asking the size, needs the whole map', () => {
  const map = new PartialMap<number>('items').startPartial(2);
  map.merge(0, [[a[0]!, 1]]);
  for (const look of [() => [...map], () => map.size, () => [...map.values()], () => [...map.keys()], () => map.forEach(() => undefined), () => new Map(map)]) {
    assert.equal(missing(look), new Missing('items', null));
  }
  map.merge(1, [[b[0]!, 2]]);
  assert.ok(map.complete);
  assert.equal(
    [...map].sort(),
    [
      [a[0]!, 1],
      [b[0]!, 2],
    ].sort(),
  );
  assert.is(map.size, 2);
});

test("what was written or deleted here stays when the key's bucket is merged later: it is newer than the snapshot", () => {
  const map = new PartialMap<number>('items').startPartial(2);
  map.set(a[0]!, 10);
  map.delete(a[1]!);
  assert.is(map.get(a[0]!), 10, 'a key written is known without its bucket');
  assert.is(map.has(a[1]!), false, 'a key deleted is known absent without its bucket');
  map.merge(0, [
    [a[0]!, 1],
    [a[1]!, 1],
    [a[2]!, 1],
  ]);
  assert.is(map.get(a[0]!), 10);
  assert.is(map.has(a[1]!), false);
  assert.is(map.get(a[2]!), 1);
  map.merge(0, [[a[2]!, 99]]);
  assert.is(map.get(a[2]!), 1, 'a bucket is merged once');
});

test('the keys written or deleted since it was last asked: what a snapshot writes again', () => {
  const map = new PartialMap<number>('items').startPartial(2);
  map.merge(0, [[a[0]!, 1]]);
  assert.equal([...map.takeDirty()], [], 'merging is not writing');
  map.set(a[0]!, 2);
  map.delete(b[0]!);
  const dirty = map.takeDirty();
  assert.equal([...dirty].sort(), [a[0]!, b[0]!].sort());
  assert.equal([...map.takeDirty()], []);
  map.restoreDirty(dirty);
  assert.equal([...map.takeDirty()].sort(), [a[0]!, b[0]!].sort(), 'given back when its snapshot was not written');
  const held = map.entriesIn(2, new Set([0, 1]));
  assert.equal(held.get(0), [[a[0]!, 2]]);
  assert.equal(held.get(1), []);
});

test('a whole copy of a whole map; a partial one cannot be copied', () => {
  const map = new PartialMap<number>('items');
  map.set('x', 1);
  const copy = PartialMap.copyOf(map);
  copy.set('y', 2);
  assert.equal([...map], [['x', 1]]);
  assert.is(copy.section, 'items');
  assert.ok(missing(() => PartialMap.copyOf(new PartialMap<number>('items').startPartial(4))));
});

test.run();
