// What `import hevy` and `import strong` share: find the athlete, read and parse the file, then
// write the whole file in one append.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { App } from '../services/app.ts';
import type { AthleteState } from '../services/domain/athlete.ts';
import { decideImport, type ImportCommand, type ImportDecision } from '../services/domain/import.ts';
import { DomainError } from '../services/domain/errors.ts';
import { sha256Hex } from '../services/domain/ids.ts';
import { ImportRowError, WrongExportError, type ParsedWorkout } from '../services/import/types.ts';
import { findAthlete } from './athlete.ts';
import type { ProgressBar } from './progress.ts';

export interface ImportSummary {
  athlete_id: string;
  file: string;
  workouts_in_file: number;
  workouts_added: number;
  workouts_skipped: number;
  exercises_added: number;
}

export async function importFile(
  app: App,
  options: { app: 'hevy' | 'strong'; athlete: string; file: string; log: (line: string) => void; progress: ProgressBar },
  parse: (text: string, athlete: AthleteState) => ParsedWorkout[],
): Promise<ImportSummary> {
  const athlete = await findAthlete(app, options.athlete);
  const bytes = await readFile(options.file);
  const fileName = basename(options.file);
  let workouts: ParsedWorkout[];
  try {
    workouts = parse(bytes.toString('utf8'), athlete);
  } catch (error) {
    if (error instanceof ImportRowError) throw new DomainError('invalid_input', refusal(fileName, error));
    throw error;
  }
  const command: ImportCommand = { app: options.app, file_name: fileName, file_sha256: sha256Hex(bytes), workouts };
  options.log(`saving ${workouts.length} workouts from ${fileName}`);
  // Embedded mode projects inside the append's transaction, which is where the time goes. The
  // runner counts events; deciding the import once more beforehand says which are workouts.
  // That costs a load and a decide, so only when a bar is drawn and the append projects.
  if (options.progress.enabled !== false && app.projectionMode === 'inline') {
    const preview = decideImport(command, (await app.records.load(athlete.athlete_id)).state);
    const workoutsDone = workoutCounter(preview.events);
    app.runner.onProgress = (eventsDone) => {
      if (preview.workoutsAdded > 0) options.progress.update(workoutsDone(eventsDone), preview.workoutsAdded);
    };
  }
  let decision: ImportDecision;
  try {
    decision = await app.records.import(athlete.athlete_id, command, { type: 'import', id: `${options.app}:${command.file_sha256.slice(0, 16)}` });
  } finally {
    app.runner.onProgress = null;
    options.progress.stop();
  }
  return {
    athlete_id: athlete.athlete_id,
    file: options.file,
    workouts_in_file: workouts.length,
    workouts_added: decision.workoutsAdded,
    workouts_skipped: decision.workoutsSkipped,
    exercises_added: decision.exercisesAdded,
  };
}

function refusal(fileName: string, error: ImportRowError): string {
  if (error instanceof WrongExportError) {
    return `${fileName} ${error.message}: import it with \`repledger import ${error.detected}\`; nothing was imported`;
  }
  return `${fileName} ${error.message}; nothing was imported`;
}

/**
 * How many workouts the first n events of an import are. The runner counts the events it
 * applies, and an import's events are its new exercises and its receipt too (193 workouts were
 * 208 events), so the bar would count those as well.
 */
export function workoutCounter(events: ReadonlyArray<{ type: string }>): (eventsDone: number) => number {
  const workoutsBefore = [0];
  for (const e of events) workoutsBefore.push(workoutsBefore.at(-1)! + (e.type === 'workout.created' ? 1 : 0));
  return (eventsDone) => workoutsBefore[Math.max(0, Math.min(eventsDone, events.length))]!;
}

export function describeImport(s: ImportSummary): string {
  return `imported ${s.workouts_added} of ${s.workouts_in_file} workouts (${s.workouts_skipped} already in the record), ${s.exercises_added} new exercises`;
}
