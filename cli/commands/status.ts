import { AppCommand } from '../base.ts';

/** What `/health` no longer shows to anyone: where the stores are, for the operator. */
export default class Status extends AppCommand {
  static override description = 'Show the stores in use (engine, path or connection) and the projection mode';

  async run(): Promise<{ stores: { events: Record<string, unknown>; reads: Record<string, unknown> }; projections: string }> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(Status);
    const app = await this.app();
    const [events, reads] = await Promise.all([app.events.describe(), app.reads.describe()]);
    for (const [name, store] of [
      ['events', events],
      ['reads', reads],
    ] as const) {
      this.log(
        `${name.padEnd(7)}${Object.entries(store)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join('  ')}`,
      );
    }
    this.log(`projections ${app.projectionMode}`);
    return { stores: { events, reads }, projections: app.projectionMode };
  }
}
