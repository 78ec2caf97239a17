import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';
import { progressBar } from '../../../progress.ts';
import { describeSummary } from '../../../sync.ts';
import type { HevySyncSummary } from '../../../../services/domain/hevy-sync.ts';

export default class SyncHevyRun extends AppCommand {
  static override description =
    "Sync an athlete's Hevy account now: the workouts created, edited and deleted in Hevy since the last run, in one change to the record";
  static override flags = { athlete: athleteFlag };

  async run(): Promise<HevySyncSummary & { athlete_id: string }> {
    const { flags } = await this.parse(SyncHevyRun);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const bar = progressBar("reading Hevy's workout events, page", this.progressEnabled());
    try {
      const summary = await app.hevy.run(athlete.athlete_id, {
        onProgress: (p) => {
          if ('page' in p) bar.update(p.page, p.page_count);
          else this.logToStderr(`Hevy asked us to wait ${Math.ceil(p.waiting_ms / 1000)} s`);
        },
      });
      bar.stop();
      this.log(describeSummary(summary));
      for (const s of summary.skipped) this.log(`skipped Hevy workout ${s.hevy_id}: ${s.reason}`);
      return { athlete_id: athlete.athlete_id, ...summary };
    } finally {
      bar.stop();
    }
  }
}
