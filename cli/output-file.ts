// A file a command writes (an export), which appears under its name only once it is complete: it is
// written under a temporary name beside it and linked to its name at the end. Interrupted (an
// error, Ctrl-C, a terminated process) the temporary file is removed, so neither a truncated
// document under the name asked for nor a name a retry would refuse is left behind; one a killed
// process could not remove is removed by the next export to the name. Linking, not
// renaming, keeps the promise that an existing file is never overwritten, even one created meanwhile.
import { createWriteStream, existsSync, linkSync, readdirSync, statSync, unlinkSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import { DomainError } from '../services/domain/errors.ts';
import { processAlive } from '../services/store/process-alive.ts';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The shell's exit status for a process ended by a signal: 128 and its number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * Partial files of an export to the same name whose process is gone: one killed with SIGKILL,
 * which no handler sees, leaves its `.NAME.PID.partial` behind; the next export to the name takes
 * it away. A live process's partial file (an export running now) is left alone.
 */
function removeAbandoned(path: string): void {
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return; // No directory to look in: opening the file says so.
  }
  for (const name of names) {
    // Only names this class makes: the prefix, a process id, `.partial`.
    const pid = name.startsWith(prefix) && name.endsWith('.partial') ? name.slice(prefix.length, -'.partial'.length) : '';
    if (!/^[1-9][0-9]*$/.test(pid) || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    try {
      unlinkSync(join(dirname(path), name));
    } catch {
      // Gone meanwhile, or not ours to remove: nothing to clean.
    }
  }
}

export class OutputFile {
  readonly stream: WriteStream;
  readonly #path: string;
  readonly #partial: string;
  #done = false;
  readonly #onSignal = (signal: (typeof SIGNALS)[number]) => {
    this.abandon();
    process.exit(SIGNAL_EXIT[signal]);
  };

  private constructor(path: string) {
    this.#path = path;
    this.#partial = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
    this.stream = createWriteStream(this.#partial, { flags: 'wx' });
  }

  /** Refuses a path that exists already (the export never overwrites) or cannot be written. */
  static async open(path: string): Promise<OutputFile> {
    // Asked first so that the refusal comes before any work; linking at the end asks again.
    removeAbandoned(path);
    if (existsSync(path)) {
      throw new DomainError(
        'invalid_input',
        statSync(path).isDirectory() ? `${path} is a directory; give the name of a file to write` : `${path} exists; the export does not overwrite a file`,
      );
    }
    const file = new OutputFile(path);
    await once(file.stream, 'open').catch((error: Error) => {
      throw new DomainError('invalid_input', `cannot write ${path}: ${error.message}`);
    });
    for (const signal of SIGNALS) process.once(signal, file.#onSignal);
    return file;
  }

  /** Everything is written: the file gets its name. */
  async commit(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    try {
      linkSync(this.#partial, this.#path);
    } catch (error) {
      this.abandon();
      const e = error as NodeJS.ErrnoException;
      throw new DomainError(
        'invalid_input',
        e.code === 'EEXIST'
          ? `${this.#path} was created while the export ran; the export does not overwrite a file`
          : `cannot write ${this.#path}: ${e.message}`,
      );
    }
    this.#finish();
  }

  /** The work failed or was interrupted: nothing is left on disk. */
  abandon(): void {
    this.stream.destroy();
    this.#finish();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    for (const signal of SIGNALS) process.removeListener(signal, this.#onSignal);
    try {
      unlinkSync(this.#partial);
    } catch {
      // Already gone: nothing to clean.
    }
  }
}
