// Importing Garmin FIT files: one `.fit` file, or a zip of many (Garmin Connect's "Export Original"
// hands an activity over as a zip of its .fit; a week's files are easily zipped together). Each
// file is read by `parseFit` (./fit.ts); everything the upload holds is then saved in one append,
// as every import is: a zip is one all-or-nothing unit, so a damaged file in it refuses the whole
// zip, naming the file, and nothing is saved (docs/decisions.md, "Garmin FIT files").
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { AthleteState } from '../domain/athlete.ts';
import { sha256Hex } from '../domain/ids.ts';
import type { ImportCommand } from '../domain/import.ts';
import type { ParsedMeasurement, ParsedWorkout } from '../domain/parsed-workouts.ts';
import { parseFit } from './fit.ts';
import { checkImportTimes, refusedFile, saveImport, type ImportResult, type ImportTarget } from './run.ts';
import { ImportFileError, ImportRowError } from './types.ts';

/** The most .fit files one zip may hold: years of daily activities, and a bound on a hostile zip. */
export const FIT_ZIP_MAX_FILES = 10_000;
/** The most bytes the .fit files of one zip may unpack to, all held at once while they are read. */
export const FIT_ZIP_MAX_BYTES = 256 * 1024 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const FIT_NAME = /\.fit$/i;

/** One FIT file of an upload: its name in the zip (null: the upload itself) and its bytes. */
export interface FitEntry {
  entry: string | null;
  bytes: Uint8Array;
}

/** What an upload of FIT files held, before anything is saved. */
export interface GarminData {
  workouts: ParsedWorkout[];
  measurements: ParsedMeasurement[];
  /** FIT files read (activities and weight-scale files). */
  files: number;
  /** FIT files of other types in a zip (device settings, daily monitoring…): nothing in them is imported. */
  ignored: number;
}

export interface GarminResult extends ImportResult {
  fit_files: number;
  fit_files_ignored: number;
}

/** The FIT files an upload holds: itself, or the `.fit` entries of a zip (other entries are passed over). */
export async function fitFilesOf(bytes: Buffer): Promise<FitEntry[]> {
  if (bytes.length < 4 || !bytes.subarray(0, 4).equals(ZIP_MAGIC)) return [{ entry: null, bytes }];
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  } catch (error) {
    throw new ImportFileError(null, `the zip cannot be read (${(error as Error).message})`);
  }
  try {
    const { files, zips } = await fitEntries(zip);
    if (files.length === 0) {
      // Garmin's whole-account export nests its .fit files in zips inside the zip.
      const nested =
        zips.length > 0 ? ` (it holds other zips, such as ${zips[0]}: upload the one that holds the .fit files; zips inside a zip are not opened)` : '';
      throw new ImportFileError(null, `the zip holds no .fit file${nested}; put the .fit files from Garmin Connect or the device in it`);
    }
    return files;
  } finally {
    zip.close();
  }
}

/** The zip's .fit files, and the names of the zips in it (which are not opened). */
function fitEntries(zip: ZipFile): Promise<{ files: FitEntry[]; zips: string[] }> {
  return new Promise((resolve, reject) => {
    const files: FitEntry[] = [];
    const zips: string[] = [];
    let total = 0;
    // The caller closes the zip, whatever happened.
    const fail = (error: unknown) => reject(error);
    zip.on('error', (error: Error) => fail(new ImportFileError(null, `the zip cannot be read (${error.message})`)));
    zip.on('end', () => resolve({ files, zips }));
    zip.on('entry', (entry: Entry) => {
      if (entry.fileName.endsWith('/') || !FIT_NAME.test(entry.fileName)) {
        if (/\.zip$/i.test(entry.fileName)) zips.push(entry.fileName);
        zip.readEntry();
        return;
      }
      // Checked against the sizes the zip declares before a byte is unpacked; yauzl holds each
      // entry to its declared size as it unpacks it.
      total += entry.uncompressedSize;
      if (files.length + 1 > FIT_ZIP_MAX_FILES)
        return fail(new ImportFileError(null, `the zip holds more than ${FIT_ZIP_MAX_FILES} .fit files; import it in parts`));
      if (total > FIT_ZIP_MAX_BYTES)
        return fail(new ImportFileError(null, `the zip's .fit files unpack to more than ${FIT_ZIP_MAX_BYTES / 1024 / 1024} MB; import it in parts`));
      readEntry(zip, entry).then(
        (bytes) => {
          files.push({ entry: entry.fileName, bytes });
          zip.readEntry();
        },
        (error: Error) => fail(new ImportFileError(entry.fileName, `the file cannot be unpacked (${error.message}); the zip is damaged`)),
      );
    });
    zip.readEntry();
  });
}

async function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads every FIT file of an upload. A single file of a type that holds nothing to import is
 * refused; in a zip such files are passed over and counted, as Garmin's exports mix them in.
 */
export function readFitFiles(files: readonly FitEntry[]): GarminData {
  const data: GarminData = { workouts: [], measurements: [], files: 0, ignored: 0 };
  for (const { entry, bytes } of files) {
    const fit = parseFit(bytes, entry);
    if (fit.type === 'other') {
      if (entry === null) throw new ImportFileError(null, `this is a FIT ${fit.fit_type} file; only activities and weight-scale readings are imported`);
      data.ignored++;
      continue;
    }
    data.files++;
    if (fit.type === 'activity') data.workouts.push(fit.workout);
    else data.measurements.push(...fit.measurements);
  }
  if (data.files === 0) throw new ImportFileError(null, 'the zip holds no FIT activity or weight-scale file; only those are imported');
  return data;
}

export interface GarminInput {
  fileName: string;
  bytes: Buffer;
  /** Told what the upload holds once it is read and checked, before anything is saved. */
  checked?: (data: GarminData) => void;
  /** Told how many of the new workouts are saved so far (embedded mode only), and the total. */
  progress?: (done: number, total: number) => void;
}

/**
 * Imports one FIT file or a zip of them into the athlete's record, in one append: all of it, or
 * nothing. Files already imported (by their file id) are skipped. `invalid_input` says which file
 * was refused and why.
 */
export async function importGarmin(app: ImportTarget, athlete: AthleteState, input: GarminInput): Promise<GarminResult> {
  let data: GarminData;
  try {
    data = readFitFiles(await fitFilesOf(input.bytes));
    checkImportTimes(data, app.clock.now().getTime(), athlete.profile.timezone);
  } catch (error) {
    if (error instanceof ImportFileError || error instanceof ImportRowError) throw refusedFile(input.fileName, error);
    throw error;
  }
  input.checked?.(data);
  const command: ImportCommand = {
    app: 'garmin',
    file_name: input.fileName,
    file_sha256: sha256Hex(input.bytes),
    workouts: data.workouts,
    measurements: data.measurements,
  };
  const result = await saveImport(app, athlete, command, input.progress);
  return { ...result, fit_files: data.files, fit_files_ignored: data.ignored };
}
