import type { FollowerState } from '../../../projections/follower.ts';
import { AppCommand } from '../../base.ts';

function stateLine(state: FollowerState): string {
  switch (state.state) {
    case 'waiting':
      return 'projection worker waiting: another process holds the projector lease';
    case 'following':
      return `projection worker holds the projector lease (token ${state.token}), following the event log`;
    case 'rebuilding':
      return `projection worker rebuilding ${state.projections.join(', ')} beside the live read models`;
    case 'rebuilt':
      return `projection worker swapped in the rebuilt ${state.projections.join(', ')}`;
  }
}

export default class ProjectionsRun extends AppCommand {
  static override description = 'Run the projection worker: follow the event log and keep read models current (KurrentDB/MongoDB mode)';

  async run(): Promise<{ stopped: boolean }> {
    // Signals are taken from the first line. The worker is PID 1 in its container, and the kernel
    // ignores a signal PID 1 has no handler for: without one, `docker stop` waits its 10 s and
    // then kills the process, in the middle of whatever start-up was doing (a replay of outdated
    // projections, a long catch-up). With one, start-up stops between two batches.
    const stop = new AbortController();
    // Parsing refuses flags the command does not take, and marks the end of usage errors.
    await this.parse(ProjectionsRun);
    let failure: unknown = null;
    const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    const onSignal = (signal: NodeJS.Signals) => stop.abort(new Error(`stopped by ${signal}`));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const app = await this.app();
      if (app.projectionMode === 'inline') {
        this.log('the embedded store projects with every append; no worker is needed');
        return { stopped: true };
      }
      if (stop.signal.aborted) return { stopped: true };
      this.logToStderr('projection worker starting: bringing read models up to date');
      let follower: Awaited<ReturnType<typeof app.follow>>;
      try {
        follower = await app.follow({
          onError: (error) => {
            failure = error;
            stop.abort(error);
          },
          onState: (state) => this.logToStderr(stateLine(state)),
          signal: stop.signal,
        });
      } catch (error) {
        if (stop.signal.aborted && error === stop.signal.reason) {
          this.logToStderr(`projection worker ${String((error as Error).message)} during start-up; read models stay as far as they got`);
          return { stopped: true };
        }
        throw error;
      }
      this.logToStderr(`projection worker ${follower.following ? 'following the event log' : 'waiting for the projector lease'}; Ctrl-C stops it`);
      await stopped;
      await follower.stop();
      // A supervisor restarts a worker that failed; one that exits 0 it leaves down.
      if (failure) throw failure;
      return { stopped: true };
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
