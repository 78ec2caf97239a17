import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';
import type { ImportSummary } from '../../import.ts';
import { progressBar } from '../../progress.ts';

export interface AppleHealthSummary extends ImportSummary {
  measurements_added: number;
  meals_added: number;
  /** Measurements and meals already in the record. */
  others_skipped: number;
}

export default class ImportAppleHealth extends AppCommand {
  static override description =
    "Import the Health app's export (export.zip, or the export.xml in it) into an athlete's record: workouts, body mass and body fat, " +
    "and each day's dietary energy and macronutrients as one meal. Read as a stream, whatever its size; all of it, or nothing.";
  static override examples = ['<%= config.bin %> import apple-health --athlete ada@example.com --file ~/Downloads/export.zip'];
  static override flags = {
    athlete: athleteFlag,
    file: Flags.file({ required: true, description: 'the export.zip the Health app wrote (Health > your picture > Export All Health Data)' }),
  };

  async run(): Promise<AppleHealthSummary> {
    const { importAppleHealth } = await import('../../../services/import/apple-health.ts');
    const { checkInputFile } = await import('../../input-file.ts');
    const { basename } = await import('node:path');
    const { flags } = await this.parse(ImportAppleHealth);
    await checkInputFile(flags.file);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const fileName = basename(flags.file);
    const progress = progressBar('saving', this.progressEnabled());
    this.logToStderr(`reading ${fileName}`);
    try {
      const result = await importAppleHealth(app, athlete, {
        path: flags.file,
        fileName,
        checked: (d) =>
          this.logToStderr(
            `saving ${d.workouts.length} workouts, ${d.measurements.length} body measurements and ${d.meals.length} days of meals from ${fileName}`,
          ),
        ...(progress.enabled !== false ? { progress: (done: number, total: number) => progress.update(done, total) } : {}),
      });
      const others = result.others ?? { measurements_added: 0, meals_added: 0, skipped: 0 };
      const summary: AppleHealthSummary = {
        athlete_id: athlete.athlete_id,
        file: flags.file,
        workouts_in_file: result.workouts_in_file,
        workouts_added: result.workouts_added,
        workouts_skipped: result.workouts_skipped,
        exercises_added: result.exercises_added,
        measurements_added: others.measurements_added,
        meals_added: others.meals_added,
        others_skipped: others.skipped,
      };
      this.log(
        `imported ${summary.workouts_added} of ${summary.workouts_in_file} workouts (${summary.workouts_skipped} already in the record), ` +
          `${summary.measurements_added} body measurements and ${summary.meals_added} days of meals (${summary.others_skipped} already in the record), ${summary.exercises_added} new exercises`,
      );
      return summary;
    } finally {
      progress.stop();
    }
  }
}
