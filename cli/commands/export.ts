import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Flags } from '@oclif/core';
import { EXPORT_FORMAT } from '../../contracts/policy.ts';
import type { ExportSection } from '../../contracts/export.ts';
import { DomainError } from '../../services/domain/errors.ts';
import { athleteFlag, findAthlete } from '../athlete.ts';
import { AppCommand } from '../base.ts';
import { OutputFile } from '../output-file.ts';
import { progressBar } from '../progress.ts';

export default class Export extends AppCommand {
  static override description =
    `Export an athlete's whole record as one JSON document (${EXPORT_FORMAT}): every item with its id, revision and times, in kg, metres and seconds, and the profile's timezone, units and name. \`import repledger\` brings it into an empty account. Progress on stderr.`;

  static override flags = {
    athlete: athleteFlag,
    file: Flags.string({ char: 'f', required: true, description: 'where to write the document (never overwritten), or - for stdout' }),
  };

  static override examples = [
    '<%= config.bin %> export --athlete ada@example.com --file ada-record.json',
    '<%= config.bin %> export --athlete ada@example.com --file - | gzip > ada-record.json.gz',
  ];

  async run(): Promise<{ athlete_id: string; file: string; items: number; sections: Record<ExportSection, number> }> {
    const { exportRecord } = await import('../../services/export/record-export.ts');
    const { flags } = await this.parse(Export);
    const toStdout = flags.file === '-';
    // The document is JSON already; a JSON summary mixed into it would spoil both.
    if (this.jsonEnabled() && toStdout)
      throw new DomainError('invalid_input', '--json needs --file PATH: with --file - the document itself is written to stdout');
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const file = toStdout ? null : await OutputFile.open(flags.file);
    const out: Writable = file?.stream ?? process.stdout;
    const bar = progressBar('Exporting', this.progressEnabled() || !toStdout);
    let dump: Awaited<ReturnType<typeof exportRecord>>;
    try {
      dump = await exportRecord(app, athlete.athlete_id);
      for await (const chunk of dump.chunks((done, total) => bar.update(done, total))) {
        // Respect back-pressure, so that memory stays flat however large the record.
        if (!out.write(chunk)) await once(out, 'drain');
      }
      await file?.commit();
    } catch (error) {
      file?.abandon();
      throw error;
    } finally {
      bar.stop();
    }
    const summary = `Exported ${dump.items} item${dump.items === 1 ? '' : 's'} (${dump.counts.workouts} workouts, ${dump.counts.exercises} exercises)`;
    if (toStdout) process.stderr.write(`${summary}.\n`);
    else this.log(`${summary} to ${flags.file}.`);
    return { athlete_id: athlete.athlete_id, file: flags.file, items: dump.items, sections: dump.counts };
  }
}
