// What `import hevy` and `import strong` share: find the athlete, read the file, and import it
// as the web app's upload does (services/import/run.ts): the whole file in one append, or nothing.
import { basename } from 'node:path';
import type { App } from '../services/app.ts';
import type { AthleteState } from '../services/domain/athlete.ts';
import { importExport } from '../services/import/run.ts';
import type { ParsedWorkout } from '../services/import/types.ts';
import { findAthlete } from './athlete.ts';
import { readInputFile } from './input-file.ts';
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
  const bytes = await readInputFile(options.file);
  const fileName = basename(options.file);
  try {
    const result = await importExport(app, athlete, {
      app: options.app,
      fileName,
      bytes,
      parse,
      // Said once the file is checked: a file refused for a row is not announced as being saved.
      checked: (workouts) => options.log(`saving ${workouts} workouts from ${fileName}`),
      ...(options.progress.enabled !== false ? { progress: (done: number, total: number) => options.progress.update(done, total) } : {}),
      importHint: (detected) => `import it with \`repledger import ${detected}\``,
    });
    return { athlete_id: athlete.athlete_id, file: options.file, ...result };
  } finally {
    options.progress.stop();
  }
}

export function describeImport(s: ImportSummary): string {
  return `imported ${s.workouts_added} of ${s.workouts_in_file} workouts (${s.workouts_skipped} already in the record), ${s.exercises_added} new exercises`;
}
