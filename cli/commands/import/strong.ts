import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag } from '../../athlete.ts';
import { progressBar } from '../../progress.ts';
import type { ImportSummary } from '../../import.ts';

export default class ImportStrong extends AppCommand {
  static override description = "Import a Strong CSV export into an athlete's record (all of the file, or nothing)";
  static override flags = {
    athlete: athleteFlag,
    file: Flags.file({ required: true, description: 'the CSV file Strong exported' }),
    'weight-unit': Flags.string({ options: ['kg', 'lbs'], description: "unit of the file's weights (default: the athlete's unit preference)" }),
    'distance-unit': Flags.string({ options: ['km', 'mi'], description: "unit of the file's distances (default: km for kg, mi for lbs)" }),
  };

  async run(): Promise<ImportSummary> {
    const { parseStrong } = await import('../../../services/import/strong.ts');
    const { describeImport, importFile } = await import('../../import.ts');
    const { flags } = await this.parse(ImportStrong);
    const summary = await importFile(
      await this.app(),
      { app: 'strong', athlete: flags.athlete, file: flags.file, log: (l) => this.logToStderr(l), progress: progressBar('saving', this.progressEnabled()) },
      (text, athlete) => {
        const weightUnit = (flags['weight-unit'] ?? athlete.profile.unit_preference) as 'kg' | 'lbs';
        const distanceUnit = (flags['distance-unit'] ?? (weightUnit === 'lbs' ? 'mi' : 'km')) as 'km' | 'mi';
        return parseStrong(text, { timezone: athlete.profile.timezone, weightUnit, distanceUnit });
      },
    );
    this.log(describeImport(summary));
    return summary;
  }
}
