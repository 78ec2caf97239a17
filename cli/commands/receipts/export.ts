import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Flags } from '@oclif/core';
import type { Drift } from '../../../services/audit/audit.ts';
import { DomainError } from '../../../services/domain/errors.ts';
import { athleteIdOf, auditFlags } from '../../audit.ts';
import { AppCommand } from '../../base.ts';
import { OutputFile } from '../../output-file.ts';
import { progressBar } from '../../progress.ts';

export default class ReceiptsExport extends AppCommand {
  static override description = `Export every receipt of one athlete or all athletes as JSON Lines (one receipt a line), streamed; progress on stderr.
The receipts are read from the event log (each athlete's record stream once), in the order of their commits; where the read model's copy of one differs, it names the fields on stderr and exits 1.`;

  static override flags = {
    ...auditFlags,
    output: Flags.string({
      char: 'o',
      description: 'write the lines to this file instead of stdout (then stdout gets a summary, or JSON with --json); - is stdout',
    }),
  };

  static override examples = [
    '<%= config.bin %> receipts export --athlete ada@example.com > ada-receipts.jsonl',
    '<%= config.bin %> receipts export --output receipts.jsonl --json',
  ];

  async run(): Promise<{ receipts: number; output: string; drift: Drift[] }> {
    const { driftReport, exportReceipts } = await import('../../../services/audit/audit.ts');
    const { flags: given } = await this.parse(ReceiptsExport);
    // `-` is stdout, as for `export --file -`, not a file of that name.
    const flags = { ...given, output: given.output === '-' ? undefined : given.output };
    // The lines are JSON already; a JSON summary mixed into them would spoil both.
    if (this.jsonEnabled() && !flags.output)
      throw new DomainError('invalid_input', '--json needs --output: without it the receipts themselves are written to stdout as JSON Lines');
    const app = await this.app();
    const athleteId = await athleteIdOf(app, flags.athlete);
    const file = flags.output ? await OutputFile.open(flags.output) : null;
    const out: Writable = file?.stream ?? process.stdout;
    const bar = progressBar('Exporting receipts', !this.jsonEnabled() || Boolean(flags.output));
    const drift: Drift[] = [];
    let count = 0;
    try {
      for await (const row of exportReceipts(
        app,
        athleteId,
        (done, total) => bar.update(done, total),
        (d) => drift.push(d),
      )) {
        // Respect back-pressure, so that memory stays flat however many receipts there are.
        if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
        count++;
      }
      await file?.commit();
    } catch (error) {
      file?.abandon();
      throw error;
    } finally {
      bar.stop();
    }
    if (flags.output) this.log(`Exported ${count} receipt${count === 1 ? '' : 's'} to ${flags.output}.`);
    else process.stderr.write(`Exported ${count} receipt${count === 1 ? '' : 's'}.\n`);
    if (!this.jsonEnabled()) for (const line of driftReport(drift)) this.logToStderr(line);
    // The file holds the log's receipts either way; the exit says the read model disagrees.
    if (drift.length) process.exitCode = 1;
    return { receipts: count, output: flags.output ?? '-', drift };
  }
}
