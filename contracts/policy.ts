// The spec's limits, policy numbers and the proposal life cycle's states: plain values, without
// zod, so that what only needs a number (the CLI's help and flags) loads no schema library.
// contracts/common.ts and contracts/write.ts build their schemas on these.

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
} as const;

/**
 * The largest values a record keeps (ours; the spec states none). Far above any human
 * performance, they refuse a slipped digit or an exponent before it reaches a chart or a sum
 * (1e16 kg made a chart's axis recurse; 1e308 kcal summed to Infinity, shown as null).
 */
export const RECORD_BOUNDS = {
  weightKg: 2000,
  reps: 10_000,
  /** A week. */
  durationSeconds: 604_800,
  /** 1,000 km. */
  distanceMetres: 1_000_000,
  caloriesKcal: 100_000,
  /** Protein, carbohydrate or fat of one meal. */
  macroGrams: 10_000,
  /** A body measurement in its canonical unit (kg, cm, %). */
  measurementValue: 10_000,
  goalTarget: 1_000_000,
} as const;

/**
 * The write-proposal life cycle's policy numbers (spec 3 and 8). Each is defined here and only
 * here; the deciders, the retention purge, the pages and the documentation read them from here.
 */
export const WRITE_POLICY = {
  /** Logical changes in one proposal, linked records included (spec 2.12, 8). */
  changesPerProposal: 50,
  /** The characters of a proposal's `reason`, the client's words to the athlete. */
  reasonLength: 500,
  /** A prepared proposal expires this long after preparation; approving it then saves nothing (spec 3). */
  proposalExpiryMinutes: 30,
  /** Routines are scheduled on explicit local dates at most this many days ahead, in the reviewed timezone (spec 4.3 rule 4). */
  schedulingHorizonDays: 90,
  /** A committed batch may be undone this long after it was saved (spec 3). */
  undoWindowDays: 30,
  /** The full recovery data (earlier bodies, full actions) is kept this long; minimal receipts stay (spec 3 rule 3). */
  recoveryRetentionDays: 30,
  /**
   * Proposals one connection may have awaiting the athlete's review at once (prepared, not yet
   * expired, approved or rejected). An agent preparing a few batches while the athlete reviews
   * has two or three waiting; ten, of up to 50 changes each, is more than a person reviews in the
   * 30 minutes before they expire. A flood stops here: the next prepare is refused (429,
   * `pending_proposals_limit`) until the soonest expires or the athlete decides one.
   */
  pendingProposalsPerConnection: 10,
  /**
   * What one connection's proposals may add to the record stream in any `proposalBytesWindowHours`:
   * the bytes of their sealed details as the log stores them (the normalised actions and reason,
   * encrypted, base64), whatever became of each proposal, since the log keeps them all. 4 MiB: ten
   * meals store about 3 KB, a workout with a day's meals about 11 KB (some 380 such batches a
   * day), even 50 workouts of six exercises about 400 KB; a body at the 512 KiB limit stores about
   * 700 KB, so five or six of those fit, where the request quota alone let one connection add
   * 76 MB in a minute. Over it, a prepare is refused (429, `proposal_bytes_limit`) until enough of
   * the window's bytes leave it. Larger than any one proposal can be, so each fits in an empty window.
   */
  proposalBytesPerConnectionPerDay: 4 * 1024 * 1024,
  /** The rolling window of `proposalBytesPerConnectionPerDay`, in hours. */
  proposalBytesWindowHours: 24,
  /**
   * What an agent proposes as done happened on or after this day (UTC): an earlier year is a typo
   * (0202 for 2026), not a training record.
   */
  earliestRecordedDate: '1900-01-01',
} as const;

/** A write proposal's states (spec 3). */
export const PROPOSAL_STATUSES = ['prepared', 'committed', 'rejected', 'expired', 'conflicted', 'undone'] as const;

/** Every instance looks at the maintenance switch at least this often: a pause reaches all of them within it. */
export const MAINTENANCE_CHECK_EVERY_MS = 2000;

/** An athlete's access history (what each connection read) is kept this many days. */
export const ACCESS_HISTORY_DAYS = 90;
/** Each instance writes the reads it counted at least this often: what a crash can lose. */
export const ACCESS_HISTORY_FLUSH_EVERY_MS = 10_000;

/** The name and version of a RepLedger export document (contracts/export.ts). */
export const EXPORT_FORMAT = 'repledger.export.v1';

/** The name and version of a backup's manifest (services/backup/manifest.ts). */
export const BACKUP_FORMAT = 'repledger.backup.v1';
/**
 * Pages `repledger backup` copies per step by default: 4 MB of 4 KB pages, a few milliseconds of
 * reading between progress reports. Writers never wait for a step (services/backup/backup.ts).
 */
export const BACKUP_STEP_PAGES = 1000;

/**
 * The security limits: how long credentials live and how often an address or an account may try.
 * One place, so that a review reads them together and the prose that states them is built from
 * them; each is used where it applies (oauth/provider.ts, identity/sessions.ts, web/app.ts).
 */
export const SECURITY_POLICY = {
  /** An access token lives this long; its refresh token makes the next one. */
  accessTokenSeconds: 15 * 60,
  /** A refresh token lives this long (unused, it lapses; the connection stays until disconnected). */
  refreshTokenSeconds: 30 * 86_400,
  /** An authorization code must be exchanged within this long. */
  authorizationCodeSeconds: 60,
  /** A web session ends this long after sign-in. */
  sessionMs: 12 * 3_600_000,
  /** A one-time value for a session's next page (a new bot token, in clear) not shown within this long is swept. */
  flashMs: 10 * 60_000,
  /** Wrong passwords allowed per account, and per address, within `signInWindowMs`. */
  signInAttemptsPerAccount: 5,
  signInAttemptsPerAddress: 20,
  signInWindowMs: 15 * 60_000,
  /** Sign-ups from one address within `signUpWindowMs`: enough for a household, too few to enumerate e-mail addresses. */
  signUpsPerAddress: 10,
  signUpWindowMs: 60 * 60_000,
  /** Client registrations per address within `registrationWindowMs`: a real client registers once per install. */
  registrationsPerAddress: 20,
  registrationWindowMs: 60 * 60_000,
  /** The largest form body the web app reads. */
  formBodyBytes: 16 * 1024,
} as const;
