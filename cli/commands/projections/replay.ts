import { Flags } from '@oclif/core';
import { DomainError } from '../../../services/domain/errors.ts';
import { leaseHolder, ProjectorLease } from '../../../projections/lease.ts';
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
    // With a projection worker, one process at a time writes read models: this one, while it
    // holds the projector lease, or none. A lease held by a running worker is refused, not waited
    // for: the worker would rebuild them itself (`projections run` rebuilds outdated ones).
    const lease = app.projectionMode === 'worker' ? new ProjectorLease(app.reads, app.clock, app.config.projectionLeaseMs) : null;
    if (lease && (await lease.acquire()) === null) {
      const holder = await leaseHolder(app.reads);
      throw new DomainError(
        'busy',
        `a projection worker (${holder?.holder ?? 'another process'}) holds the projector lease until ${holder?.expires_at ?? 'it stops'}; stop the projection workers, and restart the services with serve --no-projector, then replay`,
      );
    }
    app.runner.fencedBy(lease && ((docs) => lease.fence(docs)));
    const bar = progressBar('replaying', this.progressEnabled());
    let result: Awaited<ReturnType<typeof app.runner.replay>>;
    try {
      result = await app.runner.replay(names, (done, total) => bar.update(done, total));
    } finally {
      bar.stop();
      await lease?.release();
    }
    this.log(`rebuilt ${names.join(', ')} from ${result.events} events (up to position ${result.position})`);
    return { projections: names, ...result };
  }
}
