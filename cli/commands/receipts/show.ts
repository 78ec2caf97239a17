import { athleteIdOf, auditFlags, commandIdArg, commandIdOf } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

export default class ReceiptsShow extends AppCommand {
  static override description = `One committed proposal's receipt and its links in the athlete's receipt chain, as the event log holds them.
Where the read model's copy differs from the log, it names the fields on stderr and exits 1.`;

  static override args = { command_id: commandIdArg };
  static override flags = auditFlags;

  static override examples = ['<%= config.bin %> receipts show 0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11 --json'];

  async run() {
    const { athleteName, driftIn, driftReport, showReceipt } = await import('../../../services/audit/audit.ts');
    const { args, flags } = await this.parse(ReceiptsShow);
    const commandId = commandIdOf(args.command_id);
    const app = await this.app();
    const r = await showReceipt(app, commandId, await athleteIdOf(app, flags.athlete));
    if (!this.jsonEnabled()) {
      this.log(`Receipt of proposal ${r.command_id} (athlete ${athleteName(r.athlete_email, r.athlete_id)}), as the event log holds it`);
      if (r.receipt) {
        this.log(`  committed    ${r.receipt.committed_at}`);
        this.log(`  approved by  the ${r.receipt.approved_by}`);
        this.log(`  client       ${r.receipt.client.name} (${r.receipt.client.client_id})`);
        if (r.undone_at) this.log(`  undone       ${r.undone_at}`);
        for (const c of r.receipt.changes)
          this.log(`  #${c.index} ${c.op} ${c.kind} ${c.id}: revision ${c.revision_before ?? '(new)'} -> ${c.revision_after ?? '(none)'}`);
        this.log(`  chain link   ${r.receipt_link ? `#${r.receipt_link.sequence} ${r.receipt_link.digest}` : 'none (committed before the chain)'}`);
        if (r.undo_link) this.log(`  undo link    #${r.undo_link.sequence} ${r.undo_link.digest}`);
      } else {
        this.log('  none: the event log holds no commit of this proposal');
      }
      for (const line of driftReport(driftIn([r]))) this.logToStderr(line);
    }
    // Drift is the answer, not a failure of the command: the log's receipt is printed, then the exit says it.
    if (r.drift.length) process.exitCode = 1;
    return r;
  }
}
