import { AppCommand } from '../../base.ts';

export default class ProjectionsRun extends AppCommand {
  static override description = 'Run the projection worker: follow the event log and keep read models current (KurrentDB/MongoDB mode)';

  async run(): Promise<{ stopped: boolean }> {
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(ProjectionsRun);
    const app = await this.app();
    if (app.projectionMode === 'inline') {
      this.log('the embedded store projects with every append; no worker is needed');
      return { stopped: true };
    }
    let failure: unknown = null;
    const subscription = await app.runner.follow((error) => {
      failure = error;
      process.kill(process.pid, 'SIGTERM');
    });
    this.logToStderr('projection worker following the event log; Ctrl-C stops it');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await subscription.stop();
    if (failure) throw failure;
    return { stopped: true };
  }
}
