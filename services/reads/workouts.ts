// list_completed_workouts: completed workouts whose local date (start, else creation, in the
// record timezone) falls in the window, newest first (by local date, then end time, then id).
import type { ListQuery, WorkoutDuration, WorkoutSummary } from '../../contracts/agent-access.ts';
import type { WorkoutSummaryDoc } from '../../projections/workouts.ts';
import { WORKOUTS } from '../../projections/workouts.ts';
import { decodeCursor, encodeCursor } from '../api/cursor.ts';
import type { Caller } from '../http/agent-access.ts';
import type { ReadStore } from '../store/read-store.ts';
import { recordText } from './text.ts';
import { resolveWindow, windowOfCursor } from './window.ts';

const LIST = 'list_completed_workouts';

export function durationOf(doc: WorkoutSummaryDoc): WorkoutDuration {
  return {
    seconds: doc.duration.seconds,
    basis: doc.duration.basis,
    provenance: 'derived',
    calculation_version: 'duration.v1',
    computed_at: doc.duration.computed_at,
    baseline: 'recorded_start_to_end',
    sample_count: doc.duration.sample_count,
  };
}

export function workoutSummary(doc: WorkoutSummaryDoc): WorkoutSummary {
  return {
    id: doc.id,
    title: recordText(doc.title),
    started_at: doc.started_at,
    ended_at: doc.ended_at,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    revision: doc.revision,
    duration: durationOf(doc),
    provenance: 'recorded',
  };
}

export async function listCompletedWorkouts(reads: ReadStore, caller: Caller, query: ListQuery, now: Date, cursorKey: Buffer) {
  const athleteId = caller.athlete.athlete_id;
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: LIST, athleteId }, query.cursor) : null;
  const window = issued ? windowOfCursor(query, issued.filters) : resolveWindow(query, caller.athlete.profile.timezone, now);
  const docs = await reads.page<WorkoutSummaryDoc>(WORKOUTS, {
    partition: athleteId,
    index: 'by_local_date',
    direction: 'desc',
    range: { gte: window.from, lte: window.to },
    limit: query.limit + 1,
    ...(issued ? { after: issued.after } : {}),
  });
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    window,
    items: page.map(workoutSummary),
    next_cursor: docs.length > query.limit && last ? encodeCursor(cursorKey, { operation: LIST, athleteId, filters: { ...window } }, [last.local_date, last.ended_at, last.id]) : null,
  };
}
