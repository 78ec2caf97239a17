import { Flags } from '@oclif/core';
import { buildServer } from '../../services/http/server.ts';
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
    const { flags } = await this.parse(Serve);
    const app = await this.app();
    const server = await buildServer(app);
    let workerFailure: unknown = null;
    const worker =
      app.projectionMode === 'worker' && flags.projector
        ? await app.runner.follow((error) => {
            workerFailure = error;
            server.log.fatal({ err: error }, 'projection worker stopped; shutting down');
            process.kill(process.pid, 'SIGTERM');
          })
        : null;
    await server.listen({ port: app.config.port, host: app.config.host });
    server.log.info({ base_url: app.config.baseUrl, projections: app.projectionMode }, 'RepLedger is serving');

    // Stop taking requests, let those in flight finish, then close the stores: nothing half-done.
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        server.log.info({ signal }, 'shutting down');
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    await worker?.stop();
    // A supervisor restarts a service that failed; one that exits 0 it leaves down.
    if (workerFailure) throw workerFailure;
    return { url: app.config.baseUrl };
  }
}
