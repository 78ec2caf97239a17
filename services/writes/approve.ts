// Approving a proposal: its record changes and its commit in one append at the record's revision,
// or, if the record changed since preparation, the proposal becomes conflicted and nothing is
// saved; past its expiry it becomes expired. A refusal (not awaiting review) changes nothing.
// Guard (writes not paused), decide (`decideApprove`), seal the earlier bodies, append.
import type { ProposalEvent } from '../../contracts/events.ts';
import type { Loaded } from '../commands/record-service.ts';
import { approvalKeys, committedEvent, decideApprove } from '../domain/proposal-review.ts';
import { itemKey } from '../domain/record.ts';
import { actorAsTold, athleteActor, foundOnStream, refuseWhilePaused, type ProposalCommandContext, type ProposalDetails } from './moves.ts';

export type ApproveOutcome = 'committed' | 'expired' | 'conflicted';

export async function approveProposal(
  { deps, sealed }: ProposalCommandContext,
  athleteId: string,
  commandId: string,
): Promise<{ outcome: ApproveOutcome; position: number | null }> {
  await refuseWhilePaused(deps);
  const now = deps.clock.now();
  const { result, position } = await deps.records.commandAt<ApproveOutcome>(athleteId, athleteActor(athleteId), async (loaded) => {
    const { entry, prepared } = await foundOnStream(loaded, commandId);
    const details = await sealed.open<ProposalDetails>(prepared.details);
    const actions = details?.actions ?? null;
    const decision = decideApprove({ now, record: loaded.state, entry, prepared, actions, images: await loaded.images(approvalKeys(actions ?? [])) });
    if (decision.outcome === 'expired') return { events: decision.events, result: decision.outcome };
    if (decision.outcome === 'conflicted') return { events: [await withChangedBy(loaded, decision.events[0]!)], result: decision.outcome };
    const undo = await sealed.sealWith(prepared.details.key_id, decision.before);
    const committed = committedEvent({ athleteId, lastLink: loaded.lastLink, prepared, committedAt: now.toISOString(), decision, undo });
    return { events: [...decision.recordEvents, committed], result: 'committed' };
  });
  return { outcome: result, position };
}

type ProposalConflicted = Extract<ProposalEvent, { type: 'proposal.conflicted' }>;

/** The conflict with what last changed its record, so that its history says who (the athlete's own edit, an import, a batch). */
async function withChangedBy(loaded: Loaded, event: ProposalEvent): Promise<ProposalEvent> {
  if (event.type !== 'proposal.conflicted') return event;
  const conflict: ProposalConflicted['data']['conflict'] = event.data.conflict;
  // A day taken names the new check-in, which never changed: the one in the way is another.
  const change = conflict.reason === 'taken' ? null : await loaded.lastChange(itemKey(conflict.kind, conflict.id));
  if (!change) return event;
  const type = change.batch || change.actor.type === 'agent_proposal' ? 'proposal' : actorAsTold(change.actor.type);
  return { ...event, data: { ...event.data, conflict: { ...conflict, changed_by: { type, at: change.at, command_id: change.batch?.command_id ?? null } } } };
}
