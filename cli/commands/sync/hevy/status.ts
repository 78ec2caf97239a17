import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';
import { describeHevyStatus } from '../../../sync.ts';
import type { HevySyncStatus } from '../../../../services/sync/hevy-sync.ts';

export default class SyncHevyStatus extends AppCommand {
  static override description = "An athlete's Hevy sync: connected or not, the position, the last run's result or error, the next run";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<HevySyncStatus & { athlete_id: string }> {
    const { flags } = await this.parse(SyncHevyStatus);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const status = await app.hevy.status(athlete.athlete_id);
    for (const line of describeHevyStatus(status)) this.log(line);
    return { athlete_id: athlete.athlete_id, ...status };
  }
}
