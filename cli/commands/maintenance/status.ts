import { AppCommand } from '../../base.ts';
import { describeState } from '../../maintenance.ts';
import type { MaintenanceState } from '../../../services/operations/maintenance.ts';

export default class MaintenanceStatus extends AppCommand {
  static override description = 'Show whether reads (Agent Access and the Read API) and writes are paused';

  async run(): Promise<MaintenanceState> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(MaintenanceStatus);
    const app = await this.app();
    const state = await app.maintenance.state();
    for (const line of describeState(state)) this.log(line);
    return state;
  }
}
