import type { ProjectionStatus } from '../../../projections/runner.ts';
import { AppCommand } from '../../base.ts';

export default class ProjectionsStatus extends AppCommand {
  static override description = 'Show the checkpoint and lag of each projection';

  async run(): Promise<{ mode: string; projections: ProjectionStatus[] }> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(ProjectionsStatus);
    const app = await this.app();
    const projections = await app.runner.status();
    const rows = [['PROJECTION', 'CHECKPOINT', 'HEAD', 'LAG (EVENTS)'], ...projections.map((p) => [p.name, String(p.checkpoint), String(p.head), String(p.lag_events)])];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) this.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
    return { mode: app.projectionMode, projections };
  }
}
