import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';

export default class SubscriptionsSet extends AppCommand {
  static override description = "Set an athlete's subscription tier (Agent Access needs pro)";
  static override flags = {
    athlete: athleteFlag,
    tier: Flags.string({ required: true, options: ['free', 'pro'] }),
  };

  async run(): Promise<{ athlete_id: string; tier: string }> {
    const { flags } = await this.parse(SubscriptionsSet);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const state = await app.athletes.setTier(athlete.email, flags.tier as 'free' | 'pro', { type: 'operator', id: 'cli' });
    this.log(`${state.email} is on the ${state.tier} tier`);
    return { athlete_id: state.athlete_id, tier: state.tier };
  }
}
