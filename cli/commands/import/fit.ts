import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';
import { progressBar } from '../../progress.ts';

export interface FitImportSummary {
  athlete_id: string;
  file: string;
  /** Activity and weight-scale FIT files read; FIT files of other types in a zip, passed over. */
  fit_files: number;
  fit_files_ignored: number;
  workouts_in_file: number;
  workouts_added: number;
  workouts_skipped: number;
  exercises_added: number;
  measurements_added: number;
  /** Body measurements already in the record (their weight-scale file imported before). */
  measurements_skipped: number;
}

export default class ImportFit extends AppCommand {
  static override description =
    "Import Garmin FIT files (one .fit, or a zip of them) into an athlete's record: strength-training activities with their sets, other activities with their duration and distance, weight-scale readings as body measurements. Files already imported are skipped by their file id; all of the upload, or nothing.";
  static override examples = [
    '<%= config.bin %> import fit --athlete ada@example.com --file ~/Downloads/21034567890_ACTIVITY.fit',
    '<%= config.bin %> import fit --athlete ada@example.com --file ~/Downloads/garmin-week.zip',
  ];
  static override flags = {
    athlete: athleteFlag,
    file: Flags.file({ required: true, description: 'a .fit file from a Garmin device or Garmin Connect ("Export Original"), or a zip of .fit files' }),
  };

  async run(): Promise<FitImportSummary> {
    const { importGarmin } = await import('../../../services/import/garmin.ts');
    const { readInputFile } = await import('../../input-file.ts');
    const { basename } = await import('node:path');
    const { flags } = await this.parse(ImportFit);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const bytes = await readInputFile(flags.file);
    const fileName = basename(flags.file);
    const progress = progressBar('saving', this.progressEnabled());
    try {
      const result = await importGarmin(app, athlete, {
        fileName,
        bytes,
        // Said once the files are read and checked: a refused upload is not announced as being saved.
        checked: (d) =>
          this.logToStderr(`saving ${d.workouts.length} workouts and ${d.measurements.length} body measurements from ${d.files} FIT files in ${fileName}`),
        ...(progress.enabled !== false ? { progress: (done: number, total: number) => progress.update(done, total) } : {}),
      });
      const others = result.others ?? { measurements_added: 0, meals_added: 0, skipped: 0 };
      const summary: FitImportSummary = {
        athlete_id: athlete.athlete_id,
        file: flags.file,
        fit_files: result.fit_files,
        fit_files_ignored: result.fit_files_ignored,
        workouts_in_file: result.workouts_in_file,
        workouts_added: result.workouts_added,
        workouts_skipped: result.workouts_skipped,
        exercises_added: result.exercises_added,
        measurements_added: others.measurements_added,
        measurements_skipped: others.skipped,
      };
      this.log(describeFitImport(summary));
      return summary;
    } finally {
      progress.stop();
    }
  }
}

function describeFitImport(s: FitImportSummary): string {
  const ignored = s.fit_files_ignored ? ` (${s.fit_files_ignored} FIT files of other kinds passed over)` : '';
  return (
    `read ${s.fit_files} FIT files${ignored}: imported ${s.workouts_added} of ${s.workouts_in_file} workouts (${s.workouts_skipped} already in the record), ` +
    `${s.measurements_added} body measurements (${s.measurements_skipped} already in the record), ${s.exercises_added} new exercises`
  );
}
