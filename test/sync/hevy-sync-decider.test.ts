// decideHevySync: given the record's events, when a run reads Hevy's workout events feed, then
// these record events (test/support/decider-spec.ts). Covers what the sync promises: a new workout,
// an edit and a deletion in Hevy reaching the record, nothing written twice, a workout imported
// from a CSV export adopted rather than duplicated (also after its title was edited in Hevy), and
// a CSV import after the sync skipping what the sync wrote.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HevyWorkoutEvent } from '../../contracts/hevy.ts';
import type { HevySyncedEvent, RecordEvent, RecordStreamEvent } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { decideHevySync, HEVY_BEGINNING, hevySyncKeys, type HevySyncCommand, type HevySyncDecision } from '../../services/domain/hevy-sync.ts';
import { decideImport } from '../../services/domain/import.ts';
import { nameUuid } from '../../services/domain/ids.ts';
import { emptyFold, foldEvent } from '../../services/domain/record-fold.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { hevySyncDecider, imagesOf, type LoadedStream } from '../support/deciders.ts';
import { BENCH_TEMPLATE, hevyWorkout } from '../support/fake-hevy.ts';

const ATHLETE = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2026-06-01T12:00:00Z');
const spec = DeciderSpecification.for(hevySyncDecider({ athleteId: ATHLETE, occurredAt: '2026-06-01T00:00:00.000Z' }));

const BENCH_ID = nameUuid(`${ATHLETE}/exercise/bench press (barbell)`);
const syncedId = (hevyId: string) => nameUuid(`${ATHLETE}/workout/hevy#id:${hevyId}`);

const updated = (id: string, at: string, overrides: Parameters<typeof hevyWorkout>[1] = {}): HevyWorkoutEvent => ({
  type: 'updated',
  workout: { ...hevyWorkout(id, overrides), updated_at: at, created_at: '2026-05-20T09:06:00Z' },
});
const deletedIn = (id: string, at: string): HevyWorkoutEvent => ({ type: 'deleted', id, deleted_at: at });

function run(events: HevyWorkoutEvent[], since = HEVY_BEGINNING): HevySyncCommand {
  return { since, events, templates: new Map([[BENCH_TEMPLATE.id, BENCH_TEMPLATE]]), now: NOW };
}

/** The events a run decides on the record the given events make: to build a later `given`. */
function decided(given: RecordStreamEvent[], command: HevySyncCommand): RecordEvent[] {
  const stream: LoadedStream = { fold: emptyFold(ATHLETE), events: [] };
  given.forEach((event, revision) => {
    foldEvent(stream.fold, { revision, type: event.type, data: event.data });
    stream.events.push({ ...event, revision, occurred_at: '2026-06-01T00:00:00.000Z' });
  });
  return decideHevySync(command, stream.fold.state, imagesOf(stream, hevySyncKeys(command, stream.fold.state))).events;
}

/** Hevy's CSV export of one workout, imported (services/import/hevy.ts, decideImport) as the athlete would have. */
function csvImported(title: string, start: string, end: string): RecordEvent[] {
  const csv = [
    '"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"',
    `"${title}","${start}","${end}","","Bench Press (Barbell)",,"",0,"warmup",40,10,,,`,
    `"${title}","${start}","${end}","","Bench Press (Barbell)",,"",1,"normal",80,5,,,8`,
  ].join('\n');
  return decideImport(
    { app: 'hevy', file_name: 'workouts.csv', file_sha256: 'a'.repeat(64), workouts: parseHevy(csv, { timezone: 'UTC' }) },
    emptyFold(ATHLETE).state,
  ).events;
}

const workoutOf = (events: readonly RecordEvent[]) =>
  events
    .filter((e) => e.type.startsWith('workout.'))
    .map((e) => ({ type: e.type, ...(e.data as { item?: RecordItem<'workout'>; id?: string; revision: number }) }));
const syncedOf = (d: HevySyncDecision) => d.events.find((e): e is HevySyncedEvent => e.type === 'hevy.synced')?.data;

test('a new Hevy workout: its exercise (from the template) and the workout, then the run with its position', () => {
  spec
    .given()
    .when(run([updated('h-1', '2026-05-20T09:10:00Z')]))
    .then((d) => {
      assert.equal(
        d.events.map((e) => e.type),
        ['exercise.created', 'workout.created', 'hevy.synced'],
      );
      assert.equal((d.events[0]!.data as { item: unknown }).item, {
        id: BENCH_ID,
        name: 'Bench Press (Barbell)',
        muscle_group: 'chest',
        tracking_type: 'weight_reps',
      });
      const [w] = workoutOf(d.events);
      assert.is(w!.item!.id, syncedId('h-1'));
      assert.equal(w!.item!.source, { app: 'hevy', ref: 'hevy:2026-05-20T08:00:00.000Z:Push Day', id: 'h-1', version: '2026-05-20T09:10:00.000Z' });
      assert.equal(
        w!.item!.exercises[0]!.sets.map((s) => [s.set_type, s.weight_kg, s.reps, s.rpe, s.completed]),
        [
          ['warmup', 40, 10, null, true],
          ['normal', 80, 5, 8, true],
        ],
      );
      assert.equal(syncedOf(d), {
        since: HEVY_BEGINNING,
        next_since: '2026-05-20T09:05:00.000Z',
        events_read: 1,
        workouts_created: 1,
        workouts_updated: 0,
        workouts_deleted: 0,
        workouts_unchanged: 0,
        exercises_added: 1,
        skipped: [],
        skipped_count: 0,
      });
    });
});

test('the same feed read again (a restart, or the overlap) writes nothing', () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  spec
    .given(...first)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z')], '2026-05-20T09:05:00.000Z'))
    .then((d) => {
      assert.equal(d.events, []);
      assert.is(d.summary.workouts_unchanged, 1);
    });
});

test('an edit in Hevy (another title, another set) updates the same workout, found by its Hevy id', () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  const edited = hevyWorkout('h-1', { title: 'Chest Day' });
  edited.exercises[0]!.sets[1]!.weight_kg = 85;
  spec
    .given(...first)
    .when(run([{ type: 'updated', workout: { ...edited, updated_at: '2026-05-21T07:00:00Z' } }], '2026-05-20T09:05:00.000Z'))
    .then((d) => {
      const [w] = workoutOf(d.events);
      assert.is(w!.type, 'workout.updated');
      assert.is(w!.revision, 2);
      assert.is(w!.item!.id, syncedId('h-1'));
      assert.is(w!.item!.title, 'Chest Day');
      assert.is(w!.item!.exercises[0]!.sets[1]!.weight_kg, 85);
      assert.is(w!.item!.source!.ref, 'hevy:2026-05-20T08:00:00.000Z:Chest Day');
      assert.is(syncedOf(d)!.workouts_updated, 1);
    });
});

test('a deletion in Hevy deletes the workout; one of a workout the record never had changes nothing but the position', () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  spec
    .given(...first)
    .when(run([deletedIn('h-1', '2026-05-22T10:00:00Z'), deletedIn('h-unknown', '2026-05-22T09:00:00Z')], '2026-05-20T09:05:00.000Z'))
    .then((d) => {
      assert.equal(workoutOf(d.events), [{ type: 'workout.deleted', id: syncedId('h-1'), revision: 2 }]);
      assert.is(syncedOf(d)!.workouts_deleted, 1);
      assert.is(syncedOf(d)!.next_since, '2026-05-22T09:55:00.000Z');
    });
});

test('a workout edited then deleted in Hevy before any run saw it is not created', () => {
  spec
    .given()
    .when(run([deletedIn('h-2', '2026-05-22T10:00:00Z'), updated('h-2', '2026-05-21T10:00:00Z')]))
    .then((d) => {
      assert.equal(
        d.events.map((e) => e.type),
        ['hevy.synced'],
      );
    });
});

test('a workout imported from a CSV export is adopted (its source gains the Hevy id), not duplicated', () => {
  const imported = csvImported('Push Day', '20 May 2026, 08:00', '20 May 2026, 09:05');
  const csvId = workoutOf(imported)[0]!.item!.id;
  spec
    .given(...imported)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z', { start_time: '2026-05-20T08:00:42Z' })]))
    .then((d) => {
      assert.equal(
        d.events.map((e) => e.type),
        ['workout.updated', 'hevy.synced'],
      );
      const [w] = workoutOf(d.events);
      assert.is(w!.item!.id, csvId);
      assert.is(w!.item!.source!.id, 'h-1');
      assert.is(w!.item!.started_at, '2026-05-20T08:00:42.000Z');
    });
});

test('a CSV-imported workout whose title was edited in Hevy before the first run is adopted by its start minute', () => {
  const imported = csvImported('Push Day', '20 May 2026, 08:00', '20 May 2026, 09:05');
  const csvId = workoutOf(imported)[0]!.item!.id;
  spec
    .given(...imported)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z', { title: 'Renamed in Hevy' })]))
    .then((d) => {
      const [w] = workoutOf(d.events);
      assert.is(w!.type, 'workout.updated');
      assert.is(w!.item!.id, csvId);
      assert.is(w!.item!.title, 'Renamed in Hevy');
    });
});

test('two file-imported workouts in that minute: neither is guessed, the Hevy workout is created', () => {
  const a = csvImported('Push Day', '20 May 2026, 08:00', '20 May 2026, 09:05');
  const b = csvImported('Pull Day', '20 May 2026, 08:00', '20 May 2026, 09:00').filter((e) => e.type !== 'exercise.created');
  spec
    .given(...a, ...b)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z', { title: 'Legs' })]))
    .then((d) => {
      assert.equal(
        workoutOf(d.events).map((w) => [w.type, w.item!.id]),
        [['workout.created', syncedId('h-1')]],
      );
    });
});

test('a CSV import after the sync skips its workouts, also an export taken before a title edit in Hevy', () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  const renamed = decided(first, run([updated('h-1', '2026-05-21T07:00:00Z', { title: 'Chest Day' })], '2026-05-20T09:05:00.000Z'));
  const stream: LoadedStream = { fold: emptyFold(ATHLETE), events: [] };
  [...first, ...renamed].forEach((event, revision) => foldEvent(stream.fold, { revision, type: event.type, data: event.data }));
  for (const title of ['Push Day', 'Chest Day']) {
    const csv = csvImported(title, '20 May 2026, 08:00', '20 May 2026, 09:05');
    const parsed = parseHevy(
      `"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"\n"${title}","20 May 2026, 08:00","20 May 2026, 09:05","","Bench Press (Barbell)",,"",0,"normal",80,5,,,`,
      { timezone: 'UTC' },
    );
    assert.ok(csv.length > 0);
    const again = decideImport({ app: 'hevy', file_name: 'later.csv', file_sha256: 'b'.repeat(64), workouts: parsed }, stream.fold.state);
    assert.is(again.workoutsAdded, 0, title);
    assert.is(again.workoutsSkipped, 1, title);
  }
});

test('a workout the record cannot hold is skipped and named; the rest of the run lands', () => {
  const bad = hevyWorkout('h-bad');
  bad.exercises[0]!.sets[0]!.weight_kg = 5000;
  spec
    .given()
    .when(run([{ type: 'updated', workout: { ...bad, updated_at: '2026-05-20T09:20:00Z' } }, updated('h-1', '2026-05-20T09:10:00Z')]))
    .then((d) => {
      assert.equal(
        workoutOf(d.events).map((w) => w.item!.id),
        [syncedId('h-1')],
      );
      const synced = syncedOf(d)!;
      assert.is(synced.skipped_count, 1);
      assert.is(synced.skipped[0]!.hevy_id, 'h-bad');
      assert.match(synced.skipped[0]!.reason, /weight_kg/);
    });
});

test('a synced workout the athlete deleted in RepLedger is not brought back by an edit in Hevy', () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  const deletedHere: RecordEvent = { type: 'workout.deleted', data: { id: syncedId('h-1'), revision: 2 } };
  spec
    .given(...first, deletedHere)
    .when(run([updated('h-1', '2026-05-21T07:00:00Z', { title: 'Chest Day' })], '2026-05-20T09:05:00.000Z'))
    .then((d) => {
      assert.equal(workoutOf(d.events), []);
      assert.equal(syncedOf(d)!.skipped, [{ hevy_id: 'h-1', reason: 'deleted in RepLedger: not brought back' }]);
    });
});

test('a file-imported workout the athlete deleted in RepLedger is not brought back by the first sync either', () => {
  const imported = csvImported('Push Day', '20 May 2026, 08:00', '20 May 2026, 09:05');
  const csvId = workoutOf(imported)[0]!.item!.id;
  const deletedHere: RecordEvent = { type: 'workout.deleted', data: { id: csvId, revision: 2 } };
  spec
    .given(...imported, deletedHere)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z')]))
    .then((d) => {
      assert.equal(workoutOf(d.events), []);
      assert.equal(syncedOf(d)!.skipped, [{ hevy_id: 'h-1', reason: 'deleted in RepLedger: not brought back' }]);
    });
});

test("the athlete's own edit of a synced workout stays until Hevy's workout changes again", () => {
  const first = decided([], run([updated('h-1', '2026-05-20T09:10:00Z')]));
  const w = workoutOf(first)[0]!.item!;
  const edited: RecordEvent = { type: 'workout.updated', data: { item: { ...w, notes: 'felt strong' }, revision: 2 } };
  spec
    .given(...first, edited)
    .when(run([updated('h-1', '2026-05-20T09:10:00Z')], '2026-05-20T09:05:00.000Z'))
    .then((d) => assert.equal(d.events, []));
});

test('a workout ending in the future is skipped', () => {
  spec
    .given()
    .when(run([updated('h-f', '2026-05-20T09:10:00Z', { start_time: '2026-06-02T08:00:00Z', end_time: '2026-06-02T09:00:00Z' })]))
    .then((d) => {
      assert.equal(workoutOf(d.events), []);
      assert.equal(syncedOf(d)!.skipped, [{ hevy_id: 'h-f', reason: 'it ends in the future' }]);
    });
});

test.run();
