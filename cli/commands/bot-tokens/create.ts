import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';

export default class BotTokensCreate extends AppCommand {
  static override description = 'Create a named Read API bot token for an athlete; prints the token once';
  static override flags = {
    athlete: athleteFlag,
    name: Flags.string({ required: true, description: 'what the token is for, e.g. "Discord stats bot"' }),
  };

  async run(): Promise<{ token_id: string; token: string }> {
    const { flags } = await this.parse(BotTokensCreate);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const created = await app.botTokens.create(athlete.athlete_id, flags.name, { type: 'operator', id: 'cli' });
    this.log(created.token);
    this.logToStderr('Shown only this once: store it where the bot reads its secrets.');
    return created;
  }
}
