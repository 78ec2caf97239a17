// Progress bars on stderr. Without a terminal, a line per step instead of redraws.
import { SingleBar } from 'cli-progress';

export interface ProgressBar {
  update(done: number, total: number): void;
  stop(): void;
}

export function progressBar(label: string, enabled: boolean): ProgressBar {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total}`,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 500,
    hideCursor: true,
  });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
