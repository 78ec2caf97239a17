import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';
import { progressBar } from '../../progress.ts';

export default class ProjectionsReplay extends AppCommand {
  static override description = 'Rebuild read models from the first event into fresh collections, then swap them in';
  static override flags = {
    projection: Flags.string({ description: 'rebuild only this projection (see projections status)', multiple: true }),
  };

  async run(): Promise<{ projections: string[]; events: number; position: number }> {
    const { flags } = await this.parse(ProjectionsReplay);
    const app = await this.app();
    const names = flags.projection ?? app.runner.projections.map((p) => p.name);
    const bar = progressBar('replaying', this.progressEnabled());
    const result = await app.runner.replay(names, (done, total) => bar.update(done, total));
    bar.stop();
    this.log(`rebuilt ${names.join(', ')} from ${result.events} events (up to position ${result.position})`);
    return { projections: names, ...result };
  }
}
