// The athlete's record as one JSON document ("Download my record", `repledger export`), which
// `repledger import repledger` brings into an empty account without loss: every item with its id,
// revision and times, in canonical units (kg, metres, seconds), and the profile settings that
// change how the record reads (timezone, units, name).
import { z } from 'zod';
import { dateTime, uuid } from './common.ts';
import { revision } from './events.ts';
import { EXPORT_FORMAT } from './policy.ts';
import { profile, recordItemSchemas, type RecordKind } from './record.ts';

export { EXPORT_FORMAT };

/**
 * Where each kind sits in the document, in the order an import applies them: exercises before
 * what names them, workouts before their feedback.
 */
export const EXPORT_SECTIONS = {
  exercise: 'exercises',
  workout: 'workouts',
  feedback: 'feedback',
  routine: 'routines',
  goal: 'goals',
  checkin: 'checkins',
  meal: 'meals',
  body_measurement: 'body_measurements',
  equipment_setup: 'equipment_setups',
  fitness_preferences: 'fitness_preferences',
} as const satisfies Record<RecordKind, string>;
export type ExportSection = (typeof EXPORT_SECTIONS)[RecordKind];

/** One item: its body as the record stores it, its revision, when it was created and last changed. */
function entry<K extends RecordKind>(kind: K) {
  return z.strictObject({ revision, created_at: dateTime, updated_at: dateTime, item: recordItemSchemas[kind] });
}
export interface ExportEntry {
  revision: number;
  created_at: string;
  updated_at: string;
  item: { id: string };
}

const sections = Object.fromEntries(Object.entries(EXPORT_SECTIONS).map(([kind, section]) => [section, z.array(entry(kind as RecordKind))])) as {
  [K in RecordKind as (typeof EXPORT_SECTIONS)[K]]: z.ZodArray<ReturnType<typeof entry<K>>>;
};

export const recordExport = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  exported_at: dateTime,
  /** The account it came from; an import keeps every item id but this one (fitness preferences share it). */
  athlete_id: uuid,
  profile,
  record: z.strictObject(sections),
});
export type RecordExport = z.infer<typeof recordExport>;

/** Why a document's `format` is not one this version reads, or null when it is. */
export function formatRefusal(format: unknown): string | null {
  if (format === EXPORT_FORMAT) return null;
  if (typeof format === 'string' && format.startsWith('repledger.export.')) {
    return `it is a RepLedger export of format ${JSON.stringify(format)}; this RepLedger reads ${EXPORT_FORMAT} only`;
  }
  return `it is not a RepLedger export: "format" is ${format === undefined ? 'missing' : JSON.stringify(format)}, expected "${EXPORT_FORMAT}"`;
}
