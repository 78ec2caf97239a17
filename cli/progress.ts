// Progress bars on stderr. Without a terminal, a line per step instead of redraws.
import { SingleBar } from 'cli-progress';

export interface ProgressBar {
  /** False when nothing is drawn (under `--json`), so work that only feeds the bar is skipped. */
  readonly enabled?: boolean;
  update(done: number, total: number): void;
  stop(): void;
}

export function progressBar(label: string, enabled: boolean): ProgressBar {
  if (!enabled) return { enabled, update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total}`,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 500,
    hideCursor: true,
  });
  let started = false;
  return {
    enabled,
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
