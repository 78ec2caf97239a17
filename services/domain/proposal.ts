// Write proposals, decided. `decidePrepare` turns an agent's batch into a prepared proposal or
// refuses it, against the record as it is now; nothing in the record changes. The proposal's
// life cycle (spec 3) is folded from its events on the record stream by `evolveProposals`.
import { createHash } from 'node:crypto';
import { WRITE_POLICY, type ReadScope } from '../../contracts/common.ts';
import type { ProposalEvent, ProposalPrepared } from '../../contracts/events.ts';
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import {
  WRITE_KINDS,
  type NormalisedAction,
  type ProposalChange,
  type ProposalStatus,
  type WriteAction,
  type WriteKind,
  type WriteProposalBody,
} from '../../contracts/write.ts';
import { areaOf, requirementOf, type WritePermission } from '../../contracts/write-permissions.ts';
import { DomainError, type Issue } from './errors.ts';
import { decideChanges, itemKey, live, type ItemImage, type RecordChange, type RecordState } from './record.ts';
import { CLOCK_SKEW_MS } from './clock.ts';
import { PartialMap } from './partial-map.ts';
import { addDays, localDateOf, todayIn } from './time.ts';

// ---------------------------------------------------------------------------------------------
// State

export interface ProposalEntry {
  command_id: string;
  grant_id: string;
  body_sha256: string;
  status: ProposalStatus;
  prepared_at: string;
  expires_at: string;
  /**
   * The length of its sealed details as the log stores them (the base64 ciphertext, in bytes):
   * what a connection's daily bytes limit counts. Taken from `proposal.prepared`, so every event
   * ever written has it.
   */
  sealed_bytes: number;
}

/**
 * The proposals on a record, by command id (in the order they were prepared), with what the
 * limits ask of each connection at hand: its proposals not yet decided, and those prepared
 * lately. Without that, every prepare walked all the record's proposals twice (5 ms at 20,000).
 *
 * Both lists forget, when read at `now`, what no check from then on can want: proposals expired,
 * or prepared more than a day, before `now` less the clock skew allowed (CLOCK_SKEW_MS: a clock
 * set back by that much still reads them alike). Forgetting then, not as events are folded, keeps
 * folding and a snapshot's decoding free of it: the first check after a cold start pays for it once.
 */
export class ProposalState extends PartialMap<ProposalEntry> {
  readonly #open = new Map<string, Set<string>>();
  readonly #recent = new Map<string, string[]>();

  constructor(entries?: Iterable<readonly [string, ProposalEntry]>) {
    super('proposals');
    if (entries) for (const [id, entry] of entries) this.set(id, entry);
  }

  /**
   * The ids the limits may still ask for as of `now`, of any connection: those left in either list
   * once each is read at `now` (which forgets the rest, as any check would). A snapshot holds
   * their entries at hand, so that a cold command checks the limits without loading the
   * proposals' buckets; entries merged from a bucket join neither list (`merge` bypasses `set`).
   */
  listed(now: Date): Set<string> {
    // Both lists: a proposal open longer than the window is not recent, were expiry ever that long.
    const ids = new Set<string>();
    for (const grant of new Set([...this.#open.keys(), ...this.#recent.keys()])) {
      for (const p of this.openOf(grant, now)) ids.add(p.command_id);
      for (const p of this.recentOf(grant, now)) ids.add(p.command_id);
    }
    return ids;
  }

  override set(id: string, entry: ProposalEntry): this {
    const known = super.has(id);
    super.set(id, entry);
    if (entry.status === 'prepared') listOf(this.#open, entry.grant_id, () => new Set()).add(id);
    else this.#open.get(entry.grant_id)?.delete(id);
    if (!known) listOf(this.#recent, entry.grant_id, () => []).push(id);
    return this;
  }

  override delete(id: string): boolean {
    const entry = super.get(id);
    if (!entry) return false;
    this.#open.get(entry.grant_id)?.delete(id);
    const recent = this.#recent.get(entry.grant_id);
    if (recent?.includes(id)) recent.splice(recent.indexOf(id), 1);
    return super.delete(id);
  }

  override clear(): void {
    this.#open.clear();
    this.#recent.clear();
    super.clear();
  }

  /** The connection's proposals not yet decided as of `now`, and perhaps some expired since (see `statusAt`). */
  openOf(grantId: string, now: Date): ProposalEntry[] {
    const open = this.#open.get(grantId);
    if (!open) return [];
    // In the order prepared, so mostly in the order they expire: forgetting stops at the first
    // to stay (one out of order, by a clock ahead, waits its turn; checks read each entry's times).
    const before = now.getTime() - CLOCK_SKEW_MS;
    for (const id of open) {
      if (Date.parse(super.get(id)!.expires_at) > before) break;
      open.delete(id);
    }
    return [...open].map((id) => super.get(id)!);
  }

  /** The connection's proposals prepared lately: all of those prepared in the day before `now`, oldest first. */
  recentOf(grantId: string, now: Date): ProposalEntry[] {
    const recent = this.#recent.get(grantId);
    if (!recent) return [];
    const before = now.getTime() - CLOCK_SKEW_MS - WINDOW_MS;
    let old = 0;
    while (old < recent.length && Date.parse(super.get(recent[old]!)!.prepared_at) <= before) old++;
    if (old > 0) recent.splice(0, old);
    return recent.map((id) => super.get(id)!);
  }
}

function listOf<T>(lists: Map<string, T>, key: string, make: () => T): T {
  let list = lists.get(key);
  if (list === undefined) lists.set(key, (list = make()));
  return list;
}

/** The status each later event of the life cycle moves a proposal to. */
const MOVES: Record<Exclude<ProposalEvent['type'], 'proposal.prepared'>, ProposalStatus> = {
  'proposal.committed': 'committed',
  'proposal.rejected': 'rejected',
  'proposal.expired': 'expired',
  'proposal.conflicted': 'conflicted',
  'proposal.undone': 'undone',
};

export function evolveProposals(state: ProposalState, event: { type: string; data: unknown }): ProposalState {
  if (!event.type.startsWith('proposal.')) return state;
  const e = event as ProposalEvent;
  if (e.type === 'proposal.prepared') {
    const d = e.data;
    state.set(d.command_id, {
      command_id: d.command_id,
      grant_id: d.grant_id,
      body_sha256: d.body_sha256,
      status: 'prepared',
      prepared_at: d.prepared_at,
      expires_at: d.expires_at,
      sealed_bytes: d.details?.ciphertext.length ?? 0,
    });
    return state;
  }
  const entry = state.get(e.data.command_id);
  if (entry) state.set(entry.command_id, { ...entry, status: MOVES[e.type] });
  return state;
}

/**
 * The status as of `now`: a prepared proposal past its expiry is expired at once, whether or not
 * the transition has been written yet.
 */
export function statusAt(entry: Pick<ProposalEntry, 'status' | 'expires_at'>, now: Date): ProposalStatus {
  return entry.status === 'prepared' && now.getTime() >= Date.parse(entry.expires_at) ? 'expired' : entry.status;
}

export function expiresAt(preparedAt: Date): string {
  return new Date(preparedAt.getTime() + WRITE_POLICY.proposalExpiryMinutes * 60_000).toISOString();
}

/** SHA-256 of the body as canonical JSON (keys sorted), so that key order does not make a replay differ. */
export function bodyDigest(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * JSON with every object's keys sorted (by UTF-16 code units) and undefined members left out.
 * Receipt links hash it, so its output may never change. Built in one string, not with arrays of
 * entries: a commit's receipt and record events are hashed with it on every approve and undo.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // As `join` writes them: nothing for what JSON cannot hold.
      out += (canonicalJson(value[i]) as string | undefined) ?? '';
    }
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(object).sort()) {
      const member = object[key];
      if (member === undefined) continue;
      if (out.length > 1) out += ',';
      out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// Refusals

/** Why a proposal was refused, finer than the HTTP status (docs/decisions.md lists them). */
export type WriteRefusalReason =
  | 'invalid_action'
  | 'unknown_item'
  | 'stale_revision'
  | 'write_permission_missing'
  | 'read_scope_missing'
  | 'beyond_horizon'
  | 'command_id_reused'
  | 'command_id_taken'
  /** The connection has as many proposals awaiting review as it may (`WRITE_POLICY.pendingProposalsPerConnection`). */
  | 'pending_limit'
  /** The connection's proposals of the last day would take more than it may (`WRITE_POLICY.proposalBytesPerConnectionPerDay`). */
  | 'bytes_limit';

export class WriteRefusal extends Error {
  readonly reason: WriteRefusalReason;
  readonly actionIndex: number | null;
  /** Where in the body, as `actions.2.record.date`. */
  readonly field: string | null;
  readonly missingPermissions: WritePermission[];
  readonly missingScopes: ReadScope[];
  /** Seconds until the same prepare can succeed, for a limit that time lifts (whole seconds, at least 1). */
  readonly retryAfter: number | null;
  constructor(
    reason: WriteRefusalReason,
    message: string,
    at: { actionIndex?: number; field?: string; missingPermissions?: WritePermission[]; missingScopes?: ReadScope[]; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = 'WriteRefusal';
    this.reason = reason;
    this.actionIndex = at.actionIndex ?? null;
    this.field = at.field ?? (at.actionIndex !== undefined ? `actions.${at.actionIndex}` : null);
    this.missingPermissions = at.missingPermissions ?? [];
    this.missingScopes = at.missingScopes ?? [];
    this.retryAfter = at.retryAfter ?? null;
  }
}

// ---------------------------------------------------------------------------------------------
// Preparation

export interface ProposingCaller {
  grantId: string;
  clientId: string;
  clientName: string;
  scopes: readonly ReadScope[];
  writePermissions: readonly WritePermission[];
}

export interface PrepareCommand {
  body: WriteProposalBody;
  caller: ProposingCaller;
  now: Date;
  timezone: string;
  /** Ids for the records the batch creates. */
  newId: () => string;
  /** The caps on the connection's pending work; `WRITE_POLICY`'s unless an operator raised them. */
  limits?: PendingWorkLimits;
}

export interface PreparedProposal {
  command_id: string;
  grant_id: string;
  client_id: string;
  client_name: string;
  body_sha256: string;
  prepared_at: string;
  expires_at: string;
  changes: ProposalChange[];
  dependencies: Array<{ kind: RecordKind; id: string; revision: number }>;
  actions: NormalisedAction[];
}

export type PrepareDecision = { outcome: 'replay'; command_id: string } | { outcome: 'prepared'; proposal: PreparedProposal };

/**
 * Decides a proposal. `images` holds the current body of every item an update or delete names
 * (see `itemKeysOf`). Refuses with a `WriteRefusal` naming the action and field; a refusal stores
 * nothing, so the `command_id` stays free.
 */
export function decidePrepare(command: PrepareCommand, record: RecordState, proposals: ProposalState, images: ReadonlyMap<string, ItemImage>): PrepareDecision {
  const { body, caller, now } = command;
  const digest = bodyDigest(body);
  const existing = proposals.get(body.command_id);
  if (existing) {
    if (existing.grant_id !== caller.grantId) {
      throw new WriteRefusal('command_id_taken', 'this command_id belongs to a proposal of another connection; choose a new uuid', { field: 'command_id' });
    }
    if (existing.body_sha256 === digest) return { outcome: 'replay', command_id: existing.command_id };
    throw new WriteRefusal(
      'command_id_reused',
      `command_id ${existing.command_id} is the proposal prepared at ${existing.prepared_at} with another body; resend that body unchanged, or choose a new command_id for a new proposal (get_write_proposal shows the first)`,
      { field: 'command_id' },
    );
  }
  // After the replay, which answers whatever the limits: before any work on the batch.
  refuseOverPending(proposals, caller.grantId, now, command.limits ?? POLICY_LIMITS);

  const actions = normalise(body.actions, record, command.newId);
  refuseRepeatedItems(actions);
  const changes: ProposalChange[] = [];
  actions.forEach((action, index) => {
    // What an update or delete needs is refused before the item is looked up, as far as it can be
    // told without it: otherwise an item of an area the connection may not read (403) would tell
    // itself apart from an id that is not there (404).
    if (action.op !== 'create') checkPermission(action, presumedBefore(action), caller, index);
    const before = action.op === 'create' ? null : imageOf(images, action, index);
    checkPermission(action, before, caller, index);
    checkDates(action, before, command, index);
    changes.push({
      index,
      op: action.op,
      kind: action.kind,
      id: action.id,
      area: areaOf(WRITE_KINDS[action.kind], (action.record ?? before) as object),
      base_revision: action.base_revision,
      summary: summarise(action, before, record, actions, command.timezone),
    });
  });

  const dependencies = dependenciesOf(actions, record);
  decideRecordChanges(actions, dependencies, record, images, caller.scopes);

  const preparedAt = now.toISOString();
  return {
    outcome: 'prepared',
    proposal: {
      command_id: body.command_id,
      grant_id: caller.grantId,
      client_id: caller.clientId,
      client_name: caller.clientName,
      body_sha256: digest,
      prepared_at: preparedAt,
      expires_at: expiresAt(now),
      changes,
      dependencies: dependencies.map(({ kind, id, revision }) => ({ kind, id, revision })),
      actions,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Limits on a connection's pending work, decided on the proposals of the record stream

export interface PendingWorkLimits {
  /** Proposals awaiting review at once. */
  pendingProposals: number;
  /** Sealed bytes prepared in any `WRITE_POLICY.proposalBytesWindowHours`. */
  proposalBytesPerDay: number;
}

export const POLICY_LIMITS: PendingWorkLimits = {
  pendingProposals: WRITE_POLICY.pendingProposalsPerConnection,
  proposalBytesPerDay: WRITE_POLICY.proposalBytesPerConnectionPerDay,
};

const WINDOW_MS = WRITE_POLICY.proposalBytesWindowHours * 3_600_000;

/** Whole seconds until `at`, at least 1 (spec 7.2). */
const secondsUntil = (at: number, now: Date) => Math.max(1, Math.ceil((at - now.getTime()) / 1000));

/**
 * Refuses a new proposal while the connection has `limits.pendingProposals` awaiting review (as
 * of `now`: expired ones do not count), with the seconds until the soonest of them expires. It
 * may be decided sooner, by the athlete; the agent then gets in earlier.
 */
export function refuseOverPending(proposals: ProposalState, grantId: string, now: Date, limits: PendingWorkLimits): void {
  let pending = 0;
  let soonest = Infinity;
  for (const p of proposals.openOf(grantId, now)) {
    if (statusAt(p, now) !== 'prepared') continue;
    pending++;
    soonest = Math.min(soonest, Date.parse(p.expires_at));
  }
  if (pending < limits.pendingProposals) return;
  const wait = secondsUntil(soonest, now);
  throw new WriteRefusal(
    'pending_limit',
    `this connection has ${pending} proposals awaiting the athlete's review, the most it may have at once; the soonest expires in ${wait} seconds, or sooner if the athlete approves or rejects one (send them the approval_url of each, get_write_proposal shows their status)`,
    { retryAfter: wait },
  );
}

/**
 * Refuses a new proposal of `bytes` (its sealed details as stored, see `sealedBytes`) when the
 * connection's proposals prepared in the last `WRITE_POLICY.proposalBytesWindowHours` (whatever
 * their status: the log keeps them all) and it would come to more than
 * `limits.proposalBytesPerDay`. The wait is until enough of the window's oldest leave it.
 */
export function refuseOverBytes(proposals: ProposalState, grantId: string, now: Date, bytes: number, limits: PendingWorkLimits): void {
  const since = now.getTime() - WINDOW_MS;
  const inWindow: Array<{ at: number; bytes: number }> = [];
  let used = 0;
  for (const p of proposals.recentOf(grantId, now)) {
    const at = Date.parse(p.prepared_at);
    if (at <= since) continue;
    inWindow.push({ at, bytes: p.sealed_bytes });
    used += p.sealed_bytes;
  }
  if (used + bytes <= limits.proposalBytesPerDay) return;
  inWindow.sort((a, b) => a.at - b.at);
  // The first proposal whose leaving, with those before it, makes room; the last if none does
  // (no proposal is larger than the limit, see WRITE_POLICY, so it does not come to that).
  let left = used;
  let until = inWindow.at(-1)?.at ?? now.getTime();
  for (const p of inWindow) {
    left -= p.bytes;
    if (left + bytes <= limits.proposalBytesPerDay) {
      until = p.at;
      break;
    }
  }
  const wait = secondsUntil(until + WINDOW_MS, now);
  throw new WriteRefusal(
    'bytes_limit',
    `this connection's proposals of the last ${WRITE_POLICY.proposalBytesWindowHours} hours take ${used} bytes and this one ${bytes}, more than the ${limits.proposalBytesPerDay} it may prepare in that time; it fits in ${wait} seconds (smaller batches fit sooner)`,
    { retryAfter: wait },
  );
}

/**
 * The bytes `value` takes once sealed as the log stores it: AES-GCM keeps the length of its JSON
 * (UTF-8), and base64 writes 4 characters for every 3 bytes (services/writes/sealed.ts). What
 * `ProposalEntry.sealed_bytes` reads back from the event.
 */
export function sealedBytes(value: unknown): number {
  return 4 * Math.ceil(Buffer.byteLength(JSON.stringify(value), 'utf8') / 3);
}

/** The `kind/id` keys of the items a batch updates or deletes: the images `decidePrepare` needs. */
export function itemKeysOf(body: WriteProposalBody): Set<string> {
  return new Set(body.actions.filter((a) => a.id !== undefined).map((a) => itemKey(WRITE_KINDS[a.kind], a.id!)));
}

/** Assigns ids to created records and resolves every `{ref}` to the id of the record it names. */
export function normalise(actions: WriteAction[], record: RecordState, newId: () => string): NormalisedAction[] {
  const refs = new Map<string, { index: number; kind: WriteKind; id: string }>();
  return actions.map((action, index) => {
    const id = action.op !== 'create' ? action.id! : action.kind === 'fitness_preferences' ? record.athleteId : newId();
    const resolved = action.record === undefined ? null : resolveRefs(action.record, refs, index);
    if (action.ref !== undefined) {
      if (refs.has(action.ref))
        throw new WriteRefusal('invalid_action', `ref "${action.ref}" is already used by action ${refs.get(action.ref)!.index}`, {
          actionIndex: index,
          field: `actions.${index}.ref`,
        });
      refs.set(action.ref, { index, kind: action.kind, id });
    }
    return { op: action.op, kind: action.kind, id, base_revision: action.base_revision ?? null, ref: action.ref ?? null, record: resolved };
  });
}

function resolveRefs(
  value: unknown,
  refs: ReadonlyMap<string, { index: number; kind: WriteKind; id: string }>,
  index: number,
  path = `actions.${index}.record`,
): Record<string, unknown> {
  const walk = (v: unknown, at: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}.${i}`));
    if (!v || typeof v !== 'object') return v;
    const ref = (v as { ref?: unknown }).ref;
    if (typeof ref === 'string' && Object.keys(v).length === 1) {
      const target = refs.get(ref);
      if (!target) throw new WriteRefusal('invalid_action', `no earlier action of this batch creates ref "${ref}"`, { actionIndex: index, field: at });
      if (target.kind !== 'exercise')
        throw new WriteRefusal('invalid_action', `ref "${ref}" names a ${target.kind}; only exercises are referred to`, { actionIndex: index, field: at });
      return target.id;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${at}.${k}`)]));
  };
  return walk(value, path) as Record<string, unknown>;
}

export function imageOf(images: ReadonlyMap<string, ItemImage>, action: NormalisedAction, index: number): Record<string, unknown> {
  const image = images.get(itemKey(WRITE_KINDS[action.kind], action.id));
  // An id of another athlete and an id that never existed are the same answer (spec 7.5).
  if (!image?.item)
    throw new WriteRefusal('unknown_item', `there is no ${action.kind} ${action.id} in this record`, { actionIndex: index, field: `actions.${index}.id` });
  return image.item as Record<string, unknown>;
}

/**
 * The item an update or delete changes, as far as its area can be told before it is looked up:
 * every kind but goals is of one area whatever its body; a goal's area is its type's, which the
 * item itself (or, for an update, only the new body) tells.
 */
function presumedBefore(action: NormalisedAction): object | null {
  return action.kind === 'goal' ? null : {};
}

function checkPermission(action: NormalisedAction, before: object | null, caller: ProposingCaller, index: number): void {
  const needed = requirementOf(action.op, WRITE_KINDS[action.kind], before, action.record);
  const missingPermissions = needed.permissions.filter((p) => !caller.writePermissions.includes(p));
  if (missingPermissions.length) {
    throw new WriteRefusal(
      'write_permission_missing',
      `to ${action.op} a ${action.kind} this connection needs the athlete's permission ${missingPermissions.join(' and ')}; send the athlete the permissions link`,
      {
        actionIndex: index,
        missingPermissions,
      },
    );
  }
  const missingScopes = needed.scopes.filter((s) => !caller.scopes.includes(s));
  if (missingScopes.length) {
    throw new WriteRefusal(
      'read_scope_missing',
      `to ${action.op} a ${action.kind} this connection also needs to read ${missingScopes.join(' and ')}; the athlete grants that when connecting`,
      {
        actionIndex: index,
        missingScopes,
      },
    );
  }
}

/** Scheduling stays within the horizon (spec 4.3 rule 4); what is recorded as done is not in the future. */
export function checkDates(
  action: NormalisedAction,
  before: Record<string, unknown> | null,
  command: Pick<PrepareCommand, 'now' | 'timezone'>,
  index: number,
): void {
  const r = action.record;
  if (!r) return;
  const today = todayIn(command.timezone, command.now.getTime());
  const at = (field: string) => ({ actionIndex: index, field: `actions.${index}.record.${field}` });
  if (action.kind === 'saved_routine') {
    const last = addDays(today, WRITE_POLICY.schedulingHorizonDays);
    const kept = new Set((before?.scheduled_dates as string[] | undefined) ?? []);
    (r.scheduled_dates as string[]).forEach((date, i) => {
      if (kept.has(date)) return;
      if (date < today)
        throw new WriteRefusal(
          'beyond_horizon',
          `${date} is in the past; routines are scheduled from today (${today} in ${command.timezone})`,
          at(`scheduled_dates.${i}`),
        );
      if (date > last)
        throw new WriteRefusal(
          'beyond_horizon',
          `${date} is more than ${WRITE_POLICY.schedulingHorizonDays} days ahead; the last date that can be scheduled is ${last} (${command.timezone})`,
          at(`scheduled_dates.${i}`),
        );
    });
    return;
  }
  const latest = command.now.getTime() + CLOCK_SKEW_MS;
  const instantField = { completed_workout: 'ended_at', meal: 'eaten_at', body_measurement: 'measured_at', goal: 'achieved_at' }[action.kind as string];
  // A goal not achieved has no achieved_at (null): nothing to check.
  if (instantField && typeof r[instantField] === 'string' && Date.parse(r[instantField] as string) > latest)
    throw new WriteRefusal('invalid_action', `${instantField} is in the future; only what has happened is recorded`, at(instantField));
  // ISO dates and instants with four-digit years compare as text: 0999-… sorts before 1900-01-01.
  const earliest = WRITE_POLICY.earliestRecordedDate;
  for (const field of [instantField, action.kind === 'completed_workout' ? 'started_at' : undefined, action.kind === 'recovery_checkin' ? 'date' : undefined]) {
    const value = field && r[field];
    if (typeof value === 'string' && value < earliest)
      throw new WriteRefusal('invalid_action', `${field} ${value} is before ${earliest}; check the year`, at(field!));
  }
  if (action.kind === 'recovery_checkin' && (r.date as string) > today)
    throw new WriteRefusal('invalid_action', `${r.date as string} is after today (${today} in ${command.timezone})`, at('date'));
}

/**
 * An item is changed once in a batch: a second update or delete of it would be decided against the
 * revision the first one makes, which the agent never read, and its refusal ("current revision is
 * 2; read it again") would send the agent to re-read an item that is still at 1.
 */
export function refuseRepeatedItems(actions: readonly NormalisedAction[]): void {
  const first = new Map<string, number>();
  actions.forEach((action, index) => {
    const key = `${action.kind} ${action.id}`;
    const earlier = first.get(key);
    if (earlier !== undefined) {
      throw new WriteRefusal(
        'invalid_action',
        `actions ${earlier} and ${index} both change ${action.kind} ${action.id}; a proposal changes an item once: put everything in one action`,
        {
          actionIndex: index,
          field: `actions.${index}.id`,
        },
      );
    }
    first.set(key, index);
  });
}

/** Existing exercises that records of the batch use: approval requires them unchanged. */
function dependenciesOf(
  actions: NormalisedAction[],
  record: RecordState,
): Array<{ kind: RecordKind; id: string; revision: number; actionIndex: number; field: string }> {
  const created = new Set(actions.filter((a) => a.op === 'create').map((a) => a.id));
  const seen = new Set<string>();
  const found: Array<{ kind: RecordKind; id: string; revision: number; actionIndex: number; field: string }> = [];
  actions.forEach((a, index) => {
    for (const { id, field } of exerciseIdsOf(a)) {
      if (created.has(id) || seen.has(id)) continue;
      seen.add(id);
      const current = live(record, 'exercise', id);
      if (current) found.push({ kind: 'exercise', id, revision: current.revision, actionIndex: index, field: `actions.${index}.record.${field}` });
    }
  });
  return found;
}

/** The exercises an action's record uses, with where in the record. */
export function exerciseIdsOf(action: NormalisedAction): Array<{ id: string; field: string }> {
  const r = action.record as Record<string, unknown> | null;
  if (!r) return [];
  if (action.kind === 'completed_workout' || action.kind === 'saved_routine') {
    return (r.exercises as Array<{ exercise_id: string }>).map((e, i) => ({ id: e.exercise_id, field: `exercises.${i}.exercise_id` }));
  }
  if (action.kind === 'goal' && typeof r.exercise_id === 'string') return [{ id: r.exercise_id, field: 'exercise_id' }];
  return [];
}

/** The record item an action makes: the write shape with its id, and server-made fields kept from before. */
export function recordItemOf(action: NormalisedAction, before: Record<string, unknown> | null): RecordItem {
  const item: Record<string, unknown> = { ...action.record, id: action.id };
  if (action.kind === 'completed_workout') item.source = before?.source ?? null;
  return item as unknown as RecordItem;
}

/** The record's own changes for a batch, dependencies first: what approval will decide again. */
export function recordChangesOf(
  actions: NormalisedAction[],
  dependencies: ReadonlyArray<{ kind: RecordKind; id: string; revision: number }>,
  images: ReadonlyMap<string, ItemImage>,
): RecordChange[] {
  return [
    ...dependencies.map((d): RecordChange => ({ op: 'expect', kind: d.kind, id: d.id, revision: d.revision })),
    ...actions.map((a): RecordChange => {
      const kind = WRITE_KINDS[a.kind];
      if (a.op === 'delete') return { op: 'delete', kind, id: a.id, base_revision: a.base_revision! };
      const item = recordItemOf(a, (images.get(itemKey(kind, a.id))?.item as Record<string, unknown> | undefined) ?? null);
      return a.op === 'create' ? { op: 'create', kind, item } : { op: 'update', kind, item, base_revision: a.base_revision! };
    }),
  ];
}

/**
 * Decides the batch on the record without keeping the events: every rule of the record, checked
 * now, but for what would reveal what is in an area the connection may not read. A create there
 * that collides with an item (a check-in's date taken, fitness preferences that exist) is
 * prepared like any other, and its collision is decided at approval, where it makes the proposal
 * conflicted; with the area's read scope the refusal comes now, saying what is in the way.
 */
function decideRecordChanges(
  actions: NormalisedAction[],
  dependencies: ReturnType<typeof dependenciesOf>,
  record: RecordState,
  images: ReadonlyMap<string, ItemImage>,
  readable: readonly ReadScope[],
): void {
  const changes = recordChangesOf(actions, dependencies, images);
  try {
    decideChanges(changes, record, {
      deferCollisions: (kind, item) => !readable.includes(areaOf(kind, item as { goal_type?: RecordItem<'goal'>['goal_type'] })),
    });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw refusalOf(error, changes.length, dependencies);
  }
}

/** A record decision's refusal, told in the body's terms: `changes[3].item.date` is `actions.N.record.date`. */
export function refusalOf(error: DomainError, changeCount: number, dependencies: ReturnType<typeof dependenciesOf>): WriteRefusal {
  const issue: Issue | undefined = error.issues[0];
  const match = /^(?:changes\[(\d+)\]\.?)?(.*)$/.exec(issue?.path ?? '')!;
  const changeIndex = match[1] !== undefined ? Number(match[1]) : changeCount === 1 ? 0 : null;
  const rest = match[2] ?? '';
  const reason: WriteRefusalReason = error.code === 'revision_conflict' ? 'stale_revision' : error.code === 'not_found' ? 'unknown_item' : 'invalid_action';
  if (changeIndex === null) return new WriteRefusal(reason, error.message);
  if (changeIndex < dependencies.length) {
    const d = dependencies[changeIndex]!;
    return new WriteRefusal(reason, `exercise ${d.id} changed while this was prepared; read it again`, { actionIndex: d.actionIndex, field: d.field });
  }
  const actionIndex = changeIndex - dependencies.length;
  const field = rest === 'id' || rest === 'item.id' ? 'id' : rest.startsWith('item.') ? `record.${rest.slice(5)}` : rest === 'item' ? 'record' : rest || null;
  const message = issue ? `${issue.message}${error.code === 'revision_conflict' ? '; read the item again with get_write_record' : ''}` : error.message;
  return new WriteRefusal(reason, message, { actionIndex, field: field ? `actions.${actionIndex}.${field}` : `actions.${actionIndex}` });
}

// ---------------------------------------------------------------------------------------------
// Summaries: one plain sentence per change, for the agent to relay and the athlete to read

const LABELS: Record<WriteKind, string> = {
  exercise: 'custom exercise',
  completed_workout: 'completed workout',
  saved_routine: 'saved routine',
  meal: 'meal',
  recovery_checkin: 'recovery check-in',
  body_measurement: 'body measurement',
  goal: 'goal',
  equipment_setup: 'equipment setup',
  fitness_preferences: 'fitness preferences',
};

/** How a person recognises the item: its title or name, or its date. */
function nameOf(kind: WriteKind, r: Record<string, unknown>): string {
  switch (kind) {
    case 'completed_workout':
    case 'saved_routine':
      return `"${String(r.title)}"`;
    case 'exercise':
    case 'meal':
    case 'equipment_setup':
      return `"${String(r.name)}"`;
    case 'recovery_checkin':
      return `of ${String(r.date)}`;
    case 'body_measurement':
      return `(${String(r.metric).replace('_', ' ')} ${String(r.value)})`;
    case 'goal':
      return `(${String(r.goal_type).replace(/_/g, ' ')} ${String(r.target_value)} ${String(r.target_unit)})`;
    case 'fitness_preferences':
      return '';
  }
}

function summarise(action: NormalisedAction, before: Record<string, unknown> | null, record: RecordState, all: NormalisedAction[], timezone: string): string {
  const label = LABELS[action.kind];
  if (action.op === 'delete') {
    const withFeedback = action.kind === 'completed_workout' && live(record, 'feedback', action.id) ? ', with its feedback' : '';
    return `Delete ${label} ${nameOf(action.kind, before!)}${withFeedback}`.replace(/ +$/, '');
  }
  const r = action.record!;
  if (action.op === 'create') {
    const extra =
      action.kind === 'completed_workout'
        ? ` on ${localDateOf(String(r.ended_at), timezone)}: ${count((r.exercises as unknown[]).length, 'exercise')}, ${count(
            (r.exercises as Array<{ sets: unknown[] }>).reduce((n, e) => n + e.sets.length, 0),
            'set',
          )}`
        : action.kind === 'saved_routine' && (r.scheduled_dates as string[]).length
          ? `, scheduled on ${(r.scheduled_dates as string[]).join(', ')}`
          : '';
    const uses = exerciseIdsOf(action).filter(({ id }) => all.some((a) => a.op === 'create' && a.kind === 'exercise' && a.id === id)).length;
    return `Add ${label} ${nameOf(action.kind, r)}${extra}${uses ? ' (using exercises added in this proposal)' : ''}`.replace(/ +$/, '').replace(/ :/, ':');
  }
  const changed = Object.keys(r).filter((k) => canonicalJson(r[k]) !== canonicalJson(before![k]));
  const described = changed.map((k) => (isScalar(r[k]) && isScalar(before![k]) ? `${k} ${show(before![k])} → ${show(r[k])}` : k));
  return `Change ${label} ${nameOf(action.kind, before!)}: ${described.length ? described.join(', ') : 'no field changes'}`.replace(/ :/, ':');
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const show = (v: unknown) => (v === null ? 'none' : typeof v === 'string' ? `"${v}"` : String(v));

/** The event a prepared proposal is stored as: its metadata in the clear, its details as sealed. */
export function preparedEvent(p: PreparedProposal, details: ProposalPrepared['data']['details']): ProposalPrepared {
  return {
    type: 'proposal.prepared',
    data: {
      command_id: p.command_id,
      grant_id: p.grant_id,
      client_id: p.client_id,
      client_name: p.client_name,
      body_sha256: p.body_sha256,
      prepared_at: p.prepared_at,
      expires_at: p.expires_at,
      changes: p.changes.map(({ summary: _summary, ...change }) => change),
      dependencies: p.dependencies,
      details,
    },
  };
}
