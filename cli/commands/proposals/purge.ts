import { AppCommand } from '../../base.ts';
import { WRITE_POLICY } from '../../../contracts/policy.ts';

export default class ProposalsPurge extends AppCommand {
  static override description =
    `Remove the full recovery data of proposals older than ${WRITE_POLICY.recoveryRetentionDays} days (their actions and earlier values); minimal receipts stay. The server also does this every hour.`;

  static override examples = ['<%= config.bin %> proposals purge', '<%= config.bin %> proposals purge --json'];

  async run(): Promise<{ keys_destroyed: number; cutoff: string }> {
    await this.parse(ProposalsPurge);
    const app = await this.app();
    const { keysDestroyed, cutoff } = await app.proposals.purge();
    this.log(`Removed the recovery data of ${keysDestroyed} proposal${keysDestroyed === 1 ? '' : 's'} prepared before ${cutoff}.`);
    return { keys_destroyed: keysDestroyed, cutoff };
  }
}
