// `repledger restore`: a backup into an empty data directory, proven before it is put in place.
//
// Everything happens in a folder beside the target; only a copy that passed every check is
// renamed to the target, so a refused or interrupted restore leaves the target as it was (empty).
// The checks, in order: the manifest (format, shape, its own checksum); each file's size and
// SHA-256; SQLite's integrity check and the log's extent against the manifest; every receipt
// chain verifies (as `receipts verify` does, drift included) and ends at the manifest's head; and a
// replay of every projection from the first event gives exactly the read models the copy brought.
import { copyFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isDeepStrictEqual } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { DomainError } from '../domain/errors.ts';
import { refuseDistributed, STORE_FILE } from './backup.ts';
import { fileEntryOf } from './files.ts';
import { BACKUP_FILES, fileProblems, headProblems, MANIFEST_FILE, readManifest, type Manifest } from './manifest.ts';
import { StagingDir } from './staging.ts';

export type RestoreStep = 'checking' | 'verifying receipt chains' | 'replaying projections';
export type RestoreProgress = (step: RestoreStep, done: number, total: number) => void;

export interface RestoreResult {
  data_dir: string;
  backup: string;
  created_at: string;
  events: number;
  last_position: number;
  proposal_keys: number;
  chains: number;
  /** Read-model collections compared with their replay. */
  collections: number;
  /** Where the OAuth keys were put; null when the backup had none. */
  oauth_keys_file: string | null;
}

function refused(source: string, problems: string[]): DomainError {
  return new DomainError('invalid_input', `the backup at ${source} is refused, nothing was restored: ${problems.join('; ')}`);
}

/** The target must be missing or an empty directory: a restore never merges into or replaces a store. */
function refuseNonEmpty(target: string): void {
  if (!existsSync(target)) return;
  if (!statSync(target).isDirectory()) throw new DomainError('invalid_input', `${target} is a file; restore needs an empty data directory (DATA_DIR)`);
  const found = readdirSync(target);
  if (found.length > 0)
    throw new DomainError(
      'invalid_input',
      `${target} is not empty (${found.slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''}); restore only into an empty data directory: point DATA_DIR at a new one`,
    );
}

export async function restoreBackup(config: Config, source: string, progress: RestoreProgress = () => undefined): Promise<RestoreResult> {
  refuseDistributed(config, 'restore');
  const target = config.dataDir;
  refuseNonEmpty(target);
  if (!existsSync(source) || !statSync(source).isDirectory())
    throw new DomainError('invalid_input', `${source} is not a backup: a backup is the folder \`repledger backup\` wrote`);
  const manifestPath = join(source, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw refused(source, [`it has no ${MANIFEST_FILE}`]);
  const read = readManifest(readFileSync(manifestPath, 'utf8'));
  if (!read.manifest) throw refused(source, read.problems);
  const manifest = read.manifest;

  mkdirSync(dirname(target), { recursive: true });
  const staging = new StagingDir(target, 'restore');
  try {
    progress('checking', 0, 3);
    // The keys where this configuration will look for them, if that is inside the data directory.
    const keysAt = relative(target, config.oauthKeysFile);
    const keysPath = keysAt.startsWith('..') || isAbsolute(keysAt) ? join('secrets', BACKUP_FILES.oauthKeys) : keysAt;
    const placed: Array<[string, string]> = [[BACKUP_FILES.store, STORE_FILE]];
    if (manifest.files[BACKUP_FILES.oauthKeys]) placed.push([BACKUP_FILES.oauthKeys, keysPath]);
    const problems: string[] = [];
    for (const [name, to] of placed) {
      const from = join(source, name);
      const expected = manifest.files[name as keyof Manifest['files']]!;
      // The staged copy is checked, not the source: it is what will be served.
      const staged = join(staging.path, to);
      mkdirSync(dirname(staged), { recursive: true, mode: 0o700 });
      if (existsSync(from)) {
        copyFileSync(from, staged);
        if (name === BACKUP_FILES.oauthKeys) chmodSync(staged, 0o600);
      }
      problems.push(...fileProblems(name, expected, existsSync(from) ? await fileEntryOf(staged) : null));
    }
    if (problems.length) throw refused(source, problems);
    progress('checking', 1, 3);
    problems.push(...checkStore(join(staging.path, STORE_FILE), manifest));
    if (problems.length) throw refused(source, problems);
    progress('checking', 3, 3);

    const proven = await prove(staging.path, manifest, progress);
    if (proven.problems.length) throw refused(source, proven.problems);
    // Asked again: a directory filled meanwhile is not replaced (renaming onto a non-empty one fails anyway).
    refuseNonEmpty(target);
    staging.keep(target);
    return {
      data_dir: target,
      backup: source,
      created_at: manifest.created_at,
      events: manifest.events,
      last_position: manifest.last_position,
      proposal_keys: manifest.proposal_keys,
      chains: manifest.chains.length,
      collections: proven.collections,
      oauth_keys_file: manifest.files[BACKUP_FILES.oauthKeys] ? join(target, keysPath) : null,
    };
  } finally {
    staging.discard();
  }
}

/** SQLite's own integrity check, and the log's extent and keys as the manifest says. */
function checkStore(path: string, manifest: Manifest): string[] {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch (error) {
    return [`${BACKUP_FILES.store} cannot be opened: ${(error as Error).message}`];
  }
  try {
    const integrity = (db.prepare('PRAGMA integrity_check(5)').all() as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    if (integrity.join() !== 'ok') return [`${BACKUP_FILES.store} fails SQLite's integrity check: ${integrity.join('; ')}`];
    const log = db.prepare('SELECT count(*) AS events, coalesce(max(position), 0) AS last_position FROM events').get() as {
      events: number;
      last_position: number;
    };
    const keys = (db.prepare('SELECT count(*) AS n FROM proposal_keys').get() as { n: number }).n;
    const problems: string[] = [];
    if (log.events !== manifest.events || log.last_position !== manifest.last_position)
      problems.push(
        `the log holds ${log.events} events up to position ${log.last_position}, the manifest says ${manifest.events} up to ${manifest.last_position}`,
      );
    if (keys !== manifest.proposal_keys) problems.push(`the store holds ${keys} proposal keys, the manifest says ${manifest.proposal_keys}`);
    return problems;
  } catch (error) {
    return [`${BACKUP_FILES.store} is not a RepLedger store: ${(error as Error).message}`];
  } finally {
    db.close();
  }
}

/**
 * Opens the staged store as the service would (which brings read models of an older release up to
 * date, as any start does), verifies every receipt chain against the manifest, then replays every
 * projection and compares its documents with those the copy brought.
 */
async function prove(dataDir: string, manifest: Manifest, progress: RestoreProgress): Promise<{ problems: string[]; collections: number }> {
  const [{ openApp }, { verifyChains, driftReport }] = await Promise.all([import('../app.ts'), import('../audit/audit.ts')]);
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), undefined, { tracing: null });
  try {
    const problems: string[] = [];
    const { chains, drift } = await verifyChains(app, undefined, (done, total) => progress('verifying receipt chains', done, total), { drift: true });
    for (const c of chains)
      if (c.broken) problems.push(`the receipt chain of athlete ${c.athlete_id} is broken at link #${c.broken.sequence}: ${c.broken.reason}`);
    problems.push(...driftReport(drift));
    problems.push(
      ...headProblems(
        manifest.chains,
        chains.map((c) => ({ athlete_id: c.athlete_id, links: c.links, digest: c.head?.digest ?? null })),
      ),
    );
    if (problems.length) return { problems, collections: 0 };
    const collections = app.runner.projections.flatMap((p) => p.collections.map((c) => c.name));
    const dump = async () => Promise.all(collections.map((c) => app.reads.dump(c)));
    const brought = await dump();
    await app.runner.replay(undefined, (done, total) => progress('replaying projections', done, total));
    const replayed = await dump();
    // `dump` orders documents by partition and id, so equal collections are equal arrays.
    const differing = collections.filter((_, i) => !isDeepStrictEqual(brought[i], replayed[i]));
    if (differing.length)
      problems.push(`a replay of the log does not give the read models the backup brought: ${differing.join(', ')} differ${differing.length === 1 ? 's' : ''}`);
    return { problems, collections: collections.length };
  } finally {
    await app.close();
  }
}
