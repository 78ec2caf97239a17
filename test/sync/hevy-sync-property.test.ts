// The Hevy sync decider over many histories (fast-check): workouts logged, edited and deleted in
// Hevy, runs in between (some lost before their append, as in a crash), with or without a CSV
// import first. After a last run the record holds each workout Hevy holds exactly once, as Hevy
// has it now, none it deleted; no Hevy workout was ever created twice; and a run after that
// appends nothing.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HevyWorkout, HevyWorkoutEvent } from '../../contracts/hevy.ts';
import type { RecordEvent } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { decideHevySync, HEVY_BEGINNING, hevySyncKeys } from '../../services/domain/hevy-sync.ts';
import { decideImport } from '../../services/domain/import.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { BENCH_TEMPLATE, hevyWorkout } from '../support/fake-hevy.ts';
import { imagesOf, type LoadedStream } from '../support/deciders.ts';
import { emptyFold, foldEvent } from '../../services/domain/record-fold.ts';

const ATHLETE = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2026-06-01T12:00:00Z');
const IDS = ['a', 'b', 'c', 'd', 'e'];

type Op = { kind: 'put'; id: number; title: number; weight: number } | { kind: 'delete'; id: number } | { kind: 'sync' } | { kind: 'crash' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), id: fc.nat({ max: IDS.length - 1 }), title: fc.nat({ max: 2 }), weight: fc.integer({ min: 20, max: 200 }) }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.nat({ max: IDS.length - 1 }) }),
  fc.constant({ kind: 'sync' as const }),
  fc.constant({ kind: 'crash' as const }),
);

/** Hevy as the fake keeps it: each workout's latest state and the time of its latest event. */
interface Hevy {
  workouts: Map<string, { workout: HevyWorkout; at: string; deleted: boolean }>;
  clock: number;
}

function workoutOf(id: string, title: number, weight: number, at: string): HevyWorkout {
  const day = 1 + IDS.indexOf(id);
  const w = hevyWorkout(id, { title: `Session ${id} v${title}`, start_time: `2026-05-0${day}T07:00:00Z`, end_time: `2026-05-0${day}T08:00:00Z` });
  w.exercises[0]!.sets[1]!.weight_kg = weight;
  return { ...w, updated_at: at, created_at: at };
}

function feed(hevy: Hevy, since: string): HevyWorkoutEvent[] {
  return [...hevy.workouts.values()]
    .filter((s) => Date.parse(s.at) > Date.parse(since))
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))
    .map((s) => (s.deleted ? { type: 'deleted', id: s.workout.id, deleted_at: s.at } : { type: 'updated', workout: s.workout }));
}

class Record {
  readonly stream: LoadedStream = { fold: emptyFold(ATHLETE), events: [] };
  append(events: readonly RecordEvent[]) {
    for (const event of events) {
      const revision = this.stream.events.length;
      foldEvent(this.stream.fold, { revision, type: event.type, data: event.data });
      this.stream.events.push({ ...event, revision, occurred_at: NOW.toISOString() });
    }
  }
  /** One run's decision on the record as it is now. */
  run(hevy: Hevy): RecordEvent[] {
    const state = this.stream.fold.state;
    const since = state.syncPositions.get('hevy') ?? HEVY_BEGINNING;
    const command = { since, events: feed(hevy, since), templates: new Map([[BENCH_TEMPLATE.id, BENCH_TEMPLATE]]), now: NOW };
    return decideHevySync(command, state, imagesOf(this.stream, hevySyncKeys(command, state))).events;
  }
  /** Live workouts as the record holds them now, by their last body. */
  liveWorkouts(): Array<RecordItem<'workout'>> {
    const bodies = new Map<string, RecordItem<'workout'> | null>();
    for (const e of this.stream.events) {
      if (e.type === 'workout.created' || e.type === 'workout.updated')
        bodies.set((e.data as { item: RecordItem<'workout'> }).item.id, (e.data as { item: RecordItem<'workout'> }).item);
      if (e.type === 'workout.deleted') bodies.set((e.data as { id: string }).id, null);
    }
    return [...bodies.values()].filter((w): w is RecordItem<'workout'> => w !== null);
  }
}

/** Hevy's CSV export of its live workouts, imported into the record. */
function importCsv(record: Record, hevy: Hevy) {
  const live = [...hevy.workouts.values()].filter((s) => !s.deleted);
  if (live.length === 0) return;
  const header =
    '"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"';
  const local = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}:00`;
  const rows = live.flatMap(({ workout: w }) =>
    w.exercises[0]!.sets.map(
      (s, i) =>
        `"${w.title}","${local(w.start_time)}","${local(w.end_time)}","","${w.exercises[0]!.title}",,"",${i},"${s.type}",${s.weight_kg},${s.reps},,,${s.rpe ?? ''}`,
    ),
  );
  const parsed = parseHevy([header, ...rows].join('\n'), { timezone: 'UTC' });
  record.append(decideImport({ app: 'hevy', file_name: 'export.csv', file_sha256: 'c'.repeat(64), workouts: parsed }, record.stream.fold.state).events);
}

function play(ops: readonly Op[], csvFirst: boolean): { record: Record; hevy: Hevy } {
  const hevy: Hevy = { workouts: new Map(), clock: Date.parse('2026-05-10T00:00:00Z') };
  const record = new Record();
  const tick = () => new Date((hevy.clock += 60_000)).toISOString();
  if (csvFirst) {
    for (const id of IDS.slice(0, 3)) hevy.workouts.set(id, { workout: workoutOf(id, 0, 50, tick()), at: new Date(hevy.clock).toISOString(), deleted: false });
    importCsv(record, hevy);
    record.append(record.run(hevy));
  }
  for (const o of ops) {
    if (o.kind === 'put') {
      const id = IDS[o.id]!;
      if (hevy.workouts.get(id)?.deleted) continue; // Hevy does not bring a deleted workout back
      const at = tick();
      hevy.workouts.set(id, { workout: workoutOf(id, o.title, o.weight, at), at, deleted: false });
    } else if (o.kind === 'delete') {
      const stored = hevy.workouts.get(IDS[o.id]!);
      if (stored && !stored.deleted) hevy.workouts.set(stored.workout.id, { ...stored, at: tick(), deleted: true });
    } else if (o.kind === 'sync') record.append(record.run(hevy));
    else record.run(hevy); // decided, never appended: the process died before its append
  }
  return { record, hevy };
}

test('after any history and a last run, the record holds what Hevy holds, each workout once; a run after that appends nothing', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 30 }), fc.boolean(), (ops, csvFirst) => {
      const { record, hevy } = play(ops, csvFirst);
      record.append(record.run(hevy));
      const live = record.liveWorkouts();
      const expected = [...hevy.workouts.values()].filter((s) => !s.deleted).map((s) => s.workout);
      assert.is(live.length, expected.length, 'live workouts');
      for (const w of expected) {
        const mine = live.filter((x) => x.source?.id === w.id);
        assert.is(mine.length, 1, `workouts of Hevy's ${w.id}`);
        assert.is(mine[0]!.title, w.title);
        assert.is(mine[0]!.exercises[0]!.sets[1]!.weight_kg, w.exercises[0]!.sets[1]!.weight_kg);
      }
      const created = record.stream.events.filter((e) => e.type === 'workout.created').map((e) => (e.data as { item: { id: string } }).item.id);
      assert.is(new Set(created).size, created.length, 'a workout id created twice');
      assert.equal(record.run(hevy), [], 'a run after the last appended something');
    }),
    { numRuns: 200 },
  );
});

test.run();
