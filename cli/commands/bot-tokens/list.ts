import type { BotTokenDoc } from '../../../projections/bot-tokens.ts';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';

export default class BotTokensList extends AppCommand {
  static override description = "List an athlete's bot tokens (never the tokens themselves)";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<{ tokens: Array<Omit<BotTokenDoc, 'token_sha256'>> }> {
    const { flags } = await this.parse(BotTokensList);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const tokens = (await app.botTokens.list(athlete.athlete_id)).map(({ token_sha256: _hash, ...rest }) => rest);
    const rows = [['ID', 'NAME', 'CREATED', 'STATUS'], ...tokens.map((t) => [t.id, t.name, t.created_at, t.revoked_at ? `revoked ${t.revoked_at}` : 'active'])];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows)
      this.log(
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
    return { tokens };
  }
}
