import { basename } from 'node:path';
import { Flags } from '@oclif/core';
import { EXPORT_FORMAT } from '../../../contracts/policy.ts';
import type { RecordImportResult } from '../../../services/import/repledger.ts';
import { AppCommand } from '../../base.ts';
import { readInputFile } from '../../input-file.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';
import { progressBar } from '../../progress.ts';

export default class ImportRepledger extends AppCommand {
  static override description =
    `Import a RepLedger export (${EXPORT_FORMAT}, from \`repledger export\` or "Download my record") into an empty account: the same ids, revisions and values, and the export's timezone, units and name. All of it, or nothing.`;
  static override flags = {
    athlete: athleteFlag,
    file: Flags.file({ required: true, description: 'the JSON document `repledger export` wrote' }),
  };

  static override examples = ['<%= config.bin %> import repledger --athlete ada.new@example.com --file ada-record.json'];

  async run(): Promise<RecordImportResult> {
    const { importRecordExport } = await import('../../../services/import/repledger.ts');
    const { flags } = await this.parse(ImportRepledger);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const bar = progressBar('saving', this.progressEnabled());
    let result: RecordImportResult;
    try {
      result = await importRecordExport(app, athlete, {
        fileName: basename(flags.file),
        bytes: await readInputFile(flags.file),
        ...(bar.enabled !== false ? { progress: (done: number, total: number) => bar.update(done, total) } : {}),
      });
    } finally {
      bar.stop();
    }
    this.log(
      `imported ${result.items_added} items (${result.workouts_added} workouts, ${result.exercises_added} exercises)${result.profile_updated ? "; the account now has the export's timezone, units and name" : ''}`,
    );
    return result;
  }
}
