// Proposals as the agent, the athlete's review pages and the operators read them: one document per
// command id with its status and times, the changes in the clear (kinds, ids, revisions), and where
// in the record stream its sealed details are. The sealed parts stay in the log only: a list of
// proposals reads metadata, and a proposal's details are read from its events when it is opened.
import type { AffectedItem, ProposalEvent, receiptLink } from '../contracts/events.ts';
import type { z } from 'zod';
import type { ProposalChange, ProposalStatus, Receipt } from '../contracts/write.ts';
import type { Doc } from '../services/store/read-store.ts';
import { athleteOf, type Projection } from './projection.ts';

export const PROPOSALS = 'proposals';
/** Per athlete, the proposals awaiting review: one small document, so that a count and a page of them need not read every one. */
export const WAITING = 'proposals_waiting';

/** A proposal awaiting review, as the athlete's waiting list keeps it. */
export interface WaitingItem {
  id: string;
  prepared_at: string;
  expires_at: string;
}

/** The athlete's proposals awaiting review, soonest to expire first; its id is the athlete's. */
export interface WaitingDoc extends Doc {
  items: WaitingItem[];
}

export interface ProposalDoc extends Doc {
  /** The command id. */
  id: string;
  grant_id: string;
  client_id: string;
  client_name: string;
  /** As last written; `statusAt` tells a prepared one past its expiry apart. */
  status: ProposalStatus;
  /** Whether its status is still `prepared` (past its expiry or not): decided ones are read apart from these. */
  open: boolean;
  prepared_at: string;
  expires_at: string;
  decided_at: string | null;
  changes: Array<Omit<ProposalChange, 'summary'>>;
  /** The record stream revision of `proposal.prepared`, which holds the sealed actions. */
  prepared_revision: number;
  receipt: Receipt | null;
  /** What the commit did to each item. */
  affected: AffectedItem[] | null;
  /** The record stream revision of `proposal.committed`, which holds the sealed earlier bodies undo restores. */
  committed_revision: number | null;
  undone_at: string | null;
  /** The receipt chain's links of the commit and of the undo (absent on documents from before the chain). */
  receipt_link?: z.infer<typeof receiptLink> | null;
  undo_link?: z.infer<typeof receiptLink> | null;
  /** Which record an approval found changed. */
  conflict: Extract<ProposalEvent, { type: 'proposal.conflicted' }>['data']['conflict'] | null;
}

export const proposalsProjection: Projection = {
  name: 'proposals',
  // 2: the sealed details and undo bodies are no longer copied into the document, only their
  // events' revisions; `open` and the waiting list, so that lists read no more than they show.
  version: 2,
  collections: [
    {
      name: PROPOSALS,
      indexes: [
        { name: 'by_prepared', fields: ['prepared_at', 'id'] },
        { name: 'by_grant', fields: ['grant_id', 'prepared_at', 'id'] },
        { name: 'by_open', fields: ['open', 'prepared_at', 'id'] },
      ],
    },
    { name: WAITING, indexes: [] },
  ],
  handles: (type) => type.startsWith('proposal.'),
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const commandId = (event.data as { command_id: string }).command_id;
    const next = evolveProposalDoc(await docs.get<ProposalDoc>(PROPOSALS, athleteId, commandId), {
      type: event.type,
      data: event.data,
      revision: event.revision,
    } as ProposalEvent & { revision: number });
    if (!next) return;
    await docs.upsert(PROPOSALS, athleteId, next);
    const waiting = await docs.get<WaitingDoc>(WAITING, athleteId, athleteId);
    const items = waitingAfter(waiting?.items ?? [], next);
    if (waiting || items.length) await docs.upsert(WAITING, athleteId, { id: athleteId, items } satisfies WaitingDoc);
  },
};

/**
 * The waiting list after a proposal's change: a prepared one joins it, a decided one leaves it. A
 * proposal that expired unasked leaves when one is prepared after its expiry, so the list holds no
 * more than the proposals prepared within one expiry of the newest.
 */
export function waitingAfter(items: readonly WaitingItem[], doc: ProposalDoc): WaitingItem[] {
  const others = items.filter((i) => i.id !== doc.id);
  if (!doc.open) return others;
  return [...others.filter((i) => i.expires_at > doc.prepared_at), { id: doc.id, prepared_at: doc.prepared_at, expires_at: doc.expires_at }].sort(
    (a, b) => a.expires_at.localeCompare(b.expires_at) || a.id.localeCompare(b.id),
  );
}

/** A proposal's document after one of its events, at its stream revision. */
export function evolveProposalDoc(doc: ProposalDoc | null, stored: ProposalEvent & { revision: number }): ProposalDoc | null {
  const event = stored as ProposalEvent;
  switch (event.type) {
    case 'proposal.prepared': {
      const d = event.data;
      return {
        id: d.command_id,
        grant_id: d.grant_id,
        client_id: d.client_id,
        client_name: d.client_name,
        status: 'prepared',
        open: true,
        prepared_at: d.prepared_at,
        expires_at: d.expires_at,
        decided_at: null,
        changes: d.changes,
        prepared_revision: stored.revision,
        receipt: null,
        affected: null,
        committed_revision: null,
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
        open: false,
        decided_at: d.committed_at,
        receipt: { committed_at: d.committed_at, approved_by: 'athlete', client: { client_id: doc.client_id, name: doc.client_name }, changes: d.changes },
        affected: d.affected,
        committed_revision: stored.revision,
        receipt_link: d.link ?? null,
      };
    }
    case 'proposal.rejected':
      return doc && { ...doc, status: 'rejected', open: false, decided_at: event.data.rejected_at };
    case 'proposal.expired':
      return doc && { ...doc, status: 'expired', open: false, decided_at: event.data.expired_at };
    case 'proposal.conflicted':
      return doc && { ...doc, status: 'conflicted', open: false, decided_at: event.data.conflicted_at, conflict: event.data.conflict };
    case 'proposal.undone':
      return doc && { ...doc, status: 'undone', undone_at: event.data.undone_at, undo_link: event.data.link ?? null };
  }
}

/** One proposal's document folded from a record stream's events: what the projection would hold. */
export function proposalDocOf(events: ReadonlyArray<{ type: string; data: unknown; revision: number }>, commandId: string): ProposalDoc | null {
  let doc: ProposalDoc | null = null;
  for (const e of events) {
    if (e.type.startsWith('proposal.') && (e.data as { command_id?: string }).command_id === commandId)
      doc = evolveProposalDoc(doc, e as ProposalEvent & { revision: number });
  }
  return doc;
}
