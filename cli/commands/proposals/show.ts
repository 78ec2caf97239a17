import { athleteIdOf, auditFlags, commandIdArg, commandIdOf } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

export default class ProposalsShow extends AppCommand {
  static override description = `Show one proposal: its changes (with their summaries while retention keeps them), its outcome and its receipt.
The receipt is the event log's; where the read model's copy differs, it names the fields on stderr and exits 1.`;

  static override args = { command_id: commandIdArg };
  static override flags = auditFlags;

  static override examples = [
    '<%= config.bin %> proposals show 0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11',
    '<%= config.bin %> proposals show 0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11 --athlete ada@example.com --json',
  ];

  async run() {
    const { athleteName, driftIn, driftReport, showProposal } = await import('../../../services/audit/audit.ts');
    const { args, flags } = await this.parse(ProposalsShow);
    const commandId = commandIdOf(args.command_id);
    const app = await this.app();
    const p = await showProposal(app, commandId, await athleteIdOf(app, flags.athlete));
    if (!this.jsonEnabled()) {
      this.log(`Proposal ${p.command_id}`);
      this.log(`  athlete   ${athleteName(p.athlete_email, p.athlete_id)}`);
      this.log(`  client    ${p.client.name} (${p.client.client_id}), grant ${p.grant_id}`);
      this.log(`  status    ${p.status}`);
      this.log(`  prepared  ${p.prepared_at}, expires ${p.expires_at}`);
      if (p.decided_at) this.log(`  decided   ${p.decided_at}`);
      if (p.undone_at) this.log(`  undone    ${p.undone_at}`);
      if (p.conflict)
        this.log(
          `  conflict  ${p.conflict.kind} ${p.conflict.id} ${p.conflict.reason}${p.conflict.action_index === null ? ' (a record relied on)' : ` (action #${p.conflict.action_index})`}`,
        );
      this.log('Changes');
      for (const c of p.changes)
        this.log(
          `  #${c.index} ${c.op} ${c.kind} ${c.id}${c.base_revision === null ? '' : ` at revision ${c.base_revision}`}: ${c.summary ?? '(summary removed by retention)'}`,
        );
      if (p.receipt) {
        this.log(`Receipt: committed ${p.receipt.committed_at}, approved by the ${p.receipt.approved_by}`);
        for (const c of p.receipt.changes)
          this.log(`  #${c.index} ${c.op} ${c.kind} ${c.id}: revision ${c.revision_before ?? '(new)'} -> ${c.revision_after ?? '(none)'}`);
        if (p.receipt_link) this.log(`  receipt chain link #${p.receipt_link.sequence} ${p.receipt_link.digest}`);
        if (p.undo_link) this.log(`  undo chain link #${p.undo_link.sequence} ${p.undo_link.digest}`);
      } else {
        this.log('Receipt: none (not committed)');
      }
      for (const line of driftReport(driftIn([p]))) this.logToStderr(line);
    }
    if (p.drift.length) process.exitCode = 1;
    return p;
  }
}
