import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';

export default class SyncHevyDisconnect extends AppCommand {
  static override description = "Disconnect an athlete's Hevy account: the API key is deleted (its encryption key destroyed); synced workouts stay";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<{ athlete_id: string; disconnected: boolean }> {
    const { flags } = await this.parse(SyncHevyDisconnect);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const { disconnected } = await app.hevy.disconnect(athlete.athlete_id, { type: 'operator', id: 'cli' });
    this.log(disconnected ? 'Hevy disconnected; its API key is deleted' : 'Hevy was not connected');
    return { athlete_id: athlete.athlete_id, disconnected };
  }
}
