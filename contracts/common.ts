// Wire primitives shared by every schema. Limits are spec section 8; names follow the spec.
import { z } from 'zod';
import { LIMITS } from './policy.ts';

export { LIMITS, WRITE_POLICY } from './policy.ts';

export const uuid = z.uuid();
/** An id a request names (a path id, a filter): a uuid in either case, read in lower case as the service writes ids. */
export const requestedId = uuid.toLowerCase();
/**
 * A client-chosen command id, read as any requested id: the same id sent in upper case is the same
 * command (a replay), never a second proposal.
 */
export const commandId = requestedId;
/** RFC 3339 instant with an offset or Z; the service always writes UTC `Z`. */
export const dateTime = z.iso.datetime({ offset: true });
const PAGE_SIZE_RULE = `must be an integer from 1 to ${LIMITS.pageSizeMax}`;
/**
 * A page size, as a JSON number (a tool call's argument) or as the text of a query string; only
 * plain digits are read as a number, so that '', '1e1' or '0x5' are refused. Every refusal says
 * the rule.
 */
export const pageLimit = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^[0-9]+$/, PAGE_SIZE_RULE)
        .transform(Number),
    ],
    { error: PAGE_SIZE_RULE },
  )
  .pipe(z.number().int(PAGE_SIZE_RULE).min(1, PAGE_SIZE_RULE).max(LIMITS.pageSizeMax, PAGE_SIZE_RULE));
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
  if (resolved === tz || IANA_NAME_OF[resolved] === tz) validTimeZones.add(tz);
  return true;
}

/**
 * ICU (and so `Intl`) keeps CLDR's names for zones that IANA has since renamed; the IANA name is
 * the one people know (Kyiv, Kolkata). These are all such names ICU 78 lists.
 */
const IANA_NAME_OF: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** A zone's IANA name: the one to store and show, whichever spelling or older name was given. */
export function ianaTimeZone(tz: string): string {
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  return IANA_NAME_OF[resolved] ?? resolved;
}

/** Every zone by its IANA name, sorted, with UTC; and the older names a browser may report for each. */
export function timeZoneChoices(): Array<{ name: string; aliases: string[] }> {
  const names = new Map<string, string[]>([['UTC', ['Etc/UTC', 'Etc/GMT']]]);
  for (const listed of Intl.supportedValuesOf('timeZone')) {
    const name = IANA_NAME_OF[listed] ?? listed;
    names.set(name, name === listed ? [] : [listed]);
  }
  return [...names].sort(([a], [b]) => a.localeCompare(b)).map(([name, aliases]) => ({ name, aliases }));
}

export const recordText = z.string().min(LIMITS.text.min).max(LIMITS.text.max);

/** Whether a text shows anything: not only spaces and invisible format characters (zero-width, bidi marks). */
export const isVisibleText = (text: string) => !/^[\s\p{Cf}]*$/u.test(text);
export const muscleGroup = z.string().max(LIMITS.muscleGroupMax);

export const unitPreference = z.enum(['kg', 'lbs']);
export const heightUnitPreference = z.enum(['cm', 'ft_in']);
export const bodyweightUnitPreference = z.enum(['kg', 'lbs', 'stone']);
export const subscriptionTier = z.enum(['free', 'pro']);

/**
 * The areas of the record an AI client may be allowed to read (spec 5.1): the one list every
 * surface takes its names from — OAuth scopes, the consent form, connection settings, OpenAPI.
 * Write permissions are a vocabulary of their own.
 */
export const READ_SCOPE_AREAS = {
  training: { title: 'Training', detail: 'completed workouts with exercises and sets, saved routines, goals and workout feedback' },
  recovery: { title: 'Recovery', detail: 'daily check-ins: sleep, energy, soreness and stress' },
  nutrition: { title: 'Nutrition', detail: 'meals with calories and macronutrients' },
  body_measurements: { title: 'Body measurements', detail: 'bodyweight, body fat and circumferences' },
} as const;
export type ReadScope = keyof typeof READ_SCOPE_AREAS;
export const READ_SCOPES = Object.keys(READ_SCOPE_AREAS) as ReadScope[];
export const readScope = z.enum(READ_SCOPES as [ReadScope, ...ReadScope[]]);

/** What an operation does to the record; maintenance pauses each separately. */
export const accessKind = z.enum(['read', 'write']);
export type AccessKind = z.infer<typeof accessKind>;

export const trackingType = z.enum(['weight_reps', 'bodyweight', 'duration', 'distance', 'weight_distance']);
export const setType = z.enum(['normal', 'warmup', 'failure', 'drop_set']);
export const difficulty = z.enum(['easier_than_expected', 'as_expected', 'harder_than_expected']);
export const nextTimeIntent = z.enum(['keep', 'review']);
export const goalType = z.enum(['target_1rm', 'target_bodyweight', 'weekly_session_count', 'weekly_volume', 'daily_calories', 'daily_protein']);
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
