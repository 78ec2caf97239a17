import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';

export default class SyncHevyResume extends AppCommand {
  static override description = "Resume an athlete's paused Hevy sync";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<{ athlete_id: string; paused: boolean }> {
    const { flags } = await this.parse(SyncHevyResume);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    await app.hevy.setPaused(athlete.athlete_id, false, { type: 'operator', id: 'cli' });
    this.log('Hevy sync resumed');
    return { athlete_id: athlete.athlete_id, paused: false };
  }
}
