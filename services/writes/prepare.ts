// `prepare_write_proposal`. Decided against the record stream as it is (not a read model), so a
// stale revision is caught however far projections lag; the proposal event is appended at the
// revision decided against, so the `command_id` is claimed by the same append that found it free.
// Guard (the decider's: permissions, limits, the body), decide, seal the details, append.
import { randomUUID } from 'node:crypto';
import type { WriteProposalBody } from '../../contracts/write.ts';
import { proposalDocOf, type ProposalDoc } from '../../projections/proposals.ts';
import { decidePrepare, itemKeysOf, preparedEvent, refuseOverBytes, sealedBytes } from '../domain/proposal.ts';
import type { Caller } from '../identity/caller.ts';
import type { ProposalCommandContext, ProposalDetails } from './moves.ts';

/** The prepared proposal as its events make it (or, for a replay of the same body, as it was prepared). */
export async function prepareProposal(
  { deps, sealed }: ProposalCommandContext,
  caller: Caller,
  body: WriteProposalBody,
  now = deps.clock.now(),
): Promise<{ doc: ProposalDoc; prepared: boolean }> {
  const athleteId = caller.athlete.athlete_id;
  const actor = { type: 'agent_proposal' as const, id: body.command_id };
  // The same new ids each time the batch is decided: a decision run again for what the record
  // had to load (a cold one) must look up the same keys, or it would never stop missing one.
  const minted: string[] = [];
  // Whether the decision that was appended prepared the proposal (not a replay of one prepared before).
  let prepared = false;
  const doc = await deps.records.command(athleteId, actor, async (loaded) => {
    let next = 0;
    const images = await loaded.images(itemKeysOf(body));
    const decision = decidePrepare(
      {
        body,
        caller: {
          grantId: caller.grantId,
          clientId: caller.clientId,
          clientName: caller.clientName,
          scopes: caller.scopes,
          writePermissions: caller.writePermissions,
        },
        now,
        timezone: caller.athlete.profile.timezone,
        newId: () => (minted[next++] ??= randomUUID()),
        limits: deps.config.proposalLimits,
      },
      loaded.state,
      loaded.proposals,
      images,
    );
    // A replay answers from the stream it was decided on: a projection worker may not have caught up.
    prepared = decision.outcome !== 'replay';
    if (decision.outcome === 'replay') return { events: [], result: proposalDocOf(await loaded.proposalEvents(decision.command_id), decision.command_id)! };
    const details: ProposalDetails = { actions: decision.proposal.actions, reason: body.reason ?? null };
    // Before sealing, which stores a key: what the proposal will store is known from what is sealed.
    refuseOverBytes(loaded.proposals, caller.grantId, now, sealedBytes(details), deps.config.proposalLimits);
    const event = preparedEvent(decision.proposal, await sealed.seal(athleteId, details));
    return {
      events: [event],
      result: proposalDocOf([{ ...event, revision: loaded.revision === 'no_stream' ? 0 : Number(loaded.revision) + 1 }], body.command_id)!,
    };
  });
  return { doc, prepared };
}
