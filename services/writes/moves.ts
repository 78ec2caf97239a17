// What the proposal transitions share (one file each: prepare, approve, reject, undo, retention):
// the ports they use, the guard every athlete's move passes first, and a proposal found on the
// record stream as the command loop loaded it.
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { ProposalEvent, ProposalPrepared } from '../../contracts/events.ts';
import type { NormalisedAction } from '../../contracts/write.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { LastChange, Loaded, RecordService } from '../commands/record-service.ts';
import type { ChangedBy } from '../words/changes.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import type { Maintenance } from '../operations/maintenance.ts';
import type { KeyStore } from '../store/key-store.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { SealedDetails } from './sealed.ts';

type ProposalCommitted = Extract<ProposalEvent, { type: 'proposal.committed' }>;

/** What the proposal service and its transitions use of the app. */
export interface ProposalDeps {
  config: Config;
  clock: Clock;
  reads: ReadStore;
  keys: KeyStore;
  records: RecordService;
  maintenance: Maintenance;
  runner: ProjectionRunner;
  /** Told of each transition this process makes (the metrics); none by default. */
  onTransition?: (transition: ProposalTransition) => void;
}

/** A proposal's moves, as its events name them. */
export type ProposalTransition = 'prepared' | 'committed' | 'rejected' | 'expired' | 'conflicted' | 'undone';

/** A transition's context: the ports, and the sealing of proposals' details under their keys. */
export interface ProposalCommandContext {
  deps: ProposalDeps;
  sealed: SealedDetails;
}

/**
 * What the sealed part of a prepared proposal holds: the actions, and the client's reason in its
 * own words (absent from proposals prepared before reasons were taken). Proposals sealed before
 * summaries were made at view time also hold `summaries`, which nothing reads.
 */
export interface ProposalDetails {
  actions: NormalisedAction[];
  reason?: string | null;
}

/** While an operator pauses writes: the athlete's moves append to the record, so they wait too. */
export class WritesPaused extends Error {
  readonly retryAfter: number;
  constructor(seconds: number) {
    super(`changing the record is paused for maintenance; try again in ${seconds} seconds`);
    this.name = 'WritesPaused';
    this.retryAfter = seconds;
  }
}

/** The guard of every athlete's move: refused while an operator pauses writes. */
export async function refuseWhilePaused(deps: Pick<ProposalDeps, 'maintenance'>): Promise<void> {
  const wait = await deps.maintenance.retryAfter('write');
  if (wait !== null) throw new WritesPaused(wait);
}

export const athleteActor = (athleteId: string) => ({ type: 'athlete' as const, id: athleteId });

/** The proposal as the record stream holds it: its state, its prepared event, its commit if any; not found otherwise. */
export async function foundOnStream(loaded: Loaded, commandId: string) {
  const entry = loaded.proposals.get(commandId);
  const events: ProposalEvent[] = await loaded.proposalEvents(commandId);
  const prepared = events.find((e): e is ProposalPrepared => e.type === 'proposal.prepared');
  if (!entry || !prepared) throw new DomainError('not_found', `there is no proposal ${commandId}`);
  const committed = events.find((e): e is ProposalCommitted => e.type === 'proposal.committed');
  return { entry, prepared: prepared.data, committed: committed?.data ?? null };
}

/** Keys made before this instant belong to proposals past every undo: prepared + expiry + retention. */
export function retentionCutoff(now: Date): Date {
  return new Date(now.getTime() - WRITE_POLICY.recoveryRetentionDays * 86_400_000 - WRITE_POLICY.proposalExpiryMinutes * 60_000);
}

/** An actor's type as the athlete is told it: the Hevy sync is an import that runs by itself. */
export function actorAsTold<T extends string>(type: T): Exclude<T, 'hevy-sync'> | 'import' {
  return type === 'hevy-sync' ? 'import' : (type as Exclude<T, 'hevy-sync'>);
}

/** Who made a change to the record, as the athlete is told: a batch (by its client), an import, the athlete, an operator. */
export async function changedBy(loaded: Loaded, change: LastChange | null): Promise<ChangedBy> {
  if (change?.batch) {
    const events: ProposalEvent[] = await loaded.proposalEvents(change.batch.command_id);
    const made = events.find((e): e is ProposalPrepared => e.type === 'proposal.prepared');
    return {
      type: 'proposal',
      client_name: made?.data.client_name ?? 'an AI app',
      command_id: change.batch.command_id,
      move: change.batch.move === 'undo' ? 'undid' : 'approved',
    };
  }
  const actor = change && actorAsTold(change.actor.type);
  return actor === 'import' || actor === 'athlete' || actor === 'operator' ? { type: actor } : { type: 'unknown' };
}
