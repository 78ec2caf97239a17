// Event schemas. Every change to an athlete's record or account is one of these; state is
// derived from them only. Record items change through `<kind>.created|updated|deleted`, each
// carrying the item's new integer revision, so that a later write proposal can state the
// revision it was prepared against and an approval can detect a changed record.
import { z } from 'zod';
import { dateTime, isVisibleText, readScope, subscriptionTier, uuid } from './common.ts';
import { importApp, profile, recordItemSchemas, recordKinds, type RecordItem, type RecordKind } from './record.ts';
import { writeKind, writeOp } from './write.ts';
import { writePermission } from './write-permissions.ts';

export const revision = z.number().int().positive();

export const actor = z.strictObject({
  type: z.enum(['athlete', 'operator', 'import', 'agent_proposal', 'hevy-sync']),
  /** Who: athlete id, operator name, import file digest, proposal command id, or the syncing process. */
  id: z.string().min(1).max(200),
});
export type Actor = z.infer<typeof actor>;

export const eventMetadata = z.strictObject({
  occurred_at: dateTime,
  actor,
  /** Whose record or account the event belongs to (absent on events written before it was kept). */
  athlete_id: uuid.optional(),
});

function recordEventSchemas<K extends RecordKind>(kind: K) {
  const item = recordItemSchemas[kind] as unknown as z.ZodType<RecordItem<K>>;
  return [
    // `created_at` is on an item brought back after a delete (an undo): the time it was first
    // created, which it keeps (a workout without a start is dated by it). An item carried over
    // from a RepLedger export also has `updated_at`, its last change there: it arrives with the
    // revision and the times it had, so reads of the two records agree (docs/decisions.md).
    z.strictObject({
      type: z.literal(`${kind}.created`),
      data: z.strictObject({ item, revision, created_at: dateTime.optional(), updated_at: dateTime.optional() }),
    }),
    z.strictObject({ type: z.literal(`${kind}.updated`), data: z.strictObject({ item, revision }) }),
    z.strictObject({ type: z.literal(`${kind}.deleted`), data: z.strictObject({ id: uuid, revision }) }),
  ] as const;
}

export const importCompleted = z.strictObject({
  type: z.literal('import.completed'),
  data: z.strictObject({
    app: z.enum([...importApp.options, 'repledger']),
    file_name: z.string().min(1).max(500),
    file_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    workouts_added: z.number().int().nonnegative(),
    workouts_skipped: z.number().int().nonnegative(),
    exercises_added: z.number().int().nonnegative(),
    /** Body measurements and meals, for the exports that hold them (absent: none). */
    measurements_added: z.number().int().nonnegative().optional(),
    meals_added: z.number().int().nonnegative().optional(),
    /** Measurements and meals already in the record, skipped. */
    others_skipped: z.number().int().nonnegative().optional(),
  }),
});

/**
 * One run of the Hevy sync (services/sync/hevy-sync.ts), appended with the record changes it made,
 * in one append: where the next run reads Hevy's events feed from (`next_since`) moves with the
 * changes or not at all, so a restart resumes there with nothing lost or applied twice.
 */
export const hevySynced = z.strictObject({
  type: z.literal('hevy.synced'),
  data: z.strictObject({
    /** The `since` this run read Hevy's events feed from. */
    since: dateTime,
    /** The `since` of the next run. */
    next_since: dateTime,
    events_read: z.number().int().nonnegative(),
    workouts_created: z.number().int().nonnegative(),
    workouts_updated: z.number().int().nonnegative(),
    workouts_deleted: z.number().int().nonnegative(),
    workouts_unchanged: z.number().int().nonnegative(),
    exercises_added: z.number().int().nonnegative(),
    /** Hevy workouts left out, and why (at most 20 named; `skipped_count` counts all). */
    skipped: z.array(z.strictObject({ hevy_id: z.string().min(1).max(100), reason: z.string().min(1).max(300) })).max(20),
    skipped_count: z.number().int().nonnegative(),
  }),
});

/** Events of the `record-<athlete id>` stream. */
export const recordEvent = z.discriminatedUnion('type', [...recordKinds.flatMap((k) => recordEventSchemas(k)), importCompleted, hevySynced] as unknown as [
  z.ZodObject,
  ...z.ZodObject[],
]);

/**
 * Data encrypted with a key of its own (AES-256-GCM), kept outside the log: destroying the key is
 * how the append-only log forgets what retention removes (docs/decisions.md).
 */
export const sealed = z.strictObject({
  key_id: uuid,
  iv: z.base64(),
  tag: z.base64(),
  ciphertext: z.base64(),
});
export type Sealed = z.infer<typeof sealed>;

/** A change of a proposal as the log keeps it in the clear: what and which item, never a field value. */
export const proposalChangeRef = z.strictObject({
  index: z.number().int().nonnegative(),
  op: writeOp,
  kind: writeKind,
  id: uuid,
  area: readScope,
  base_revision: revision.nullable(),
});

/** What a committed proposal did to one action's item: the receipt's line, without any value. */
export const receiptChangeRef = z.strictObject({
  index: z.number().int().nonnegative(),
  op: writeOp,
  kind: writeKind,
  id: uuid,
  revision_before: revision.nullable(),
  revision_after: revision,
});

/** An item a commit or an undo changed, and its revisions around it (`before` null: it was created). */
export const affectedItem = z.strictObject({
  kind: z.enum(recordKinds as [RecordKind, ...RecordKind[]]),
  id: uuid,
  /** What the commit or undo did to it. */
  change: z.enum(['created', 'updated', 'deleted']),
  revision_before: revision.nullable(),
  revision_after: revision,
});
export type AffectedItem = z.infer<typeof affectedItem>;

/**
 * A link of the athlete's receipt chain (services/domain/receipt-chain.ts), stored in the commit or
 * undo it covers so that the same atomic append writes both. Absent on events from before the chain.
 */
export const receiptLink = z.strictObject({
  sequence: z.number().int().positive(),
  previous: z.string().regex(/^[0-9a-f]{64}$/),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  record_events: z.number().int().nonnegative(),
});

/**
 * Proposal events live on the record stream they change, so that approving one appends its record
 * events and its transition together, at the record's expected revision (DESIGN, Writes), and a
 * `command_id` is claimed by the same append that checked it was free.
 */
export const proposalEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('proposal.prepared'),
    data: z.strictObject({
      command_id: uuid,
      grant_id: uuid,
      client_id: z.string().min(1).max(2000),
      client_name: z.string().min(1).max(200),
      /** SHA-256 of the canonical JSON body: an identical replay is recognised by it. */
      body_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      prepared_at: dateTime,
      expires_at: dateTime,
      changes: z.array(proposalChangeRef).min(1),
      /** Items the batch relies on without changing them (an exercise a new workout uses), at the revision seen. */
      dependencies: z.array(z.strictObject({ kind: z.enum(recordKinds as [RecordKind, ...RecordKind[]]), id: uuid, revision })),
      /** The normalised actions and their summaries. */
      details: sealed,
    }),
  }),
  z.strictObject({
    // The athlete approved: appended with the batch's record events, in one append.
    type: z.literal('proposal.committed'),
    data: z.strictObject({
      command_id: uuid,
      committed_at: dateTime,
      /** Per action, its revisions: the receipt. */
      changes: z.array(receiptChangeRef).min(1),
      /** Every item the commit changed (a deleted workout's feedback too), with its revisions. */
      affected: z.array(affectedItem).min(1),
      /** The bodies the affected items had before, for undo: sealed under the proposal's key. */
      undo: sealed,
      link: receiptLink.optional(),
    }),
  }),
  z.strictObject({ type: z.literal('proposal.rejected'), data: z.strictObject({ command_id: uuid, rejected_at: dateTime }) }),
  z.strictObject({ type: z.literal('proposal.expired'), data: z.strictObject({ command_id: uuid, expired_at: dateTime }) }),
  z.strictObject({
    // An approval found the record changed since preparation: nothing saved.
    type: z.literal('proposal.conflicted'),
    data: z.strictObject({
      command_id: uuid,
      conflicted_at: dateTime,
      conflict: z.strictObject({
        action_index: z.number().int().nonnegative().nullable(),
        kind: z.enum(recordKinds as [RecordKind, ...RecordKind[]]),
        id: uuid,
        reason: z.enum(['changed', 'removed', 'taken']),
        /**
         * What last changed the record (absent when the record names no earlier change, and on
         * events from before it was kept): the athlete's own edit, an import, an operator, or a
         * batch (`command_id`) the athlete approved or undid.
         */
        changed_by: z.strictObject({ type: z.enum(['athlete', 'import', 'operator', 'proposal']), at: dateTime, command_id: uuid.nullable() }).optional(),
      }),
    }),
  }),
  z.strictObject({
    // The athlete undid a committed batch: appended with the restoring record events.
    type: z.literal('proposal.undone'),
    data: z.strictObject({ command_id: uuid, undone_at: dateTime, affected: z.array(affectedItem).min(1), link: receiptLink.optional() }),
  }),
]);
export type ProposalEvent = z.infer<typeof proposalEvent>;
export type ProposalPrepared = Extract<ProposalEvent, { type: 'proposal.prepared' }>;

/** What an item was before a change that can be undone (null `item`: the change created it). */
export const beforeImage = z.strictObject({
  kind: z.enum(recordKinds as [RecordKind, ...RecordKind[]]),
  id: uuid,
  item: z.looseObject({ id: uuid }).nullable(),
  /** When it was first created; a restored item keeps it. */
  created_at: dateTime.nullable(),
});

/**
 * The athlete's own change to their record, made in the web app: appended after its record events,
 * in one append. It keeps what the changed items were before (the athlete's own earlier values,
 * which the stream holds anyway), so that the athlete can undo their last change.
 */
export const editEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('edit.saved'),
    data: z.strictObject({ edit_id: uuid, saved_at: dateTime, affected: z.array(affectedItem).min(1), before: z.array(beforeImage).min(1) }),
  }),
  z.strictObject({
    // The athlete undid their last change: appended with the restoring record events.
    type: z.literal('edit.undone'),
    data: z.strictObject({ edit_id: uuid, undone_at: dateTime, affected: z.array(affectedItem).min(1) }),
  }),
]);
export type EditEvent = z.infer<typeof editEvent>;
export type EditSaved = Extract<EditEvent, { type: 'edit.saved' }>;

/** Every event of a record stream: record changes, imports, proposal transitions and the athlete's edits. */
export const recordStreamEvent = z.union([recordEvent, proposalEvent, editEvent]);
export type RecordStreamEvent = RecordEvent | ProposalEvent | EditEvent;

export type RecordChangeOp = 'created' | 'updated' | 'deleted';
export type RecordChangeEvent<K extends RecordKind = RecordKind> = K extends RecordKind
  ?
      | { type: `${K}.created` | `${K}.updated`; data: { item: RecordItem<K>; revision: number } }
      | { type: `${K}.deleted`; data: { id: string; revision: number } }
  : never;
export type ImportCompletedEvent = z.infer<typeof importCompleted>;
export type HevySyncedEvent = z.infer<typeof hevySynced>;
export type RecordEvent = RecordChangeEvent | ImportCompletedEvent | HevySyncedEvent;

/** Events of the `athlete-<athlete id>` stream and the e-mail claim stream. */
export const athleteEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('athlete.email_claimed'),
    data: z.strictObject({ athlete_id: uuid, email: z.email() }),
  }),
  z.strictObject({
    type: z.literal('athlete.registered'),
    data: z.strictObject({
      athlete_id: uuid,
      email: z.email(),
      password_hash: z.string().min(1),
      profile,
      tier: subscriptionTier,
    }),
  }),
  z.strictObject({ type: z.literal('athlete.profile_updated'), data: z.strictObject({ athlete_id: uuid, profile }) }),
  z.strictObject({
    type: z.literal('subscription.changed'),
    data: z.strictObject({ athlete_id: uuid, tier: subscriptionTier }),
  }),
  /** A new password: the athlete's own change, or an operator's reset (the actor says which). */
  z.strictObject({
    type: z.literal('athlete.password_changed'),
    data: z.strictObject({ athlete_id: uuid, password_hash: z.string().min(1) }),
  }),
  /**
   * The account's deletion has begun (services/identity/account-deletion.ts): from here it cannot
   * sign in or be used, and a deletion run again finishes it. The stream itself is deleted last.
   */
  z.strictObject({ type: z.literal('athlete.deletion_started'), data: z.strictObject({ athlete_id: uuid }) }),
]);
export type AthleteEvent = z.infer<typeof athleteEvent>;

/**
 * Why a connection ended: the athlete disconnected it, or the authorization server revoked its
 * grant (a refresh token or authorization code used twice, which suggests a stolen token; the
 * client revoking its own token; the athlete signing out of the authorization server).
 */
export const disconnectReason = z.enum([
  'athlete',
  'refresh_token_reused',
  'authorization_code_reused',
  'client_revoked',
  'signed_out',
  'authorization_server',
]);
export type DisconnectReason = z.infer<typeof disconnectReason>;

/** The athlete's name for a connection: one line of 1-100 characters, trimmed, with at least one visible. */
export const CONNECTION_LABEL_MAX = 100;
export const connectionLabel = z
  .string()
  .min(1)
  .max(CONNECTION_LABEL_MAX)
  .refine((s) => s === s.trim() && isVisibleText(s) && !/\p{Cc}/u.test(s), 'a name is one line with a visible character and no spaces around it');

/**
 * Events of the `connections-<athlete id>` stream: which AI clients may read which areas. The
 * grant id is the authorization server's; disconnecting stops every token of the grant.
 */
export const connectionEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('grant.connected'),
    data: z.strictObject({
      grant_id: uuid,
      /** The authorization server's id of the grant: its tokens are revoked by it. */
      oauth_grant_id: z.string().min(1).max(200),
      athlete_id: uuid,
      client_id: z.string().min(1).max(2000),
      client_name: z.string().min(1).max(200),
      redirect_host: z.string().min(1).max(300),
      scopes: z.array(readScope).min(1),
    }),
  }),
  z.strictObject({
    type: z.literal('grant.scopes_changed'),
    data: z.strictObject({ grant_id: uuid, athlete_id: uuid, scopes: z.array(readScope).min(1) }),
  }),
  z.strictObject({
    // Which changes the client may propose (spec 5.3): granted by the athlete, turned off in settings.
    type: z.literal('grant.write_permissions_changed'),
    data: z.strictObject({ grant_id: uuid, athlete_id: uuid, write_permissions: z.array(writePermission) }),
  }),
  z.strictObject({
    // The athlete's own name for the connection, to tell apart clients that call themselves the same.
    type: z.literal('grant.renamed'),
    data: z.strictObject({ grant_id: uuid, athlete_id: uuid, label: connectionLabel }),
  }),
  z.strictObject({
    type: z.literal('grant.disconnected'),
    /** `reason` is absent on events written before it was recorded. */
    data: z.strictObject({ grant_id: uuid, athlete_id: uuid, reason: disconnectReason.optional() }),
  }),
]);
export type ConnectionEvent = z.infer<typeof connectionEvent>;

/** Events of the `bot_tokens-<athlete id>` stream. Only the token's SHA-256 is ever stored. */
export const botTokenEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bot_token.created'),
    data: z.strictObject({
      token_id: uuid,
      athlete_id: uuid,
      name: z.string().min(1).max(100),
      token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      /** The token's first characters, so the athlete can tell tokens apart (absent on tokens made before it was kept). */
      token_prefix: z
        .string()
        .regex(/^rlb_[A-Za-z0-9_-]{4}$/)
        .optional(),
    }),
  }),
  z.strictObject({ type: z.literal('bot_token.revoked'), data: z.strictObject({ token_id: uuid, athlete_id: uuid }) }),
]);
export type BotTokenEvent = z.infer<typeof botTokenEvent>;

/**
 * Events of the `account_deletions` stream: one per deleted account, naming only its id (a random
 * UUID that nothing left links to anyone). Projections forget that athlete's documents when they
 * reach it, so a replay of a log that still holds the account's events (KurrentDB before a
 * scavenge), or one racing the deletion, never brings them back. Older events have no id.
 */
export const accountDeletionEvent = z.strictObject({
  type: z.literal('account.deleted'),
  data: z.strictObject({ athlete_id: uuid.optional() }),
});
export type AccountDeletionEvent = z.infer<typeof accountDeletionEvent>;

/**
 * Events of the `hevy-<athlete id>` stream: the athlete's Hevy connection (services/sync/hevy-sync.ts).
 * The API key is only ever sealed under a key of its own (`key`): disconnecting destroys that key.
 */
export const hevyConnectionEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('hevy.connected'),
    data: z.strictObject({
      connection_id: uuid,
      key: sealed,
      /** Whose Hevy account the key opens, as Hevy's /v1/user/info said when it was checked. */
      hevy_user: z.strictObject({ id: z.string().min(1).max(100), name: z.string().max(200).nullable() }),
    }),
  }),
  /** The key sealed again under a new key, the old one destroyed: a sealing key never lives long enough for retention's purge. */
  z.strictObject({ type: z.literal('hevy.key_resealed'), data: z.strictObject({ connection_id: uuid, key: sealed }) }),
  z.strictObject({ type: z.literal('hevy.paused'), data: z.strictObject({ connection_id: uuid }) }),
  z.strictObject({ type: z.literal('hevy.resumed'), data: z.strictObject({ connection_id: uuid }) }),
  z.strictObject({ type: z.literal('hevy.disconnected'), data: z.strictObject({ connection_id: uuid }) }),
]);
export type HevyConnectionEvent = z.infer<typeof hevyConnectionEvent>;

export type DomainEvent = RecordEvent | ProposalEvent | AthleteEvent | ConnectionEvent | BotTokenEvent | HevyConnectionEvent | AccountDeletionEvent;

export const streams = {
  record: (athleteId: string) => `record-${athleteId}`,
  athlete: (athleteId: string) => `athlete-${athleteId}`,
  emailClaim: (emailDigest: string) => `athlete_email-${emailDigest}`,
  connections: (athleteId: string) => `connections-${athleteId}`,
  botTokens: (athleteId: string) => `bot_tokens-${athleteId}`,
  /** The athlete's Hevy connection (its sealed API key, paused or not); the sync's position is on the record stream. */
  hevy: (athleteId: string) => `hevy-${athleteId}`,
  /** One `account.deleted` event per deleted account, with no personal data: the operator's count, and what projections forget. */
  accountDeletions: () => 'account_deletions',
} as const;

/** Splits `workout.created` into its kind and operation; null for events that are not record changes. */
export function recordChangeOf(type: string): { kind: RecordKind; op: RecordChangeOp } | null {
  const dot = type.lastIndexOf('.');
  const kind = type.slice(0, dot) as RecordKind;
  const op = type.slice(dot + 1) as RecordChangeOp;
  if (!(kind in recordItemSchemas) || !['created', 'updated', 'deleted'].includes(op)) return null;
  return { kind, op };
}

export { dateTime };
