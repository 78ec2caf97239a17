// Importing another app's export into an athlete's record, wherever the file comes from (the
// CLI reads it from disk, the web app from an upload): parse it whole, then save it in one
// append. A bad row refuses the whole file with its line number; nothing is half-imported.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AthleteState } from '../domain/athlete.ts';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import { CLOCK_SKEW_MS } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/ids.ts';
import type { ApplyProgress } from '../../projections/runner.ts';
import type { ImportCommand } from '../domain/import.ts';
import type { ParsedMeal, ParsedMeasurement } from '../domain/parsed-workouts.ts';
import type { StoredEvent } from '../store/event-store.ts';
import { ImportFileError, ImportRowError, WrongExportError, type ExportApp, type ParsedWorkout } from './types.ts';
import type { Clock } from '../domain/clock.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';

export interface ImportResult {
  workouts_in_file: number;
  workouts_added: number;
  workouts_skipped: number;
  exercises_added: number;
  /** For the exports that hold body measurements and meals (Apple Health). */
  others?: { measurements_added: number; meals_added: number; skipped: number };
}

export interface ImportInput {
  app: ExportApp;
  fileName: string;
  bytes: Buffer;
  parse: (text: string, athlete: AthleteState) => ParsedWorkout[];
  /** Told how many workouts the file holds once it is read and checked, before they are saved. */
  checked?: (workouts: number) => void;
  /** Told how many of the new workouts are saved so far (embedded mode only), and the total. */
  progress?: (done: number, total: number) => void;
  /** How the refusal of a file of another app names the right way to import it. */
  importHint?: (detected: ExportApp) => string;
}

/** What an import needs of the app: the app itself, or the stores a worker thread opened (./worker.ts). */
export interface ImportTarget {
  clock: Clock;
  records: RecordService;
  runner: Pick<ProjectionRunner, 'withProgress'>;
}

/**
 * Imports the file; `invalid_input` names the line and what was wrong, and that nothing was
 * imported, when any row is refused.
 */
export async function importExport(app: ImportTarget, athlete: AthleteState, input: ImportInput): Promise<ImportResult> {
  let workouts: ParsedWorkout[];
  try {
    workouts = input.parse(input.bytes.toString('utf8'), athlete);
    checkTimes(workouts, app.clock.now().getTime(), athlete.profile.timezone);
  } catch (error) {
    if (error instanceof ImportRowError)
      throw new DomainError('invalid_input', refusal(input, error), [{ path: `line ${error.line}`, message: error.message }]);
    throw error;
  }
  input.checked?.(workouts.length);
  // Parsing and deciding a large file each hold the process for a while (a second or so at the
  // web upload's limit): a turn of the event loop between them lets other requests in.
  await nextTurn();
  const command: ImportCommand = { app: input.app, file_name: input.fileName, file_sha256: sha256Hex(input.bytes), workouts };
  return saveImport(app, athlete, command, input.progress);
}

/**
 * Saves what an importer read, in one append: the workouts not yet in the record (and their new
 * exercises), measurements and meals likewise. `command.workouts` must have passed `checkTimes`.
 */
export async function saveImport(app: ImportTarget, athlete: AthleteState, command: ImportCommand, report?: ImportInput['progress']): Promise<ImportResult> {
  // Embedded mode projects inside the append's transaction, which is where the time goes. The
  // runner counts the events it applies; the bar counts the workouts among them.
  let counted: { events: readonly StoredEvent[]; workoutsDone: (eventsDone: number) => number; total: number } | null = null;
  const progress: ApplyProgress | undefined =
    report &&
    ((eventsDone, _total, events) => {
      if (counted?.events !== events) {
        const workoutsDone = workoutCounter(events);
        counted = { events, workoutsDone, total: workoutsDone(events.length) };
      }
      if (counted.total > 0) report(counted.workoutsDone(eventsDone), counted.total);
    });
  const decision = await app.runner.withProgress(progress, () =>
    app.records.import(athlete.athlete_id, command, { type: 'import', id: `${command.app}:${command.file_sha256.slice(0, 16)}` }),
  );
  return {
    workouts_in_file: command.workouts.length,
    workouts_added: decision.workoutsAdded,
    workouts_skipped: decision.workoutsSkipped,
    exercises_added: decision.exercisesAdded,
    ...(command.measurements || command.meals
      ? { others: { measurements_added: decision.measurementsAdded, meals_added: decision.mealsAdded, skipped: decision.othersSkipped } }
      : {}),
  };
}

/**
 * Workouts (and an export's measurements and meals, each named by `what`) are imported as completed sessions: one that ends after now (a phone's clock set wrong,
 * a date mistyped) would be listed as the newest workout while no statistic counts it. Refused,
 * as an agent's proposal of one is, with the same allowance for a clock running a little fast. So
 * is one before 1900, a mistyped year (1000 for 2000) that would stretch every chart over centuries.
 */
export function checkTimes(
  workouts: ReadonlyArray<Pick<ParsedWorkout, 'line' | 'started_at' | 'ended_at' | 'entry'> & { what?: string }>,
  nowMs: number,
  timeZone: string,
): void {
  const at = (instant: string) => `${instant.slice(0, 16).replace('T', ' ')} UTC (times read in ${timeZone})`;
  // A file without lines (FIT) is named instead: the upload, or its entry in a zip.
  const refuse = (w: (typeof workouts)[number], message: string) =>
    w.entry === undefined ? new ImportRowError(w.line, message) : new ImportFileError(w.entry, message);
  const future = workouts.find((w) => Date.parse(w.ended_at) > nowMs + CLOCK_SKEW_MS);
  if (future)
    throw refuse(
      future,
      future.what
        ? `the ${future.what} is dated ${at(future.ended_at)}, in the future`
        : `the workout ends ${at(future.ended_at)}, in the future; only completed workouts are imported`,
    );
  // Four-digit years compare as text, as the proposals' check does.
  const earliest = WRITE_POLICY.earliestRecordedDate;
  const early = workouts.find((w) => (w.started_at ?? w.ended_at) < earliest);
  if (early)
    throw refuse(
      early,
      `the ${early.what ?? 'workout'} ${early.what ? 'is dated' : 'starts'} ${at(early.started_at ?? early.ended_at)}, before ${earliest}; check the year`,
    );
}

/**
 * `checkTimes` for everything an import brings: its workouts, and its body measurements and meals
 * by the time each is dated.
 */
export function checkImportTimes(
  parsed: { workouts: readonly ParsedWorkout[]; measurements?: readonly ParsedMeasurement[]; meals?: readonly ParsedMeal[] },
  nowMs: number,
  timeZone: string,
): void {
  checkTimes(
    [
      ...parsed.workouts,
      ...(parsed.measurements ?? []).map((m) => ({ line: m.line, entry: m.entry, started_at: null, ended_at: m.measured_at, what: 'body measurement' })),
      ...(parsed.meals ?? []).map((m) => ({ line: m.line, started_at: null, ended_at: m.eaten_at, what: 'meal' })),
    ],
    nowMs,
    timeZone,
  );
}

function refusal(input: ImportInput, error: ImportRowError): string {
  if (error instanceof WrongExportError) {
    return `${input.fileName} ${error.message}: ${input.importHint?.(error.detected) ?? `import it as a ${error.detected} export`}; nothing was imported`;
  }
  return `${input.fileName} ${error.message}; nothing was imported`;
}

/**
 * A file an importer refused, as the caller is told: `invalid_input`, the line (or, for a file
 * without lines, the file or zip entry), and that nothing was imported.
 */
export function refusedFile(fileName: string, error: ImportRowError | ImportFileError): DomainError {
  if (error instanceof ImportRowError)
    return new DomainError('invalid_input', `${fileName} ${error.message}; nothing was imported`, [{ path: `line ${error.line}`, message: error.message }]);
  const where = error.entry === null ? fileName : `${fileName}: ${error.entry} in the zip`;
  return new DomainError('invalid_input', `${where}: ${error.message}; nothing was imported`, [{ path: error.entry ?? 'file', message: error.message }]);
}

/**
 * How many workouts the first n of an import's events are. An import's events are its new
 * exercises and its receipt too (193 workouts were 208 events), which the bar does not count.
 */
function workoutCounter(events: ReadonlyArray<{ type: string }>): (eventsDone: number) => number {
  const workoutsBefore = [0];
  for (const e of events) workoutsBefore.push(workoutsBefore.at(-1)! + (e.type === 'workout.created' ? 1 : 0));
  return (eventsDone) => workoutsBefore[Math.max(0, Math.min(eventsDone, events.length))]!;
}
