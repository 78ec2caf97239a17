import { Flags } from '@oclif/core';
import { DomainError } from '../../../services/domain/errors.ts';
import { athleteIdOf, auditFlags } from '../../audit.ts';
import { AppCommand } from '../../base.ts';
import { progressBar } from '../../progress.ts';

export default class ReceiptsVerify extends AppCommand {
  static override description =
    `Recompute the receipt chains from the event log and report the first broken link; check the read model's copies of the receipts against the log and report each that differs (drift). Exit 1 for either.
Each commit and undo of a proposal is a link: SHA-256 over the previous link and the canonical JSON of its minimal receipt and the record changes it made. See docs/decisions.md for what this proves and what it does not.`;

  static override flags = {
    ...auditFlags,
    head: Flags.string({
      description: 'a head digest recorded earlier with `receipts head` (needs --athlete): also check that it is still a link of the chain',
      dependsOn: ['athlete'],
    }),
  };

  static override examples = ['<%= config.bin %> receipts verify', '<%= config.bin %> receipts verify --athlete ada@example.com --head 3f1c…e9 --json'];

  async run() {
    const { athleteName, driftReport, verifyChains } = await import('../../../services/audit/audit.ts');
    const { flags } = await this.parse(ReceiptsVerify);
    if (flags.head !== undefined && !/^[0-9a-f]{64}$/i.test(flags.head))
      throw new DomainError('invalid_input', `--head must be a SHA-256 digest (64 hex digits), not "${flags.head}"`);
    const app = await this.app();
    const bar = progressBar('Verifying receipt chains', this.progressEnabled());
    let verified: Awaited<ReturnType<typeof verifyChains>>;
    try {
      verified = await verifyChains(app, await athleteIdOf(app, flags.athlete), (done, total) => bar.update(done, total), { head: flags.head, drift: true });
    } finally {
      bar.stop();
    }
    const { chains, drift } = verified;
    const failed = chains.find((c) => c.broken) ?? null;
    const broken = failed && { athlete_id: failed.athlete_id, athlete_email: failed.athlete_email, ...failed.broken! };
    if (!this.jsonEnabled()) {
      for (const c of chains) {
        if (c.broken) continue;
        const unlinked = c.unlinked ? `; ${c.unlinked} receipt(s) from before the chain, not covered` : '';
        this.log(
          `athlete ${athleteName(c.athlete_email, c.athlete_id)}: ${c.links} link(s) hold${c.head ? `, head #${c.head.sequence} ${c.head.digest}` : ''}${unlinked}`,
        );
      }
      if (broken) {
        const where = broken.command_id ? ` (${broken.event} of proposal ${broken.command_id}, stream revision ${broken.revision})` : '';
        this.logToStderr(`BROKEN: athlete ${athleteName(broken.athlete_email, broken.athlete_id)}, link #${broken.sequence}${where}: ${broken.reason}`);
      } else {
        this.log(`${chains.length} receipt chain(s) verified.`);
      }
      for (const line of driftReport(drift)) this.logToStderr(line);
      if (!broken && !drift.length) this.log("The read model's copies of the receipts agree with the event log.");
    }
    // A broken chain or drift is the answer, not a failure of the command: the report is printed whole, then the exit says it.
    if (broken || drift.length) process.exitCode = 1;
    return { ok: !broken && drift.length === 0, chains, broken, drift };
  }
}
