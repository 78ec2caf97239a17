import { athleteIdOf, auditFlags, table } from '../../audit.ts';
import { AppCommand } from '../../base.ts';
import { progressBar } from '../../progress.ts';

export default class ReceiptsHead extends AppCommand {
  static override description = `Print each athlete's receipt chain head: the digest of its last link, recomputed from the event log.
Keep it somewhere the store's operators cannot write; \`receipts verify --athlete … --head DIGEST\` later proves that nothing up to it changed.`;

  static override flags = auditFlags;

  static override examples = ['<%= config.bin %> receipts head', '<%= config.bin %> receipts head --athlete ada@example.com --json'];

  async run() {
    const { verifyChains } = await import('../../../services/audit/audit.ts');
    const { flags } = await this.parse(ReceiptsHead);
    const app = await this.app();
    const bar = progressBar('Reading receipt chains', this.progressEnabled());
    let chains: Awaited<ReturnType<typeof verifyChains>>['chains'];
    try {
      ({ chains } = await verifyChains(app, await athleteIdOf(app, flags.athlete), (done, total) => bar.update(done, total)));
    } finally {
      bar.stop();
    }
    const heads = chains.map((c) => ({
      athlete_id: c.athlete_id,
      athlete_email: c.athlete_email,
      links: c.links,
      sequence: c.head?.sequence ?? 0,
      digest: c.head?.digest ?? null,
      at: c.head?.at ?? null,
      broken: c.broken,
    }));
    const failed = heads.find((h) => h.broken);
    if (!this.jsonEnabled()) {
      const rows = heads
        .filter((h) => !h.broken)
        .map((h) => [h.athlete_id, h.athlete_email ?? '(deleted)', String(h.sequence), h.digest ?? '(no links yet)', h.at ?? '']);
      for (const line of table(['ATHLETE', 'E-MAIL', 'LINKS', 'HEAD DIGEST', 'AT'], rows)) this.log(line);
      if (failed)
        this.logToStderr(
          `BROKEN: athlete ${failed.athlete_id}, link #${failed.broken!.sequence}: ${failed.broken!.reason}; run \`repledger receipts verify --athlete ${failed.athlete_id}\``,
        );
    }
    // A broken chain has no head worth keeping.
    if (failed) process.exitCode = 1;
    return { heads };
  }
}
