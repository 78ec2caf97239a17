// The bytes of a backup's files: their size and SHA-256, and copies made with both known.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { FileEntry } from './manifest.ts';

/** Size and SHA-256 of a file, read in chunks (a store can be gigabytes); null when there is no file. */
export async function fileEntryOf(path: string): Promise<FileEntry | null> {
  if (!existsSync(path) || !statSync(path).isFile()) return null;
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Size and SHA-256 of bytes in hand: those written, so that the entry is of exactly what was read. */
export function entryOfBytes(bytes: Uint8Array): FileEntry {
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
