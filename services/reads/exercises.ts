// list_exercises and get_personal_records: pages of the exercise summaries the record projection
// keeps (projections/records.ts), by folded name then id, so neither walks any history. A query
// keeps the exercises whose name's words it begins (services/domain/exercise-search.ts): the
// catalog is walked in name order until a page is full, which costs the size of the catalog at
// most, never the size of the history. Both operations page the same way, so a cursor of one
// serves the other: an agent can list a page and ask for its records with the same cursor.
import type { KeyObject } from 'node:crypto';
import type {
  ExerciseList,
  ExerciseListQuery,
  ExercisePersonalRecords,
  PersonalRecord,
  PersonalRecords,
  PersonalRecordsQuery,
} from '../../contracts/agent-access.ts';
import { LIMITS } from '../../contracts/common.ts';
import { BY_SORT_NAME, EXERCISE_SUMMARIES, type ExerciseSummaryDoc, type RecordHolder } from '../../projections/record-entries.ts';
import { WORKOUTS, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { DomainError } from '../domain/errors.ts';
import type { RecordOwner } from './owner.ts';
import { matchesWords, nameWords } from '../domain/exercise-search.ts';
import { INDICATORS } from '../domain/record-indicators.ts';
import { localDateOf } from '../domain/time.ts';
import type { KeyValue, ReadStore } from '../store/read-store.ts';
import { recordText } from './text.ts';

/** The operation both lists' cursors are bound to. */
const CURSOR_OPERATION = 'list_exercises';
/** Summaries read at a time while a query filters them. */
const SCAN_CHUNK = 100;

/** The personal records' own calculation: the record-label rules, applied over every completed workout. */
export const PERSONAL_RECORDS_VERSION = 'personal-records.v1';

type Listed = ExerciseSummaryDoc & { name: string; tracking_type: NonNullable<ExerciseSummaryDoc['tracking_type']> };
const listed = (d: ExerciseSummaryDoc): d is Listed => d.name !== null && d.tracking_type !== null;
const keyOf = (d: ExerciseSummaryDoc): KeyValue[] => [d.sort_name, d.id];

async function exercisePage(
  reads: ReadStore,
  athleteId: string,
  query: { query: string | null; limit: number; cursor: string | null },
  cursorKey: KeyObject,
): Promise<{ docs: Listed[]; next_cursor: string | null }> {
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: CURSOR_OPERATION, athleteId }, query.cursor) : null;
  const asked = query.query === null ? null : nameWords(query.query).join(' ');
  const issuedFor = issued ? (issued.filters.query ?? null) : null;
  if (issued && asked !== null && asked !== issuedFor)
    throw new DomainError('invalid_input', 'cursor: it was issued for another query; pass the same query or none');
  const folded = issued ? issuedFor : asked;
  const words = folded ? folded.split(' ') : [];
  const chunk = words.length > 0 ? SCAN_CHUNK : query.limit + 1;
  const found: Listed[] = [];
  let after = issued?.after;
  for (;;) {
    const docs = await reads.page<ExerciseSummaryDoc>(EXERCISE_SUMMARIES, {
      partition: athleteId,
      index: BY_SORT_NAME.name,
      direction: 'asc',
      limit: chunk,
      ...(after ? { after } : {}),
    });
    for (const d of docs) if (listed(d) && matchesWords(d.sort_name.split(' '), words)) found.push(d);
    if (found.length > query.limit || docs.length < chunk) break;
    after = keyOf(docs[docs.length - 1]!);
  }
  const page = found.slice(0, query.limit);
  const last = page[page.length - 1];
  const next_cursor =
    found.length > query.limit && last ? encodeCursor(cursorKey, { operation: CURSOR_OPERATION, athleteId, filters: { query: folded } }, keyOf(last)) : null;
  return { docs: page, next_cursor };
}

export async function listExercises(reads: ReadStore, owner: RecordOwner, query: ExerciseListQuery, cursorKey: KeyObject): Promise<ExerciseList> {
  const { docs, next_cursor } = await exercisePage(reads, owner.athleteId, query, cursorKey);
  return {
    items: docs.map((d) => ({
      id: d.id,
      name: recordText(d.name),
      muscle_group: d.muscle_group,
      tracking_type: d.tracking_type,
      session_count: d.session_count,
      last_done_at: d.last_done_at,
    })),
    next_cursor,
  };
}

export async function getPersonalRecords(reads: ReadStore, owner: RecordOwner, query: PersonalRecordsQuery, cursorKey: KeyObject): Promise<PersonalRecords> {
  const athleteId = owner.athleteId;
  let docs: Listed[];
  let next_cursor: string | null = null;
  if (query.exercise_id !== null) {
    const doc = await reads.get<ExerciseSummaryDoc>(EXERCISE_SUMMARIES, athleteId, query.exercise_id);
    if (!doc || !listed(doc)) throw new DomainError('not_found', `no exercise ${query.exercise_id} in this record`);
    docs = [doc];
  } else {
    ({ docs, next_cursor } = await exercisePage(reads, athleteId, { ...query, limit: query.limit ?? LIMITS.pageSizeDefault }, cursorKey));
  }
  const holders = docs.flatMap((d) => INDICATORS.map((i) => d.holders[i]).filter((h): h is RecordHolder => h !== null));
  const workouts = new Map((await reads.getMany<WorkoutSummaryDoc>(WORKOUTS, athleteId, [...new Set(holders.map((h) => h.workout_id))])).map((w) => [w.id, w]));
  const timezone = owner.timezone;
  // The workouts read model may trail this one on the distributed engines: the record's own end
  // time then gives the date.
  const record = (h: RecordHolder | null): PersonalRecord | null =>
    h && {
      value: h.value,
      date: workouts.get(h.workout_id)?.local_date ?? localDateOf(h.ended_at, timezone),
      workout_id: h.workout_id,
      set_at: h.ended_at,
      set_number: h.set_number,
      weight_kg: h.weight_kg,
      reps: h.reps,
    };
  return {
    items: docs.map(
      (d): ExercisePersonalRecords => ({
        exercise: { id: d.id, name: recordText(d.name) },
        records: {
          weight: record(d.holders.weight),
          reps: record(d.holders.reps),
          set_volume: record(d.holders.set_volume),
          estimated_1rm: record(d.holders.estimated_1rm),
        },
        metadata: {
          provenance: 'derived',
          calculation_version: PERSONAL_RECORDS_VERSION,
          computed_at: d.computed_at,
          window: { from: d.first_done_at ?? d.computed_at, to: d.last_done_at ?? d.computed_at },
          sample_count: d.best.count,
        },
      }),
    ),
    next_cursor,
  };
}
