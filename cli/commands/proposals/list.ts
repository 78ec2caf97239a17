import type { ProposalStatus } from '../../../contracts/write.ts';
import { athleteIdOf, instantOf, listFlags, statusFlag, table } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

export default class ProposalsList extends AppCommand {
  static override description = "List agents' write proposals, newest prepared first, of one athlete or all";

  static override flags = { ...listFlags, status: statusFlag };

  static override examples = [
    '<%= config.bin %> proposals list --athlete ada@example.com --status committed',
    '<%= config.bin %> proposals list --client "Claude" --since 2026-01-01 --until 2026-01-31 --json',
  ];

  async run() {
    const { listProposals } = await import('../../../services/audit/audit.ts');
    const { flags } = await this.parse(ProposalsList);
    const since = instantOf('since', flags.since);
    const until = instantOf('until', flags.until);
    const app = await this.app();
    const athleteId = await athleteIdOf(app, flags.athlete);
    const found = await listProposals(app, { athleteId, client: flags.client, status: flags.status as ProposalStatus | undefined, since, until }, flags.limit);
    const proposals = found.map((p) => ({
      athlete_id: p.athlete_id,
      athlete_email: p.athlete_email,
      command_id: p.doc.id,
      status: p.status,
      client: { client_id: p.doc.client_id, name: p.doc.client_name },
      prepared_at: p.doc.prepared_at,
      decided_at: p.doc.decided_at ?? (p.status === 'expired' ? p.doc.expires_at : null),
      undone_at: p.doc.undone_at,
      changes: p.doc.changes.length,
    }));
    if (!this.jsonEnabled()) {
      const rows = proposals.map((p) => [
        p.command_id,
        p.athlete_id,
        p.athlete_email ?? '(deleted)',
        p.client.name,
        p.status,
        p.prepared_at,
        p.undone_at ?? p.decided_at ?? '',
        String(p.changes),
      ]);
      for (const line of table(['COMMAND ID', 'ATHLETE', 'E-MAIL', 'CLIENT', 'STATUS', 'PREPARED', 'DECIDED', 'CHANGES'], rows)) this.log(line);
      if (proposals.length === 0) this.log('no proposals match');
    }
    return { proposals };
  }
}
