// What a backup of the embedded store holds and how a restore knows it is whole: the manifest,
// sealed with a checksum over its own content, names each file with its size and SHA-256, and
// says where the log stood (events, last position) and each athlete's receipt chain head, so that
// a restore can prove the copy it brought is the store as it was. Pure: the files are read elsewhere.
import { z } from 'zod';
import { createHash } from 'node:crypto';
import { BACKUP_FORMAT } from '../../contracts/policy.ts';
import { canonicalJson } from '../domain/proposal.ts';

export { BACKUP_FORMAT };
export const MANIFEST_FILE = 'manifest.json';
/** The files a backup folder may hold, by their names in it. */
export const BACKUP_FILES = { store: 'repledger.db', oauthKeys: 'oauth-keys.json' } as const;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 digest (64 lower-case hex digits)');

export const chainHead = z.object({
  athlete_id: z.string().min(1),
  /** Links of the chain; 0 for a record with no committed proposal yet. */
  links: z.number().int().min(0),
  /** The last link's digest; null with no links. */
  digest: sha256.nullable(),
});
export type ChainHead = z.infer<typeof chainHead>;

const fileEntry = z.object({ bytes: z.number().int().min(0), sha256 });
export type FileEntry = z.infer<typeof fileEntry>;

const manifestBody = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  created_at: z.iso.datetime(),
  engine: z.literal('sqlite'),
  /** Events in the copy and the global position of the last: the point in the log the copy stands at. */
  events: z.number().int().min(0),
  last_position: z.number().int().min(0),
  /** Proposal keys in the copy (kept in the same database as the events). */
  proposal_keys: z.number().int().min(0),
  chains: z.array(chainHead),
  files: z.strictObject({ [BACKUP_FILES.store]: fileEntry, [BACKUP_FILES.oauthKeys]: fileEntry.optional() }),
});
export type ManifestBody = z.infer<typeof manifestBody>;

const manifest = manifestBody.extend({ checksum: sha256 });
export type Manifest = z.infer<typeof manifest>;

/** SHA-256 of the manifest's canonical JSON without its checksum: any changed field changes it. */
export function manifestChecksum(body: ManifestBody): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export function sealManifest(body: ManifestBody): Manifest {
  return { ...body, checksum: manifestChecksum(body) };
}

/** The manifest in `text`, or what is wrong with it: not JSON, another format, a field out of shape, a checksum that does not match. */
export function readManifest(text: string): { manifest: Manifest; problems: [] } | { manifest: null; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { manifest: null, problems: [`${MANIFEST_FILE} is not JSON (${(error as Error).message}): cut short or damaged`] };
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (format !== BACKUP_FORMAT)
    return { manifest: null, problems: [`${MANIFEST_FILE} is of format ${JSON.stringify(format ?? null)}; this version restores ${BACKUP_FORMAT}`] };
  const parsed = manifest.safeParse(json);
  if (!parsed.success) return { manifest: null, problems: parsed.error.issues.map((i) => `${MANIFEST_FILE}: ${i.path.join('.') || '(root)'}: ${i.message}`) };
  const { checksum, ...body } = parsed.data;
  if (manifestChecksum(body) !== checksum)
    return { manifest: null, problems: [`${MANIFEST_FILE} does not match its checksum: it was changed after the backup was taken`] };
  return { manifest: parsed.data, problems: [] };
}

/** A file as the manifest names it against the file found: a missing, cut or changed file, said which. */
export function fileProblems(name: string, expected: FileEntry, found: FileEntry | null): string[] {
  if (!found) return [`${name} is missing`];
  if (found.bytes !== expected.bytes)
    return [`${name} is ${found.bytes} bytes, the manifest says ${expected.bytes}: ${found.bytes < expected.bytes ? 'cut short' : 'grown'}`];
  if (found.sha256 !== expected.sha256) return [`${name} does not match its SHA-256 in the manifest: damaged or changed`];
  return [];
}

/** Chain heads recomputed from a restored log against the manifest's; an athlete on one side only counts with no links. */
export function headProblems(expected: readonly ChainHead[], found: readonly ChainHead[]): string[] {
  const want = new Map(expected.map((h) => [h.athlete_id, h]));
  const got = new Map(found.map((h) => [h.athlete_id, h]));
  const problems: string[] = [];
  for (const id of new Set([...want.keys(), ...got.keys()])) {
    const w = want.get(id) ?? { athlete_id: id, links: 0, digest: null };
    const g = got.get(id) ?? { athlete_id: id, links: 0, digest: null };
    if (w.digest !== g.digest || w.links !== g.links)
      problems.push(
        `athlete ${id}: receipt chain head is ${g.digest ?? 'none'} after ${g.links} link(s), the manifest says ${w.digest ?? 'none'} after ${w.links}`,
      );
  }
  return problems;
}
