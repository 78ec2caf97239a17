import { athleteIdOf, auditFlags, commandIdArg, commandIdOf, table } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

export default class ProposalsHistory extends AppCommand {
  static override description = "Every event of a proposal's life cycle, read from the event log: when, by whom, what it did";

  static override args = { command_id: commandIdArg };
  static override flags = auditFlags;

  static override examples = [
    '<%= config.bin %> proposals history 0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11',
    '<%= config.bin %> proposals history 0b7d1c52-3f4e-4c3a-9a51-2f1d6f0e8a11 --json',
  ];

  async run() {
    const { athleteName, proposalHistory } = await import('../../../services/audit/audit.ts');
    const { args, flags } = await this.parse(ProposalsHistory);
    const commandId = commandIdOf(args.command_id);
    const app = await this.app();
    const history = await proposalHistory(app, commandId, await athleteIdOf(app, flags.athlete));
    if (!this.jsonEnabled()) {
      this.log(`Proposal ${history.command_id} of athlete ${athleteName(history.athlete_email, history.athlete_id)}`);
      const rows = history.events.map((e) => [e.at, e.type.replace('proposal.', ''), `${e.actor.type}:${e.actor.id}`, String(e.revision), e.detail]);
      for (const line of table(['AT', 'EVENT', 'ACTOR', 'REVISION', 'WHAT'], rows)) this.log(line);
    }
    return history;
  }
}
