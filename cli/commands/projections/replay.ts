import { Flags } from '@oclif/core';
import { DomainError } from '../../../services/domain/errors.ts';
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
    const known = app.runner.projections.map((p) => p.name);
    const names = flags.projection ?? known;
    const unknown = names.filter((n) => !known.includes(n));
    // Named before any work starts, as a refusal with a code, not a crash.
    if (unknown.length > 0) throw new DomainError('not_found', `no projection named ${unknown.join(', ')}; known: ${known.join(', ')}`);
    const bar = progressBar('replaying', this.progressEnabled());
    const result = await app.runner.replay(names, (done, total) => bar.update(done, total));
    bar.stop();
    this.log(`rebuilt ${names.join(', ')} from ${result.events} events (up to position ${result.position})`);
    return { projections: names, ...result };
  }
}
