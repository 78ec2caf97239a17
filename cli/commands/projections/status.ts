import { leaseHolder, type LeaseHolder } from '../../../projections/lease.ts';
import type { ProjectionStatus } from '../../../projections/runner.ts';
import { AppCommand } from '../../base.ts';

export default class ProjectionsStatus extends AppCommand {
  static override description = 'Show the checkpoint and lag of each projection, and which worker holds the projector lease';

  async run(): Promise<{ mode: string; projections: ProjectionStatus[]; lease: LeaseHolder | null }> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(ProjectionsStatus);
    const app = await this.app();
    const projections = await app.runner.status();
    const rows = [
      ['PROJECTION', 'CHECKPOINT', 'HEAD', 'LAG (EVENTS)'],
      ...projections.map((p) => [p.name, String(p.checkpoint), String(p.head), String(p.lag_events)]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows)
      this.log(
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
    const lease = app.projectionMode === 'worker' ? await leaseHolder(app.reads) : null;
    if (app.projectionMode === 'worker') {
      const live = lease && Date.parse(lease.expires_at) > app.clock.now().getTime();
      this.log(
        lease
          ? `projector lease: ${lease.holder} (token ${lease.token}), ${live ? 'held until' : 'expired at'} ${lease.expires_at}`
          : 'projector lease: never taken (no worker has run)',
      );
    }
    return { mode: app.projectionMode, projections, lease };
  }
}
