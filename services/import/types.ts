// The importers' shapes: what they parse (the import decider's input, services/domain/parsed-workouts.ts)
// and how they refuse a file.

import type { ImportApp } from '../../contracts/record.ts';

export type { ParsedExercise, ParsedSet, ParsedWorkout } from '../domain/parsed-workouts.ts';

/**
 * A file the importer refuses where it has no lines to name: a FIT file is binary. `entry` is the
 * file in the uploaded zip it was (null: the upload itself); the message is a clause that follows
 * the name ("ride.fit: the file fails its CRC check…"). Nothing of the upload is written.
 */
export class ImportFileError extends Error {
  readonly entry: string | null;
  constructor(entry: string | null, message: string) {
    super(message);
    this.name = 'ImportFileError';
    this.entry = entry;
  }
}

/** A row the importer refuses; nothing of the file is written. */
export class ImportRowError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'ImportRowError';
    this.line = line;
  }
}

/** The apps whose CSV exports RepLedger reads (and tells apart by their header). */
export type ExportApp = 'hevy' | 'strong';

/** How the apps RepLedger imports from are named to people. */
export const APP_NAMES: Record<ImportApp, string> = { hevy: 'Hevy', strong: 'Strong', apple_health: 'Apple Health', garmin: 'Garmin' };

/** A file another app exported, given to this app's importer: the header says which app it is. */
export class WrongExportError extends ImportRowError {
  readonly expected: ExportApp;
  readonly detected: ExportApp;
  constructor(line: number, expected: ExportApp, detected: ExportApp) {
    super(line, `this looks like a ${APP_NAMES[detected]} export, not a ${APP_NAMES[expected]} one`);
    this.name = 'WrongExportError';
    this.expected = expected;
    this.detected = detected;
  }
}
