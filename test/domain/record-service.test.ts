// RecordService over the embedded SQLite event store: decide, append at the revision decided
// against, and on a lost append race decide again on the new state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams, type Actor } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { DomainError } from '../../services/domain/errors.ts';
import type { RecordChange } from '../../services/domain/record.ts';
import { RecordService } from '../../services/commands/record-service.ts';
import { WrongExpectedRevisionError, type ExpectedRevision, type NewEvent } from '../../services/store/event-store.ts';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { tempDir } from '../support/app.ts';
import { within } from '../support/eventually.ts';
import { join } from 'node:path';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';

// ---------------------------------------------------------------------------------------------
// Builders

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa1);
const NOW = '2026-03-02T10:15:00.000Z';
const athlete: Actor = { type: 'athlete', id: ATHLETE };

function mealItem(overrides: Partial<RecordItem<'meal'>> = {}): RecordItem<'meal'> {
  return {
    id: uid(1),
    eaten_at: '2026-03-02T12:30:00.000Z',
    name: 'Chicken and rice',
    calories_kcal: 650,
    protein_g: 45,
    carbohydrate_g: 80,
    fat_g: 12,
    ...overrides,
  };
}

function checkinItem(overrides: Partial<RecordItem<'checkin'>> = {}): RecordItem<'checkin'> {
  return { id: uid(40), date: '2026-03-02', sleep_quality: 4, energy: 3, soreness: 5, stress: 2, ...overrides };
}

const createMeal = (overrides: Partial<RecordItem<'meal'>> = {}): RecordChange => ({ op: 'create', kind: 'meal', item: mealItem(overrides) });

/** The names of the items in the stream's events, sorted. */
const names = async (stream: () => Promise<{ data: unknown }[]>) => (await stream()).map((e) => (e.data as { item?: { name?: string } }).item?.name).sort();

interface AppendAttempt {
  expected: ExpectedRevision;
  outcome: 'appended' | 'wrong_expected_revision' | 'other_error';
}

/**
 * A service over a fresh in-memory store. With `spy` (the default) every append the service
 * attempts is recorded, through a thin async wrapper around the store's append.
 */
function setup({ spy = true } = {}) {
  const db = openSqlite(':memory:');
  const store = new SqliteEventStore(db);
  const attempts: AppendAttempt[] = [];
  const append = store.append.bind(store);
  if (spy)
    store.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision) => {
      try {
        const result = await append(stream, events, expected);
        attempts.push({ expected, outcome: 'appended' });
        return result;
      } catch (error) {
        attempts.push({ expected, outcome: error instanceof WrongExpectedRevisionError ? 'wrong_expected_revision' : 'other_error' });
        throw error;
      }
    };
  const clock = fixedClock(NOW);
  const service = new RecordService(store, clock);
  return { db, store, service, clock, attempts, stream: () => store.readStream(streams.record(ATHLETE)) };
}

// ---------------------------------------------------------------------------------------------

test('change appends the decided events with metadata {occurred_at, actor, athlete_id}', async () => {
  const { db, service, clock, stream } = setup();
  const written = await service.change(ATHLETE, [createMeal(), { op: 'create', kind: 'checkin', item: checkinItem() }], athlete);
  assert.equal(written, [
    { type: 'meal.created', data: { item: mealItem(), revision: 1 } },
    { type: 'checkin.created', data: { item: checkinItem(), revision: 1 } },
  ]);
  clock.advance(60_000);
  const operator: Actor = { type: 'operator', id: 'ops@example.org' };
  await service.change(ATHLETE, [{ op: 'update', kind: 'meal', item: mealItem({ name: 'Lunch' }), base_revision: 1 }], operator);

  const stored = await stream();
  assert.equal(
    stored.map((e) => [e.revision, e.type]),
    [
      [0, 'meal.created'],
      [1, 'checkin.created'],
      [2, 'meal.updated'],
    ],
  );
  assert.equal(
    stored.map((e) => e.data),
    [...written.map((e) => e.data), { item: mealItem({ name: 'Lunch' }), revision: 2 }],
  );
  assert.equal(stored[0]!.metadata, { occurred_at: NOW, actor: athlete, athlete_id: ATHLETE });
  assert.equal(stored[1]!.metadata, { occurred_at: NOW, actor: athlete, athlete_id: ATHLETE });
  assert.equal(stored[2]!.metadata, { occurred_at: '2026-03-02T10:16:00.000Z', actor: operator, athlete_id: ATHLETE });
  db.close();
});

test('a refused change appends nothing', async () => {
  const { db, service, stream, attempts } = setup();
  await service.change(ATHLETE, [createMeal()], athlete);
  try {
    await service.change(ATHLETE, [createMeal({ id: uid(2) }), createMeal()], athlete);
    assert.unreachable('the second batch re-creates an existing meal');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'already_exists');
  }
  assert.is((await stream()).length, 1);
  assert.is(attempts.length, 1);
  db.close();
});

/**
 * Two services over two connections to one database file, as two processes would be: each has its
 * own queue, so their commands really race. Service B's appends are held until `beforeB` has run.
 */
function twoWriters(beforeB: (attempt: number) => Promise<void>) {
  const path = join(tempDir(), 'race.db');
  const dbA = openSqlite(path);
  const dbB = openSqlite(path);
  const storeA = new SqliteEventStore(dbA);
  const storeB = new SqliteEventStore(dbB);
  const attemptsB: AppendAttempt[] = [];
  const appendB = storeB.append.bind(storeB);
  storeB.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision) => {
    await beforeB(attemptsB.length + 1);
    try {
      const result = await appendB(stream, events, expected);
      attemptsB.push({ expected, outcome: 'appended' });
      return result;
    } catch (error) {
      attemptsB.push({ expected, outcome: error instanceof WrongExpectedRevisionError ? 'wrong_expected_revision' : 'other_error' });
      throw error;
    }
  };
  const clock = fixedClock(NOW);
  return {
    a: new RecordService(storeA, clock),
    b: new RecordService(storeB, clock),
    attemptsB,
    stream: () => storeA.readStream(streams.record(ATHLETE)),
    close() {
      dbA.close();
      dbB.close();
    },
  };
}

test("two writers race: the loser's append is refused and it decides again on the record the winner left", async () => {
  let a!: RecordService;
  const race = twoWriters(async (attempt) => {
    // B has decided against the empty record; A now writes a check-in on the same date first.
    if (attempt === 1) await a.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(40) }) }], athlete);
  });
  a = race.a;
  try {
    await race.b.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(41) }) }], athlete);
    assert.unreachable('decided again, B sees the date taken');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'date_taken', 'a blind retry of the first decision would have stored two check-ins on one date');
  }
  assert.equal(race.attemptsB, [{ expected: 'no_stream', outcome: 'wrong_expected_revision' }]);
  assert.equal(
    (await race.stream()).map((e) => (e.data as { item: { id: string } }).item.id),
    [uid(40)],
  );

  // An independent change of the loser lands on the second try, at the winner's revision.
  race.attemptsB.length = 0;
  let raced = false;
  const again = twoWriters(async () => {
    if (!raced) {
      raced = true;
      await again.a.change(ATHLETE, [createMeal({ id: uid(2), name: 'Lunch' })], athlete);
    }
  });
  try {
    await again.b.change(ATHLETE, [createMeal({ id: uid(1), name: 'Breakfast' })], athlete);
    assert.equal(
      again.attemptsB.map((x) => [x.expected, x.outcome]),
      [
        ['no_stream', 'wrong_expected_revision'],
        [0, 'appended'],
      ],
    );
    assert.equal(await names(again.stream), ['Breakfast', 'Lunch']);
  } finally {
    again.close();
  }
  race.close();
});

test('a writer that keeps losing the race gives up with busy after five decisions, and appends nothing', async () => {
  let a!: RecordService;
  const race = twoWriters(async (attempt) => {
    await a.change(ATHLETE, [createMeal({ id: uid(100 + attempt), name: `Other ${attempt}` })], athlete);
  });
  a = race.a;
  try {
    await race.b.change(ATHLETE, [createMeal({ id: uid(1), name: 'Mine' })], athlete);
    assert.unreachable('B never wins');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'busy');
  }
  assert.equal(
    race.attemptsB.map((x) => [x.expected, x.outcome]),
    [0, 1, 2, 3, 4].map((revision) => [revision === 0 ? 'no_stream' : revision - 1, 'wrong_expected_revision']),
    'each attempt decided against the record as it then was',
  );
  assert.not.ok((await names(race.stream)).includes('Mine'));
  race.close();
});

test('five concurrent changes to different items all land', async () => {
  const { db, service, stream } = setup({ spy: false });
  const outcomes = await Promise.allSettled(
    Array.from({ length: 5 }, (_, i) => service.change(ATHLETE, [createMeal({ id: uid(i + 1), name: `Meal ${i + 1}` })], athlete)),
  );
  const reasons = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
  assert.equal(reasons, [], 'none of the independent changes is refused');
  assert.is((await stream()).length, 5);
  db.close();
});

test('every change reported as landed is in the stream (five concurrent writers)', async () => {
  const { db, service, stream } = setup();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 5 }, (_, i) => service.change(ATHLETE, [createMeal({ id: uid(i + 1), name: `Meal ${i + 1}` })], athlete)),
  );
  const acknowledged = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`Meal ${i + 1}`] : []));
  assert.ok(acknowledged.length > 0);
  assert.equal(await names(stream), acknowledged.sort());
  db.close();
});

test("a change acknowledged while another athlete's append is open is not lost when that append fails", async () => {
  // An inline projection (the app's onAppended hook) that fails on check-ins, held open until the
  // other athlete's append has been made. Two athletes' commands are not queued behind each
  // other, so the meal's append starts while the check-in's transaction is open; it must wait for
  // it, not join it and share its rollback.
  const { db, store, service } = setup({ spy: false });
  const OTHER = uid(0xa2);
  let checkinInTransaction!: () => void;
  const checkinOpen = new Promise<void>((resolve) => (checkinInTransaction = resolve));
  let releaseCheckin!: () => void;
  const checkinReleased = new Promise<void>((resolve) => (releaseCheckin = resolve));
  store.setOnAppended(async (events) => {
    if (!events.some((e) => e.type === 'checkin.created')) return;
    checkinInTransaction();
    await checkinReleased;
    throw new Error('projection failed');
  });
  // The other athlete's append, once it has been made (it waits for the open transaction, or
  // wrongly joins it, at once: the store's append starts its write synchronously).
  const append = store.append.bind(store);
  let otherAppending!: () => void;
  const otherAppendMade = new Promise<void>((resolve) => (otherAppending = resolve));
  store.append = (stream, events, expected) => {
    const result = append(stream, events, expected);
    if (stream === streams.record(OTHER)) otherAppending();
    return result;
  };

  const failing = service.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem() }], athlete);
  await within(checkinOpen, { what: "the check-in's append reaches its projection" });
  const independent = service.change(OTHER, [createMeal({ name: 'Independent' })], { type: 'athlete', id: OTHER });
  await within(otherAppendMade, { what: "the other athlete's change reaches its append while the check-in's transaction is open" });
  releaseCheckin();
  const [a, b] = await Promise.allSettled([failing, independent]);
  assert.is(a.status, 'rejected', 'the check-in append fails in its projection');
  assert.is(b.status, 'fulfilled', "the other athlete's change lands");
  assert.is((await store.readStream(streams.record(ATHLETE))).length, 0, 'the failed append left nothing');
  assert.equal(await names(() => store.readStream(streams.record(OTHER))), ['Independent'], 'the acknowledged meal is in the stream');
  db.close();
});

test('a re-decision sees the winner: two concurrent check-ins on one date, one lands, the other is date_taken', async () => {
  const { db, service, stream } = setup();
  const outcomes = await Promise.allSettled([
    service.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(40) }) }], athlete),
    service.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(41) }) }], athlete),
  ]);
  const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  assert.is(rejected.length, 1);
  assert.instance(rejected[0]!.reason, DomainError);
  assert.is((rejected[0]!.reason as DomainError).code, 'date_taken');
  assert.is((await stream()).length, 1);
  db.close();
});

test('two concurrent updates of one item at the same base revision: one lands, the other is a revision_conflict', async () => {
  const { db, service, stream, attempts } = setup();
  await service.change(ATHLETE, [createMeal()], athlete);
  const outcomes = await Promise.allSettled([
    service.change(ATHLETE, [{ op: 'update', kind: 'meal', item: mealItem({ name: 'Version A' }), base_revision: 1 }], athlete),
    service.change(ATHLETE, [{ op: 'update', kind: 'meal', item: mealItem({ name: 'Version B' }), base_revision: 1 }], athlete),
  ]);
  const landed = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  assert.is(landed.length, 1);
  assert.is(refused.length, 1);
  assert.instance(refused[0]!.reason, DomainError);
  const error = refused[0]!.reason as DomainError;
  assert.is(error.code, 'revision_conflict');
  assert.equal(error.issues, [{ path: 'base_revision', message: 'current revision is 2' }]);
  // Only the seed and the winner were appended; the loser's update never reached the stream.
  assert.equal(
    attempts.filter((a) => a.outcome === 'appended').map((a) => a.expected),
    ['no_stream', 0],
  );

  const stored = await stream();
  assert.is(stored.length, 2);
  const winner = landed[0]!.status === 'fulfilled' ? landed[0]!.value : [];
  assert.equal(stored[1]!.data, winner[0]!.data);
  assert.equal((await service.load(ATHLETE)).state.items.get(`meal/${uid(1)}`), { revision: 2, deleted: false });
  db.close();
});

test("a record kept between commands catches up with another process's appends before deciding", async () => {
  const two = twoWriters(async () => {});
  try {
    // B decides on its kept record, then A (another process) writes a check-in and a meal.
    await two.b.change(ATHLETE, [createMeal({ id: uid(1), name: 'Breakfast' })], athlete);
    await two.a.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(40) }) }, createMeal({ id: uid(2), name: 'Lunch' })], athlete);
    try {
      await two.b.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem({ id: uid(41) }) }], athlete);
      assert.unreachable("B's record caught up: the date is taken");
    } catch (error) {
      assert.is((error as DomainError).code, 'date_taken');
    }
    // Decided on the caught-up record at once: no lost race, the append at A's revision.
    await two.b.change(ATHLETE, [{ op: 'update', kind: 'meal', item: mealItem({ id: uid(2), name: 'Late lunch' }), base_revision: 1 }], athlete);
    assert.equal(
      two.attemptsB.map((x) => [x.expected, x.outcome]),
      [
        ['no_stream', 'appended'],
        [2, 'appended'],
      ],
    );
    const loaded = await two.b.load(ATHLETE);
    assert.is(loaded.revision, 3);
    const images = await loaded.images(new Set([`meal/${uid(2)}`, `checkin/${uid(40)}`]));
    assert.is((images.get(`meal/${uid(2)}`)!.item as unknown as RecordItem<'meal'>).name, 'Late lunch');
    assert.is(images.get(`meal/${uid(2)}`)!.created_at, NOW);
    assert.is(images.get(`checkin/${uid(40)}`)!.revision, 1);
  } finally {
    two.close();
  }
});

test('what load gives stays as it was: the commands after it fold their events into the kept record, not into it', async () => {
  const { db, service } = setup();
  await service.change(ATHLETE, [createMeal({ id: uid(1), name: 'Breakfast' })], athlete);
  const looked = await service.load(ATHLETE);
  await service.change(
    ATHLETE,
    [createMeal({ id: uid(2), name: 'Lunch' }), { op: 'update', kind: 'meal', item: mealItem({ id: uid(1), name: 'Brunch' }), base_revision: 1 }],
    athlete,
  );
  await service.change(ATHLETE, [{ op: 'create', kind: 'checkin', item: checkinItem() }], athlete);
  assert.is(looked.revision, 0);
  assert.equal([...looked.state.items], [[`meal/${uid(1)}`, { revision: 1, deleted: false }]]);
  assert.is(looked.state.checkinIdByDate.size, 0);
  const now = await service.load(ATHLETE);
  assert.is(now.revision, 3);
  assert.equal(now.state.items.get(`meal/${uid(1)}`), { revision: 2, deleted: false });
  assert.is(now.state.checkinIdByDate.get('2026-03-02'), uid(40));
  db.close();
});

test('load of an athlete without events is the initial state with no stream', async () => {
  const { db, service } = setup();
  const { state, revision } = await service.load(ATHLETE);
  assert.is(revision, 'no_stream');
  assert.is(state.athleteId, ATHLETE);
  assert.is(state.items.size, 0);
  db.close();
});

test('load folds the stream and reports its revision', async () => {
  const { db, service } = setup();
  const bench = uid(100);
  await service.change(
    ATHLETE,
    [
      { op: 'create', kind: 'exercise', item: { id: bench, name: 'Bench Press', muscle_group: null, tracking_type: 'weight_reps' } },
      createMeal(),
      { op: 'create', kind: 'checkin', item: checkinItem() },
    ],
    athlete,
  );
  await service.change(ATHLETE, [{ op: 'update', kind: 'checkin', item: checkinItem({ date: '2026-03-01' }), base_revision: 1 }], athlete);
  await service.change(ATHLETE, [{ op: 'delete', kind: 'meal', id: uid(1), base_revision: 1 }], athlete);
  // Another athlete's stream is not folded in.
  await service.change(uid(0xa2), [createMeal({ id: uid(9) })], { type: 'athlete', id: uid(0xa2) });

  const { state, revision } = await service.load(ATHLETE);
  assert.is(revision, 4);
  assert.equal(
    [...state.items].sort(([a], [b]) => a.localeCompare(b)),
    [
      [`checkin/${uid(40)}`, { revision: 2, deleted: false }],
      [`exercise/${bench}`, { revision: 1, deleted: false }],
      [`meal/${uid(1)}`, { revision: 2, deleted: true }],
    ],
  );
  assert.equal([...state.checkinIdByDate], [['2026-03-01', uid(40)]]);
  assert.equal([...state.exerciseIdByName], [['bench press', bench]]);
  db.close();
});

test('import goes through the same append: the whole file lands in one append with the import actor', async () => {
  const { db, service, stream, attempts } = setup();
  const digest = 'c'.repeat(64);
  const decision = await service.import(
    ATHLETE,
    {
      app: 'hevy',
      file_name: 'workouts.csv',
      file_sha256: digest,
      workouts: [
        {
          source_ref: 'hevy:2026-03-01T08:00:00Z:Legs',
          title: 'Legs',
          started_at: '2026-03-01T08:00:00.000Z',
          ended_at: '2026-03-01T09:00:00.000Z',
          notes: null,
          line: 2,
          exercises: [
            {
              title: 'Squat',
              superset_key: null,
              notes: null,
              sets: [{ position: 0, set_type: 'normal', weight_kg: 100, reps: 5, distance_metres: null, duration_seconds: null, rpe: null, line: 2 }],
            },
          ],
        },
      ],
    },
    { type: 'import', id: digest },
  );
  assert.equal([decision.workoutsAdded, decision.exercisesAdded], [1, 1]);
  assert.is(attempts.length, 1);
  const stored = await stream();
  assert.equal(
    stored.map((e) => e.type),
    ['exercise.created', 'workout.created', 'import.completed'],
  );
  assert.ok(
    stored.every((e) => JSON.stringify(e.metadata) === JSON.stringify({ occurred_at: NOW, actor: { type: 'import', id: digest }, athlete_id: ATHLETE })),
  );
  const { state } = await service.load(ATHLETE);
  assert.ok(state.importedFiles.has(digest));
  db.close();
});

test.run();
