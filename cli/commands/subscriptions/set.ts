import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';

export default class SubscriptionsSet extends AppCommand {
  static override description = "Set an athlete's subscription tier (Agent Access needs pro)";
  static override flags = {
    athlete: Flags.string({ required: true, description: "the athlete's e-mail" }),
    tier: Flags.string({ required: true, options: ['free', 'pro'] }),
  };

  async run(): Promise<{ athlete_id: string; tier: string }> {
    const { flags } = await this.parse(SubscriptionsSet);
    const app = await this.app();
    const state = await app.athletes.setTier(flags.athlete, flags.tier as 'free' | 'pro', { type: 'operator', id: 'cli' });
    this.log(`${state.email} is on the ${state.tier} tier`);
    return { athlete_id: state.athlete_id, tier: state.tier };
  }
}
