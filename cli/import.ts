// What `import hevy` and `import strong` share: find the athlete, read and parse the file, then
// write the whole file in one append.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { App } from '../services/app.ts';
import type { AthleteState } from '../services/domain/athlete.ts';
import type { ImportDecision } from '../services/domain/import.ts';
import { DomainError } from '../services/domain/errors.ts';
import { sha256Hex } from '../services/domain/ids.ts';
import { ImportRowError, type ParsedWorkout } from '../services/import/types.ts';
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
  let workouts: ParsedWorkout[];
  try {
    workouts = parse(bytes.toString('utf8'), athlete);
  } catch (error) {
    if (error instanceof ImportRowError) {
      throw new DomainError('invalid_input', `${basename(options.file)} ${error.message}; nothing was imported`);
    }
    throw error;
  }
  options.log(`saving ${workouts.length} workouts from ${basename(options.file)}`);
  // Embedded mode projects inside the append's transaction, which is where the time goes.
  app.runner.onProgress = (done, total) => options.progress.update(done, total);
  let decision: ImportDecision;
  try {
    decision = await app.records.import(
      athlete.athlete_id,
      { app: options.app, file_name: basename(options.file), file_sha256: sha256Hex(bytes), workouts },
      { type: 'import', id: `${options.app}:${sha256Hex(bytes).slice(0, 16)}` },
    );
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

export function describeImport(s: ImportSummary): string {
  return `imported ${s.workouts_added} of ${s.workouts_in_file} workouts (${s.workouts_skipped} already in the record), ${s.exercises_added} new exercises`;
}
