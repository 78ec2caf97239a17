import { AppCommand } from '../../base.ts';
import { accessOf, describeState, sideArg, TAKES_EFFECT } from '../../maintenance.ts';
import type { MaintenanceState } from '../../../services/operations/maintenance.ts';

export default class MaintenanceResume extends AppCommand {
  static override description = 'Resume reads (Agent Access and the Read API) or writes after a pause';
  static override args = { side: sideArg };

  async run(): Promise<MaintenanceState> {
    const { args } = await this.parse(MaintenanceResume);
    const app = await this.app();
    const state = await app.maintenance.set(accessOf(args.side), null, 'operator:cli');
    for (const line of describeState(state)) this.log(line);
    this.log(TAKES_EFFECT);
    return state;
  }
}
