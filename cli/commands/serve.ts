import { Flags } from '@oclif/core';
import { AppCommand } from '../base.ts';

export default class Serve extends AppCommand {
  static override description = 'Serve RepLedger over HTTP (embedded store unless KURRENTDB_URL / MONGODB_URL are set)';
  static override flags = {
    projector: Flags.boolean({
      description: 'with a distributed store, also run the projection worker in this process',
      default: true,
      allowNo: true,
    }),
  };

  async run(): Promise<{ url: string }> {
    // Signals are taken before any start-up work: as PID 1 in a container a process without a
    // handler ignores `docker stop` and is killed 10 s later, in the middle of whatever start-up
    // was doing (replaying an outdated projection, a long catch-up). See `projections run`.
    const stop = new AbortController();
    const stopped = new Promise<string>((resolve) =>
      stop.signal.addEventListener('abort', () => resolve(String((stop.signal.reason as Error).message)), { once: true }),
    );
    const onSignal = (signal: NodeJS.Signals) => stop.abort(new Error(signal));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const { flags } = await this.parse(Serve);
      const app = await this.app();
      const { buildServer } = await import('../../services/http/server.ts');
      const server = await buildServer(app);
      let workerFailure: unknown = null;
      let worker: Awaited<ReturnType<typeof app.follow>> | null = null;
      if (app.projectionMode === 'worker' && flags.projector) {
        this.logToStderr('bringing read models up to date before serving, unless another process holds the projector lease');
        try {
          worker = await app.follow({
            onError: (error) => {
              workerFailure = error;
              server.log.fatal({ err: error }, 'projection worker stopped; shutting down');
              stop.abort(new Error('projection worker failure'));
            },
            onState: (state) => server.log.info({ projector: state }, 'projector'),
            signal: stop.signal,
          });
        } catch (error) {
          if (!stop.signal.aborted || error !== stop.signal.reason) throw error;
        }
      }
      if (!stop.signal.aborted) {
        // The address it listens on, beside the base URL users are given: they differ behind a
        // proxy, and with PORT=0 (the system picks a free port) only this says which port it is.
        const address = await server.listen({ port: app.config.port, host: app.config.host });
        server.log.info({ base_url: app.config.baseUrl, address, projections: app.projectionMode }, 'RepLedger is serving');
      }

      // Stop taking requests, let those in flight finish, then close the stores: nothing half-done.
      server.log.info({ signal: await stopped }, 'shutting down');
      await server.close();
      await worker?.stop();
      // A supervisor restarts a service that failed; one that exits 0 it leaves down.
      if (workerFailure) throw workerFailure;
      return { url: app.config.baseUrl };
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
