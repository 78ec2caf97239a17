// The agent's side of write proposals: what a connection may propose, the current write shape of
// an item, preparing a batch (decided against the record as it is, stored as an event, nothing in
// the record changed) and reading a proposal back. The athlete's review builds on the same events.
import { randomUUID } from 'node:crypto';
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { ProposalPrepared } from '../../contracts/events.ts';
import type { RecordItem, RecordKind } from '../../contracts/record.ts';
import type { z } from 'zod';
import { KIND_OPERATIONS, WRITE_KINDS, WRITE_VERSION, writeKinds, writeRecordSchemas, type writeContext, type NormalisedAction, type Proposal, type WriteKind, type WriteProposalBody } from '../../contracts/write.ts';
import { areaOf, permissionFormPath, WRITE_PERMISSIONS, type WritePermission } from '../../contracts/write-permissions.ts';
import { PROPOSALS, proposalDocOf, type ProposalDoc } from '../../projections/proposals.ts';
import { WORKOUT_DETAILS, WORKOUTS } from '../../projections/workouts.ts';
import type { ItemDoc } from '../../projections/items.ts';
import type { Caller } from '../api/auth.ts';
import type { App } from '../app.ts';
import { decidePrepare, itemKeysOf, statusAt, type PreparedProposal } from '../domain/proposal.ts';
import { itemImages } from '../domain/record.ts';
import { addDays, todayIn } from '../domain/time.ts';
import { SealedDetails } from './sealed.ts';

/** What the sealed part of a prepared proposal holds. */
export interface ProposalDetails {
  actions: NormalisedAction[];
  summaries: string[];
}

/** Where each kind's current items are read from. */
const COLLECTIONS: Record<Exclude<WriteKind, 'completed_workout'>, string> = {
  exercise: 'exercises',
  saved_routine: 'routines',
  meal: 'meals',
  recovery_checkin: 'checkins',
  body_measurement: 'body_measurements',
  goal: 'goals',
  equipment_setup: 'equipment_setups',
  fitness_preferences: 'fitness_preferences',
};

export function approvalUrl(baseUrl: string, commandId: string): string {
  return `${baseUrl}/proposals/${commandId}`;
}

/** What proposals are made of: the record stream, the read models, the clock and the write switch. */
export type ProposalDeps = Pick<App, 'config' | 'clock' | 'reads' | 'records' | 'maintenance'>;

export class ProposalService {
  readonly #app: ProposalDeps;
  readonly #sealed: SealedDetails;

  constructor(deps: ProposalDeps) {
    this.#app = deps;
    this.#sealed = new SealedDetails(deps.reads, deps.clock);
  }

  static readonly collections = SealedDetails.collections;

  /** `get_write_context`: what this connection may propose, where to ask for more, and the limits. */
  async context(caller: Caller): Promise<z.infer<typeof writeContext>> {
    const now = this.#app.clock.now();
    const timezone = caller.athlete.profile.timezone;
    const today = todayIn(timezone, now.getTime());
    const lacking = WRITE_PERMISSIONS.filter((p) => !caller.writePermissions.includes(p));
    return {
      version: WRITE_VERSION,
      grant_id: caller.grantId,
      permissions: caller.writePermissions,
      read_scopes: caller.scopes,
      permissions_url: this.#permissionsUrl(caller, lacking.length ? lacking : WRITE_PERMISSIONS),
      kinds: writeKinds.map((kind) => ({
        kind,
        areas: kind === 'goal' ? [...new Set(Object.values(GOAL_AREAS))].sort() : [areaOf(WRITE_KINDS[kind], null)],
        operations: [...KIND_OPERATIONS[kind]],
      })),
      goal_areas: GOAL_AREAS,
      limits: {
        maximum_changes: WRITE_POLICY.changesPerProposal,
        proposal_expiry_minutes: WRITE_POLICY.proposalExpiryMinutes,
        scheduling_horizon_days: WRITE_POLICY.schedulingHorizonDays,
        undo_window_days: WRITE_POLICY.undoWindowDays,
      },
      record: { timezone, today, latest_scheduling_date: addDays(today, WRITE_POLICY.schedulingHorizonDays) },
      writes_paused: (await this.#app.maintenance.retryAfter('write')) !== null,
    };
  }

  /** The permission form's address for this connection, asking for `permissions`. */
  permissionsUrl(caller: Caller, permissions: readonly WritePermission[]): string {
    return this.#permissionsUrl(caller, permissions);
  }

  #permissionsUrl(caller: Caller, permissions: readonly WritePermission[]): string {
    return `${this.#app.config.baseUrl}${permissionFormPath(caller.grantId, permissions)}`;
  }

  /**
   * `get_write_record`: the item's current body in the write shape, with its revision; null when
   * it is not in this athlete's record. The caller's read scope is checked on the item's area.
   */
  async record(caller: Caller, kind: WriteKind, id: string) {
    const athleteId = caller.athlete.athlete_id;
    let doc: ItemDoc | null;
    if (kind === 'completed_workout') {
      const [summary, detail] = await Promise.all([this.#app.reads.get<ItemDoc>(WORKOUTS, athleteId, id), this.#app.reads.get<ItemDoc>(WORKOUT_DETAILS, athleteId, id)]);
      doc = summary && detail ? { ...summary, ...detail } : null;
    } else {
      doc = await this.#app.reads.get<ItemDoc>(COLLECTIONS[kind], athleteId, id);
    }
    if (!doc) return null;
    const fields = Object.keys(writeRecordSchemas[kind].shape);
    const record = Object.fromEntries(fields.map((f) => [f, doc[f]]));
    return { kind, id, revision: doc.revision, area: areaOf(WRITE_KINDS[kind] as RecordKind, doc as { goal_type?: RecordItem<'goal'>['goal_type'] }), created_at: doc.created_at, updated_at: doc.updated_at, record };
  }

  /**
   * `prepare_write_proposal`. Decided against the record stream as it is (not a read model), so a
   * stale revision is caught however far projections lag; the proposal event is appended at the
   * revision decided against, so the `command_id` is claimed by the same append that found it free.
   */
  async prepare(caller: Caller, body: WriteProposalBody): Promise<Proposal> {
    const athleteId = caller.athlete.athlete_id;
    const now = this.#app.clock.now();
    const actor = { type: 'agent_proposal' as const, id: body.command_id };
    const found = await this.#app.records.command(athleteId, actor, async (loaded) => {
      const images = itemImages(
        loaded.events.map((e) => ({ type: e.type, data: e.data, occurred_at: String(e.metadata.occurred_at) })),
        itemKeysOf(body),
      );
      const decision = decidePrepare(
        {
          body,
          caller: { grantId: caller.grantId, clientId: caller.clientId, clientName: caller.clientName, scopes: caller.scopes, writePermissions: caller.writePermissions },
          now,
          timezone: caller.athlete.profile.timezone,
          newId: randomUUID,
        },
        loaded.state,
        loaded.proposals,
        images,
      );
      // A replay answers from the stream it was decided on: a projection worker may not have caught up.
      if (decision.outcome === 'replay') return { events: [], result: proposalDocOf(loaded.events, decision.command_id)! };
      const event = await this.#preparedEvent(athleteId, decision.proposal);
      return { events: [event], result: proposalDocOf([event], body.command_id)! };
    });
    return this.#view(athleteId, found, now);
  }

  async #preparedEvent(athleteId: string, p: PreparedProposal): Promise<ProposalPrepared> {
    const details: ProposalDetails = { actions: p.actions, summaries: p.changes.map((c) => c.summary!) };
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
        details: await this.#sealed.seal(athleteId, details),
      },
    };
  }

  /** `get_write_proposal`: only the connection that prepared it sees it; to any other it does not exist. */
  async get(caller: Caller, commandId: string): Promise<Proposal | null> {
    const athleteId = caller.athlete.athlete_id;
    const doc = await this.#app.reads.get<ProposalDoc>(PROPOSALS, athleteId, commandId);
    if (!doc || doc.grant_id !== caller.grantId) return null;
    return this.#view(athleteId, doc, this.#app.clock.now());
  }

  async #view(athleteId: string, doc: ProposalDoc, now: Date): Promise<Proposal> {
    const details = await this.#sealed.open<ProposalDetails>(athleteId, doc.details);
    const status = statusAt(doc, now);
    return {
      command_id: doc.id,
      version: WRITE_VERSION,
      status,
      client: { client_id: doc.client_id, name: doc.client_name },
      prepared_at: doc.prepared_at,
      expires_at: doc.expires_at,
      decided_at: doc.decided_at ?? (status === 'expired' ? doc.expires_at : null),
      approval_url: status === 'prepared' ? approvalUrl(this.#app.config.baseUrl, doc.id) : null,
      changes: doc.changes.map((c, i) => ({ ...c, summary: details?.summaries[i] ?? null })),
      actions: details?.actions ?? null,
      receipt: doc.receipt,
    };
  }
}

const GOAL_AREAS = {
  target_1rm: areaOf('goal', { goal_type: 'target_1rm' }),
  target_bodyweight: areaOf('goal', { goal_type: 'target_bodyweight' }),
  weekly_session_count: areaOf('goal', { goal_type: 'weekly_session_count' }),
  weekly_volume: areaOf('goal', { goal_type: 'weekly_volume' }),
  daily_calories: areaOf('goal', { goal_type: 'daily_calories' }),
  daily_protein: areaOf('goal', { goal_type: 'daily_protein' }),
};
