// `repledger backup`: a consistent copy of the embedded store, taken while the service runs.
//
// The copy is SQLite's online backup (node:sqlite's `backup`), a step of pages at a time, from a
// connection of its own that holds one read transaction from before the first step to after the
// last. In WAL mode a reader never blocks a writer, and a held read transaction is a snapshot:
// every step copies the store as it was when the backup began, whatever is committed meanwhile.
// Without it, SQLite restarts a backup whenever another connection commits, and one taken under
// a steady stream of commits would never finish. The event count, last position and proposal keys
// are read in the same transaction, so the manifest describes exactly the copy. The OAuth keys file
// is read once, before: the copy written and the SHA-256 in the manifest are of those bytes.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { BACKUP_STEP_PAGES } from '../../contracts/policy.ts';
import type { Config } from '../config.ts';
import { DomainError } from '../domain/errors.ts';
import { chainHeadsOf } from './chains.ts';
import { entryOfBytes, fileEntryOf } from './files.ts';
import { BACKUP_FILES, BACKUP_FORMAT, MANIFEST_FILE, sealManifest, type Manifest } from './manifest.ts';
import { StagingDir } from './staging.ts';

/** The embedded store's file in a data directory (as services/app.ts opens it). */
export const STORE_FILE = 'repledger.db';

export type BackupProgress = (done: number, total: number) => void;

export interface BackupResult {
  file: string;
  manifest: Manifest;
  pages: number;
  /** Seconds spent copying the pages, recomputing the chain heads from the copy, and hashing the files. */
  seconds: { copy: number; chains: number; checksums: number };
}

/** Refuses distributed mode: its log and keys are KurrentDB's, backed up by KurrentDB's own procedure (README, docs/decisions.md). */
export function refuseDistributed(config: Config, what: 'backup' | 'restore'): void {
  if (!config.kurrentdbUrl && !config.mongodbUrl) return;
  throw new DomainError(
    'not_supported',
    `${what} covers the embedded store only; with KURRENTDB_URL or MONGODB_URL set, back up KurrentDB with its own backup procedure (it holds the event log and the proposal keys) and keep a copy of the OAuth keys file (${config.oauthKeysFile}); the read models need no backup, \`repledger projections replay\` rebuilds them. See README, "Backing up and restoring".`,
  );
}

/**
 * The OAuth keys file's bytes. None, or a file that cannot be read, refuses the backup: a store
 * restored without its keys signs every client out, and a backup should not be found to lack them
 * only when it is needed (a CLI run with another OAUTH_KEYS_FILE or DATA_DIR than the server's).
 */
function readOAuthKeys(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT')
      throw new DomainError(
        'not_found',
        `there is no OAuth keys file at ${path} to back up: are OAUTH_KEYS_FILE and DATA_DIR the server's? The service makes the file on its first start; without it a restored store signs every client out.`,
      );
    throw new DomainError('invalid_input', `cannot read the OAuth keys file ${path} to back up (${message}): nothing was backed up`);
  }
}

export async function takeBackup(config: Config, target: string, options: { stepPages?: number; progress?: BackupProgress } = {}): Promise<BackupResult> {
  refuseDistributed(config, 'backup');
  const store = join(config.dataDir, STORE_FILE);
  if (!existsSync(store)) throw new DomainError('not_found', `there is no store to back up at ${store}: is DATA_DIR right?`);
  if (existsSync(target)) throw new DomainError('invalid_input', `${target} exists; a backup is written to a new folder and never overwrites`);
  if (!existsSync(dirname(target)) || !statSync(dirname(target)).isDirectory())
    throw new DomainError('invalid_input', `cannot write ${target}: ${dirname(target)} is not a directory`);
  const oauthKeys = readOAuthKeys(config.oauthKeysFile);
  const staging = new StagingDir(target, 'partial');
  try {
    const copy = join(staging.path, BACKUP_FILES.store);
    const seconds = { copy: 0, chains: 0, checksums: 0 };
    let started = 0;
    const source = new DatabaseSync(store);
    let snapshot: { events: number; last_position: number; proposal_keys: number };
    let pages: number;
    try {
      // Short: node:sqlite waits synchronously. Opening the read transaction takes no lock a writer holds in WAL mode.
      source.exec('PRAGMA busy_timeout = 1000');
      source.exec('BEGIN');
      const log = source.prepare('SELECT count(*) AS events, coalesce(max(position), 0) AS last_position FROM events').get() as {
        events: number;
        last_position: number;
      };
      const keysTable = source.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'proposal_keys'`).get();
      const keys = keysTable ? (source.prepare('SELECT count(*) AS n FROM proposal_keys').get() as { n: number }).n : 0;
      snapshot = { events: log.events, last_position: log.last_position, proposal_keys: keys };
      started = performance.now();
      pages = await backup(source, copy, {
        rate: options.stepPages ?? BACKUP_STEP_PAGES,
        progress: ({ totalPages, remainingPages }) => options.progress?.(totalPages - remainingPages, totalPages),
      });
      source.exec('COMMIT');
      seconds.copy = (performance.now() - started) / 1000;
    } finally {
      source.close();
    }
    // The copy as a single file (no -wal beside it), so that its checksum is all of it; restore opens it in WAL mode again.
    const copied = new DatabaseSync(copy);
    let chains: Manifest['chains'];
    try {
      copied.exec('PRAGMA journal_mode = DELETE');
      started = performance.now();
      chains = chainHeadsOf(copied);
      seconds.chains = (performance.now() - started) / 1000;
    } finally {
      copied.close();
    }
    writeFileSync(join(staging.path, BACKUP_FILES.oauthKeys), oauthKeys, { mode: 0o600, flag: 'wx' });
    started = performance.now();
    const storeEntry = (await fileEntryOf(copy))!;
    const keysEntry = entryOfBytes(oauthKeys);
    seconds.checksums = (performance.now() - started) / 1000;
    const manifest = sealManifest({
      format: BACKUP_FORMAT,
      created_at: new Date().toISOString(),
      engine: 'sqlite',
      ...snapshot,
      chains,
      files: { [BACKUP_FILES.store]: storeEntry, [BACKUP_FILES.oauthKeys]: keysEntry },
    });
    writeFileSync(join(staging.path, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    // Asked again: a folder made at the name meanwhile is not replaced (rename would replace an empty one).
    if (existsSync(target)) throw new DomainError('invalid_input', `${target} was created while the backup ran; a backup never overwrites`);
    staging.keep(target);
    return { file: target, manifest, pages, seconds };
  } finally {
    staging.discard();
  }
}
