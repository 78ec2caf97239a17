// Wire primitives shared by every schema. Limits are spec section 8; names follow the spec.
import { z } from 'zod';

export const LIMITS = {
  pageSizeMax: 10,
  pageSizeDefault: 5,
  rangeDaysMax: 90,
  cursorLength: { min: 1, max: 4096 },
  text: { min: 1, max: 200 },
  timezone: { min: 1, max: 100 },
  muscleGroupMax: 100,
  setsPerWorkoutExercise: 200,
  achievedSetCountMax: 200,
  exercisesPerRoutine: 50,
  setsPerRoutineExercise: { min: 1, max: 20 },
  repsText: { min: 1, max: 32 },
  calculationVersion: { min: 1, max: 64 },
  changesPerProposal: 50,
  proposalExpiryMinutes: 30,
  schedulingHorizonDays: 90,
  undoWindowDays: 30,
  recoveryRetentionDays: 30,
} as const;

export const uuid = z.uuid();
/** RFC 3339 instant with an offset or Z; the service always writes UTC `Z`. */
export const dateTime = z.iso.datetime({ offset: true });
/** A local calendar date, YYYY-MM-DD. */
export const localDate = z.iso.date();

export const timezone = z
  .string()
  .min(LIMITS.timezone.min)
  .max(LIMITS.timezone.max)
  .refine(isValidTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' });

/**
 * Canonical zone names found valid: building a formatter to ask costs ~150 µs. Only canonical names
 * are kept, so the set stays within the IANA list whatever spellings (`eUrOpE/bErLiN`) are tried.
 */
const validTimeZones = new Set<string>();

export function isValidTimeZone(tz: string): boolean {
  if (validTimeZones.has(tz)) return true;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  if (resolved === tz) validTimeZones.add(tz);
  return true;
}

export const recordText = z.string().min(LIMITS.text.min).max(LIMITS.text.max);
export const muscleGroup = z.string().max(LIMITS.muscleGroupMax);

export const unitPreference = z.enum(['kg', 'lbs']);
export const heightUnitPreference = z.enum(['cm', 'ft_in']);
export const bodyweightUnitPreference = z.enum(['kg', 'lbs', 'stone']);
export const subscriptionTier = z.enum(['free', 'pro']);

export const readScope = z.enum(['training', 'recovery', 'nutrition', 'body_measurements']);
export type ReadScope = z.infer<typeof readScope>;

/** What an operation does to the record; maintenance pauses each separately. */
export const accessKind = z.enum(['read', 'write']);
export type AccessKind = z.infer<typeof accessKind>;

export const trackingType = z.enum(['weight_reps', 'bodyweight', 'duration', 'distance', 'weight_distance']);
export const setType = z.enum(['normal', 'warmup', 'failure', 'drop_set']);
export const difficulty = z.enum(['easier_than_expected', 'as_expected', 'harder_than_expected']);
export const nextTimeIntent = z.enum(['keep', 'review']);
export const goalType = z.enum([
  'target_1rm',
  'target_bodyweight',
  'weekly_session_count',
  'weekly_volume',
  'daily_calories',
  'daily_protein',
]);
export const goalStatus = z.enum(['active', 'achieved', 'archived']);
export const goalTargetUnit = z.enum(['kg', 'lbs', 'sessions', 'kcal', 'g']);
export const goalCanonicalUnit = z.enum(['kg', 'sessions', 'kcal', 'g']);
export const recordIndicator = z.enum(['weight', 'reps', 'set_volume', 'estimated_1rm']);

/** A recovery check-in value: 1-5, higher is better (soreness 5 means no soreness). */
export const checkinScaleValue = z.number().int().min(1).max(5).nullable();

/** The error body every API answers with; each surface names its own codes and request ids. */
export function errorBody<C extends z.ZodType, R extends z.ZodType>(code: C, requestId: R) {
  return z.strictObject({ error: z.strictObject({ code, message: z.string().min(1), request_id: requestId }) });
}

export const KG_PER_LB = 0.45359237;
export const KG_PER_STONE = 6.35029318;
