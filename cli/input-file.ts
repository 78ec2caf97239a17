// The file an import reads, or a refusal that says what is wrong with it (exit 2, as any refusal):
// there is none, it is a directory, it cannot be read, or it is larger than an import takes.
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { DomainError } from '../services/domain/errors.ts';

/**
 * The largest file an import reads. It is held, parsed and decided whole (a 300 MB file took 2 GB
 * of memory before Node refused a string that long); a decade of a daily log is a few tens of MB.
 */
export const IMPORT_FILE_MAX_BYTES = 128 * 1024 * 1024;

export async function readInputFile(path: string): Promise<Buffer> {
  return withRefusals(path, async (refuse) => {
    const info = await stat(path);
    if (info.isDirectory()) throw refuse('is a directory, not an export file');
    if (info.size > IMPORT_FILE_MAX_BYTES)
      throw refuse(`is ${Math.ceil(info.size / 1024 / 1024)} MB; an import reads at most ${IMPORT_FILE_MAX_BYTES / 1024 / 1024} MB`);
    return readFile(path);
  });
}

/** Checks that a file an import streams (of any size) is there and can be read; its size in bytes. */
export async function checkInputFile(path: string): Promise<number> {
  return withRefusals(path, async (refuse) => {
    const info = await stat(path);
    if (info.isDirectory()) throw refuse('is a directory, not an export file');
    await access(path, constants.R_OK);
    return info.size;
  });
}

async function withRefusals<T>(path: string, work: (refuse: (why: string) => DomainError) => Promise<T>): Promise<T> {
  const refuse = (why: string) => new DomainError('invalid_input', `${path} ${why}; nothing was imported`, [{ path: '--file', message: why }]);
  try {
    return await work(refuse);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw refuse('does not exist');
    if (code === 'EACCES' || code === 'EPERM') throw refuse('cannot be read: permission denied');
    throw refuse(`cannot be read (${(error as Error).message})`);
  }
}
