// Retention (spec 3 rule 3): destroys the keys of proposals prepared longer ago than the undo
// window allows (retention, plus the expiry within which a commit happens), so their actions,
// summaries and earlier bodies can no longer be read; the minimal receipts stay in the clear.
import { retentionCutoff, type ProposalCommandContext } from './moves.ts';

export async function purgeProposalKeys({ deps, sealed }: ProposalCommandContext): Promise<{ keysDestroyed: number; cutoff: string }> {
  const cutoff = retentionCutoff(deps.clock.now());
  return { keysDestroyed: await sealed.destroyBefore(cutoff), cutoff: cutoff.toISOString() };
}
