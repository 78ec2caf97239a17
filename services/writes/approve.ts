// Approving a proposal: its record changes and its commit in one append at the record's revision,
// or, if the record changed since preparation, the proposal becomes conflicted and nothing is
// saved; past its expiry it becomes expired. A refusal (not awaiting review) changes nothing.
// Guard (writes not paused), decide (`decideApprove`), seal the earlier bodies, append.
import { approvalKeys, committedEvent, decideApprove } from '../domain/proposal-review.ts';
import { athleteActor, foundOnStream, refuseWhilePaused, type ProposalCommandContext, type ProposalDetails } from './moves.ts';

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
    if (decision.outcome !== 'committed') return { events: decision.events, result: decision.outcome };
    const undo = await sealed.sealWith(prepared.details.key_id, decision.before);
    const committed = committedEvent({ athleteId, lastLink: loaded.lastLink, prepared, committedAt: now.toISOString(), decision, undo });
    return { events: [...decision.recordEvents, committed], result: 'committed' };
  });
  return { outcome: result, position };
}
