// Proposals as the agent, the athlete's review pages and the operators read them: one document per
// command id with its status and times, the changes in the clear (kinds, ids, revisions), and the
// sealed details (actions and summaries) that only their key opens.
import type { AffectedItem, ProposalEvent, receiptLink, Sealed } from '../contracts/events.ts';
import type { z } from 'zod';
import type { ProposalChange, ProposalStatus, Receipt } from '../contracts/write.ts';
import type { Doc } from '../services/store/read-store.ts';
import { athleteOf, type Projection } from './projection.ts';

export const PROPOSALS = 'proposals';

export interface ProposalDoc extends Doc {
  /** The command id. */
  id: string;
  grant_id: string;
  client_id: string;
  client_name: string;
  /** As last written; `statusAt` tells a prepared one past its expiry apart. */
  status: ProposalStatus;
  prepared_at: string;
  expires_at: string;
  decided_at: string | null;
  changes: Array<Omit<ProposalChange, 'summary'>>;
  details: Sealed;
  receipt: Receipt | null;
  /** What the commit did to each item, and the sealed earlier bodies undo restores. */
  affected: AffectedItem[] | null;
  undo: Sealed | null;
  undone_at: string | null;
  /** The receipt chain's links of the commit and of the undo (absent on documents from before the chain). */
  receipt_link?: z.infer<typeof receiptLink> | null;
  undo_link?: z.infer<typeof receiptLink> | null;
  /** Which record an approval found changed. */
  conflict: Extract<ProposalEvent, { type: 'proposal.conflicted' }>['data']['conflict'] | null;
}

export const proposalsProjection: Projection = {
  name: 'proposals',
  collections: [
    {
      name: PROPOSALS,
      indexes: [
        { name: 'by_prepared', fields: ['prepared_at', 'id'] },
        { name: 'by_grant', fields: ['grant_id', 'prepared_at', 'id'] },
      ],
    },
  ],
  handles: (type) => type.startsWith('proposal.'),
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const commandId = (event.data as { command_id: string }).command_id;
    const next = evolveProposalDoc(await docs.get<ProposalDoc>(PROPOSALS, athleteId, commandId), { type: event.type, data: event.data } as ProposalEvent);
    if (next) await docs.upsert(PROPOSALS, athleteId, next);
  },
};

/** A proposal's document after one of its events. */
export function evolveProposalDoc(doc: ProposalDoc | null, event: ProposalEvent): ProposalDoc | null {
  switch (event.type) {
    case 'proposal.prepared': {
      const d = event.data;
      return {
        id: d.command_id,
        grant_id: d.grant_id,
        client_id: d.client_id,
        client_name: d.client_name,
        status: 'prepared',
        prepared_at: d.prepared_at,
        expires_at: d.expires_at,
        decided_at: null,
        changes: d.changes,
        details: d.details,
        receipt: null,
        affected: null,
        undo: null,
        undone_at: null,
        conflict: null,
      };
    }
    case 'proposal.committed': {
      if (!doc) return null;
      const d = event.data;
      return {
        ...doc,
        status: 'committed',
        decided_at: d.committed_at,
        receipt: { committed_at: d.committed_at, approved_by: 'athlete', client: { client_id: doc.client_id, name: doc.client_name }, changes: d.changes },
        affected: d.affected,
        undo: d.undo,
        receipt_link: d.link ?? null,
      };
    }
    case 'proposal.rejected':
      return doc && { ...doc, status: 'rejected', decided_at: event.data.rejected_at };
    case 'proposal.expired':
      return doc && { ...doc, status: 'expired', decided_at: event.data.expired_at };
    case 'proposal.conflicted':
      return doc && { ...doc, status: 'conflicted', decided_at: event.data.conflicted_at, conflict: event.data.conflict };
    case 'proposal.undone':
      return doc && { ...doc, status: 'undone', undone_at: event.data.undone_at, undo_link: event.data.link ?? null };
  }
}

/** One proposal's document folded from a record stream's events: what the projection would hold. */
export function proposalDocOf(events: ReadonlyArray<{ type: string; data: unknown }>, commandId: string): ProposalDoc | null {
  let doc: ProposalDoc | null = null;
  for (const e of events) {
    if (e.type.startsWith('proposal.') && (e.data as { command_id?: string }).command_id === commandId) doc = evolveProposalDoc(doc, e as ProposalEvent);
  }
  return doc;
}
