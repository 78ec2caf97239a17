// Rejecting a proposal awaiting review (or recording that it expired). Guard, decide, append.
import { decideReject } from '../domain/proposal-review.ts';
import { athleteActor, foundOnStream, refuseWhilePaused, type ProposalCommandContext } from './moves.ts';

export async function rejectProposal(
  { deps }: ProposalCommandContext,
  athleteId: string,
  commandId: string,
): Promise<{ outcome: 'rejected' | 'expired'; position: number | null }> {
  await refuseWhilePaused(deps);
  const now = deps.clock.now();
  const { result, position } = await deps.records.commandAt(athleteId, athleteActor(athleteId), async (loaded) => {
    const events = decideReject((await foundOnStream(loaded, commandId)).entry, now);
    return { events, result: events[0]!.type === 'proposal.rejected' ? ('rejected' as const) : ('expired' as const) };
  });
  return { outcome: result, position };
}
