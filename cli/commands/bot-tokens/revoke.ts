import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';

export default class BotTokensRevoke extends AppCommand {
  static override description = 'Revoke a bot token; the next request with it is refused';
  static override flags = {
    athlete: athleteFlag,
    // Ids are uuids, written in lower case: one pasted in upper case is the same id.
    id: Flags.string({ required: true, description: 'the token id (see bot-tokens list)', parse: async (id) => id.toLowerCase() }),
  };

  async run(): Promise<{ token_id: string; revoked: true }> {
    const { flags } = await this.parse(BotTokensRevoke);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    await app.botTokens.revoke(athlete.athlete_id, flags.id, { type: 'operator', id: 'cli' });
    this.log(`revoked ${flags.id}`);
    return { token_id: flags.id, revoked: true };
  }
}
