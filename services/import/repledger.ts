// `repledger import repledger`: a RepLedger export (contracts/export.ts) into an empty account,
// losslessly. Every item arrives with its id, revision and times (the record decider's `carry`),
// in one append with its `import.completed`: all of it lands, or none. The profile settings that
// change how the record reads (timezone, units, name) are set first, so that the projections
// date every item in the timezone it had, and put back if the items then do not land. They are two
// appends to two streams: a process killed between them leaves the profile set and the record
// empty, and running the import again completes it.
import { EXPORT_SECTIONS, formatRefusal, recordExport, type ExportEntry, type RecordExport } from '../../contracts/export.ts';
import type { Actor, ImportCompletedEvent } from '../../contracts/events.ts';
import { recordKinds } from '../../contracts/record.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { DomainError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/ids.ts';
import { decideChanges, type RecordChange, type RecordState } from '../domain/record.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';

export interface RecordImportResult {
  athlete_id: string;
  items_added: number;
  workouts_added: number;
  exercises_added: number;
  /** Whether the export's timezone, units or name replaced the account's. */
  profile_updated: boolean;
}

export interface RecordImportInput {
  fileName: string;
  bytes: Buffer;
  /** Told how many items are saved so far (embedded mode only), and the total. */
  progress?: (done: number, total: number) => void;
}

/** What importing a RepLedger export uses. */
export interface RecordImportDeps {
  athletes: AthleteService;
  records: RecordService;
  runner: Pick<ProjectionRunner, 'withProgress'>;
}

export async function importRecordExport(app: RecordImportDeps, athlete: AthleteState, input: RecordImportInput): Promise<RecordImportResult> {
  const doc = parseExport(input.fileName, input.bytes);
  const { changes, pathOf } = carriedChanges(doc, athlete.athlete_id);
  const refuse = (error: unknown): never => {
    if (!(error instanceof DomainError) || error instanceof RecordNotEmpty || error.code === 'busy') throw error;
    const issues = error.issues.map((i) => ({ path: pathOf(i.path), message: i.message }));
    const first = issues[0];
    throw new DomainError(error.code, `${input.fileName}: ${first ? `${first.path}: ${first.message}` : error.message}; nothing was imported`, issues);
  };
  // Everything is checked before the profile changes: a refused file changes nothing at all.
  const { state } = await app.records.load(athlete.athlete_id);
  requireEmpty(state, athlete);
  try {
    decideChanges(changes, state);
  } catch (error) {
    refuse(error);
  }
  const actor = { type: 'import' as const, id: `repledger:${sha256Hex(input.bytes).slice(0, 16)}` };
  const profileUpdated = JSON.stringify(doc.profile) !== JSON.stringify(athlete.profile);
  if (profileUpdated) await app.athletes.updateProfile(athlete.email, doc.profile, actor);

  const completed: ImportCompletedEvent = {
    type: 'import.completed',
    data: {
      app: 'repledger',
      file_name: input.fileName.slice(0, 500) || 'export.json',
      file_sha256: sha256Hex(input.bytes),
      workouts_added: doc.record.workouts.length,
      workouts_skipped: 0,
      exercises_added: doc.record.exercises.length,
    },
  };
  const report = input.progress;
  try {
    // Embedded mode projects inside the append's transaction, where the time goes; the runner
    // counts the events it applies, one an item.
    await app.runner.withProgress(report && ((done) => report(Math.min(done, changes.length), changes.length)), () =>
      app.records.command(athlete.athlete_id, actor, ({ state: now }) => {
        // Decided again on the record as it is at the append: another writer may have got there first.
        requireEmpty(now, athlete);
        return { events: [...decideChanges(changes, now), completed], result: undefined };
      }),
    );
  } catch (error) {
    // The profile was set for items that did not land: it goes back to what it was, so that a
    // refused file changes nothing. Unless the same file landed meanwhile (imported twice at
    // once): the profile is that import's too, and stays with its items.
    if (profileUpdated && !(await app.records.load(athlete.athlete_id)).state.importedFiles.has(completed.data.file_sha256))
      await restoreProfile(app, athlete, actor, error);
    refuse(error);
  }
  return {
    athlete_id: athlete.athlete_id,
    items_added: changes.length,
    workouts_added: completed.data.workouts_added,
    exercises_added: completed.data.exercises_added,
    profile_updated: profileUpdated,
  };
}

async function restoreProfile(app: RecordImportDeps, athlete: AthleteState, actor: Actor, cause: unknown): Promise<void> {
  try {
    await app.athletes.updateProfile(athlete.email, athlete.profile, actor);
  } catch (error) {
    const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
    throw new Error(
      `the import failed (${why(cause)}), and the profile it had set could not be put back (${why(error)}): set it again with the account's settings`,
      { cause },
    );
  }
}

/** The document, or a refusal naming what is wrong with it: not JSON, another format, or the JSON path of the first invalid value. */
function parseExport(fileName: string, bytes: Buffer): RecordExport {
  let json: unknown;
  try {
    // A byte order mark (some editors write one) is not part of the document, as in the CSV imports.
    json = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new DomainError('invalid_input', `${fileName} is not JSON (${(error as Error).message}); nothing was imported`, [{ path: '$', message: 'not JSON' }]);
  }
  const format = typeof json === 'object' && json !== null ? (json as { format?: unknown }).format : undefined;
  const wrongFormat = formatRefusal(format);
  if (wrongFormat)
    throw new DomainError('invalid_input', `${fileName} cannot be imported: ${wrongFormat}; nothing was imported`, [
      { path: '$.format', message: wrongFormat },
    ]);
  const parsed = recordExport.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
    throw new DomainError('invalid_input', `${fileName}: ${issues[0]!.path}: ${issues[0]!.message}; nothing was imported`, issues);
  }
  return parsed.data;
}

/** `$.record.workouts[3].item.title`, the way JSON tools name a place in a document. */
function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`)).join('')}`;
}

/**
 * One `carry` per item, kinds in the document's order, and where in the document each change
 * came from, so that a refusal of the record decider (`changes[12].item.exercises.0.exercise_id`)
 * names the document's own place.
 */
function carriedChanges(doc: RecordExport, athleteId: string): { changes: RecordChange[]; pathOf: (deciderPath: string) => string } {
  const changes: RecordChange[] = [];
  const places: string[] = [];
  for (const kind of recordKinds) {
    const section = EXPORT_SECTIONS[kind];
    (doc.record[section] as ExportEntry[]).forEach((entry, i) => {
      // Fitness preferences share the athlete's id: in the new account, the new athlete's.
      const item = kind === 'fitness_preferences' ? { ...entry.item, id: athleteId } : entry.item;
      changes.push({ op: 'carry', kind, item, revision: entry.revision, created_at: entry.created_at, updated_at: entry.updated_at });
      places.push(`$.record.${section}[${i}]`);
    });
  }
  const pathOf = (deciderPath: string): string => {
    const m = /^(?:changes\[(\d+)\]\.?)?(.*)$/.exec(deciderPath)!;
    const place = places[Number(m[1] ?? 0)] ?? '$';
    const rest = m[2]!
      .split('.')
      .filter(Boolean)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    return place + jsonPath(rest).slice(1);
  };
  return { changes, pathOf };
}

/** The refusal of a target that holds (or held) items: its ids and revisions could not be kept. */
class RecordNotEmpty extends DomainError {}

function requireEmpty(state: RecordState, athlete: AthleteState): void {
  if (state.items.size === 0) return;
  throw new RecordNotEmpty(
    'already_exists',
    `the record of ${athlete.email} is not empty (it holds or held ${state.items.size} items): an export is imported into an empty account only; nothing was imported`,
    [{ path: '--athlete', message: 'the record is not empty' }],
  );
}
