import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { accessOf, describeState, sideArg, TAKES_EFFECT } from '../../maintenance.ts';
import type { MaintenanceState } from '../../../services/operations/maintenance.ts';

export default class MaintenancePause extends AppCommand {
  static override description = 'Pause reads (Agent Access and the Read API) or writes: callers get 503 with Retry-After until resumed';
  static override args = { side: sideArg };
  static override flags = {
    'retry-after': Flags.integer({ default: 120, min: 1, max: 86_400, description: 'seconds callers are told to wait before retrying' }),
  };

  async run(): Promise<MaintenanceState> {
    const { args, flags } = await this.parse(MaintenancePause);
    const app = await this.app();
    const state = await app.maintenance.set(accessOf(args.side), flags['retry-after'], 'operator:cli');
    for (const line of describeState(state)) this.log(line);
    this.log(TAKES_EFFECT);
    return state;
  }
}
