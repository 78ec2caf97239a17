// Undoing a committed batch as a whole, or refusing (`ReviewRefusal`) and changing nothing.
// Guard (writes not paused; only a committed batch), open its earlier bodies, decide
// (`decideUndo`), append; answers the log position of the undo, for a read that must show it.
import { decideUndo, ReviewRefusal, undoneEvent, type BeforeImage } from '../domain/proposal-review.ts';
import { statusAt } from '../domain/proposal.ts';
import { athleteActor, foundOnStream, refuseWhilePaused, type ProposalCommandContext } from './moves.ts';

export async function undoProposal({ deps, sealed }: ProposalCommandContext, athleteId: string, commandId: string): Promise<{ position: number | null }> {
  await refuseWhilePaused(deps);
  const now = deps.clock.now();
  const { position } = await deps.records.commandAt(athleteId, athleteActor(athleteId), async (loaded) => {
    const { entry, prepared, committed } = await foundOnStream(loaded, commandId);
    if (!committed) throw new ReviewRefusal('not_committed', `this proposal is ${statusAt(entry, now)}; only a committed proposal can be undone`);
    const before = await sealed.open<BeforeImage[]>(committed.undo);
    const decision = decideUndo({
      now,
      record: loaded.state,
      entry,
      committedAt: committed.committed_at,
      affected: committed.affected,
      dependencies: prepared.dependencies,
      before,
    });
    const undone = undoneEvent({ athleteId, lastLink: loaded.lastLink, commandId, undoneAt: now.toISOString(), decision });
    return { events: [...decision.recordEvents, undone], result: undefined };
  });
  return { position };
}
