import { ux } from '@oclif/core';
import type { AthleteDoc } from '../../../projections/athletes.ts';
import { AppCommand } from '../../base.ts';

export default class AthletesList extends AppCommand {
  static override description = 'List athletes, by e-mail';

  async run(): Promise<{ athletes: AthleteDoc[] }> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(AthletesList);
    const app = await this.app();
    const athletes: AthleteDoc[] = [];
    for (let page = await app.athletes.list(500); page.length > 0; ) {
      athletes.push(...page);
      const last = page[page.length - 1]!;
      page = page.length < 500 ? [] : await app.athletes.list(500, [last.email, last.id]);
    }
    if (!this.jsonEnabled()) {
      const rows = [
        ['ID', 'E-MAIL', 'NAME', 'TIMEZONE', 'UNITS', 'TIER'],
        ...athletes.map((a) => [a.id, a.email, a.display_name, a.timezone, a.unit_preference, a.tier]),
      ];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows)
        this.log(
          r
            .map((c, i) => c.padEnd(widths[i]!))
            .join('  ')
            .trimEnd(),
        );
      if (athletes.length === 0) this.logStyled(ux.colorize('dim', 'no athletes yet: repledger athletes create --help'));
    }
    return { athletes };
  }
}
