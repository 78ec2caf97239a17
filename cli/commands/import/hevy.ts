import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag } from '../../athlete.ts';
import { progressBar } from '../../progress.ts';
import type { ImportSummary } from '../../import.ts';

export default class ImportHevy extends AppCommand {
  static override description = "Import a Hevy CSV export into an athlete's record (all of the file, or nothing)";
  static override flags = {
    athlete: athleteFlag,
    file: Flags.file({ required: true, description: 'the CSV file Hevy exported' }),
  };

  async run(): Promise<ImportSummary> {
    const { parseHevy } = await import('../../../services/import/hevy.ts');
    const { describeImport, importFile } = await import('../../import.ts');
    const { flags } = await this.parse(ImportHevy);
    const summary = await importFile(
      await this.app(),
      { app: 'hevy', athlete: flags.athlete, file: flags.file, log: (l) => this.logToStderr(l), progress: progressBar('saving', this.progressEnabled()) },
      (text, athlete) => parseHevy(text, { timezone: athlete.profile.timezone }),
    );
    this.log(describeImport(summary));
    return summary;
  }
}
