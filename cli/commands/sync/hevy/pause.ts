import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';

export default class SyncHevyPause extends AppCommand {
  static override description = "Pause an athlete's Hevy sync (no runs until resumed; the connection and position stay)";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<{ athlete_id: string; paused: boolean }> {
    const { flags } = await this.parse(SyncHevyPause);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    await app.hevy.setPaused(athlete.athlete_id, true, { type: 'operator', id: 'cli' });
    this.log('Hevy sync paused');
    return { athlete_id: athlete.athlete_id, paused: true };
  }
}
