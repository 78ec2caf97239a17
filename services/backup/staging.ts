// Where `backup` and `restore` build a folder before it is put in place: `.NAME.LABEL-PID` beside
// the target, renamed onto it only when whole. The process id in the name tells a folder still
// being built from one left by a process that was killed (SIGKILL, a power loss), which no handler
// of that process could remove; the next run for the same target removes those.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from '../store/process-alive.ts';

export type StagingLabel = 'partial' | 'restore';

function prefixOf(target: string, label: StagingLabel): string {
  return `.${basename(target)}.${label}-`;
}

/** The staging folders for `target` among `names` (its parent's entries), with the process each names. */
export function stagingFolders(names: readonly string[], target: string, label: StagingLabel): Array<{ name: string; pid: number }> {
  const prefix = prefixOf(target, label);
  return names.flatMap((name) => {
    const pid = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    return /^[1-9][0-9]*$/.test(pid) ? [{ name, pid: Number(pid) }] : [];
  });
}

/**
 * Removes the staging folders for `target` whose process is gone. Only for the same target: a folder
 * for another name may be a run on another machine sharing this folder, whose process id means
 * nothing here; two runs for one target conflict anyway.
 */
export function removeLeftovers(target: string, label: StagingLabel): void {
  const parent = dirname(target);
  for (const { name, pid } of stagingFolders(readdirSync(parent), target, label))
    if (!processAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
}

/** A folder that is removed unless `keep` is called, also when the process is interrupted. */
export class StagingDir {
  readonly path: string;
  #kept = false;
  readonly #onSignal = (signal: NodeJS.Signals) => {
    this.discard();
    process.exit(signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143);
  };

  constructor(besides: string, label: StagingLabel) {
    removeLeftovers(besides, label);
    this.path = join(dirname(besides), `${prefixOf(besides, label)}${process.pid}`);
    rmSync(this.path, { recursive: true, force: true });
    mkdirSync(this.path, { recursive: true, mode: 0o700 });
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, this.#onSignal);
  }

  /**
   * Renames the folder to `target` (which must not exist, or be an empty directory). A rename is not
   * ordered after the writes before it: after a power loss the new name may show files whose data
   * never reached the disk. So everything in the folder is synced first, and the parent after, so
   * that the rename itself lasts. No test can cut the power, so none shows this; keep it this small.
   */
  keep(target: string): void {
    syncTree(this.path);
    renameSync(this.path, target);
    syncDirectory(dirname(target));
    this.#kept = true;
    this.#unhook();
  }

  discard(): void {
    this.#unhook();
    if (!this.#kept) rmSync(this.path, { recursive: true, force: true });
  }

  #unhook(): void {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, this.#onSignal);
  }
}

/** Syncs every file and folder under `dir`, and `dir` itself (the names it holds). */
function syncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) syncTree(path);
    else if (entry.isFile()) syncPath(path, 'r+');
  }
  syncDirectory(dir);
}

/** `flags` 'r+' for a file: Windows flushes only a file opened for writing. */
function syncPath(path: string, flags: 'r' | 'r+'): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  // Windows cannot open a directory to sync it; NTFS journals the entry itself (as services/oauth/keys.ts).
  if (process.platform !== 'win32') syncPath(dir, 'r');
}
