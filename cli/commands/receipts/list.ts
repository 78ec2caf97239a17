import { Flags } from '@oclif/core';
import { athleteIdOf, instantOf, listFlags, table } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

export default class ReceiptsList extends AppCommand {
  static override description =
    `List receipts of committed proposals (what was changed, when, by which client, approved by whom), newest first, as the event log holds them.
Where the read model's copy of one differs from the log, it names the fields on stderr and exits 1.`;

  static override flags = {
    ...listFlags,
    since: Flags.string({ description: 'only receipts committed at or after this time (ISO date or date-time, UTC when no offset)' }),
    until: Flags.string({ description: 'only receipts committed at or before this time (a date alone means the end of that day)' }),
  };

  static override examples = ['<%= config.bin %> receipts list --athlete ada@example.com', '<%= config.bin %> receipts list --since 2026-01-01 --json'];

  async run() {
    const { driftIn, driftReport, listReceipts } = await import('../../../services/audit/audit.ts');
    const { flags } = await this.parse(ReceiptsList);
    const since = instantOf('since', flags.since);
    const until = instantOf('until', flags.until);
    const app = await this.app();
    const receipts = await listReceipts(app, { athleteId: await athleteIdOf(app, flags.athlete), client: flags.client, since, until }, flags.limit);
    const drift = driftIn(receipts);
    if (!this.jsonEnabled()) {
      const rows = receipts.map((r) => [
        r.command_id,
        r.athlete_id,
        r.athlete_email ?? '(deleted)',
        r.receipt?.client.name ?? '(none in the event log)',
        r.receipt?.committed_at ?? '',
        r.receipt?.approved_by ?? '',
        r.receipt ? String(r.receipt.changes.length) : '',
        r.undone_at ?? '',
        r.receipt_link ? `#${r.receipt_link.sequence} ${r.receipt_link.digest.slice(0, 12)}` : '',
      ]);
      for (const line of table(['COMMAND ID', 'ATHLETE', 'E-MAIL', 'CLIENT', 'COMMITTED', 'APPROVED BY', 'CHANGES', 'UNDONE', 'LINK'], rows)) this.log(line);
      if (receipts.length === 0) this.log('no receipts match');
      for (const line of driftReport(drift)) this.logToStderr(line);
    }
    if (drift.length) process.exitCode = 1;
    return { receipts };
  }
}
