// The athlete's proposals as their pages list them: the history of decided and expired ones, and
// those awaiting review (the waiting list Home and the navigation count). Read models only.
import { WRITE_POLICY } from '../../contracts/common.ts';
import { PROPOSALS, WAITING, type ProposalDoc, type WaitingDoc, type WaitingItem } from '../../projections/proposals.ts';
import { statusAt } from '../domain/proposal.ts';
import { pagesOf, type ReadStore } from '../store/read-store.ts';

/** Proposals read at a time when the pending ones or a page of history are gathered. */
const PROPOSALS_PAGE = 100;
/** The `by_prepared` keyset of a proposal. */
const byPrepared = (d: ProposalDoc): [string, string] => [d.prepared_at, d.id];
const compareByPrepared = (a: ProposalDoc, b: ProposalDoc) => a.prepared_at.localeCompare(b.prepared_at) || a.id.localeCompare(b.id);

/** One document at a time from pages of them. */
async function* docsOf<T>(pages: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/**
 * The athlete's decided or expired proposals, newest prepared first, `limit` at a time: `before`
 * is the previous page's `next` (its last proposal's preparation time and id), null at the end.
 * Read without the proposals awaiting review, however many: the decided ones by the `open` index,
 * merged with those that expired unasked (still open, prepared more than one expiry ago).
 */
export async function proposalHistory(
  reads: ReadStore,
  now: Date,
  athleteId: string,
  limit: number,
  before?: [string, string],
): Promise<{ docs: ProposalDoc[]; next: [string, string] | null }> {
  const since = new Date(now.getTime() - WRITE_POLICY.proposalExpiryMinutes * 60_000).toISOString();
  const query = { partition: athleteId, index: 'by_open', direction: 'desc' as const, limit: Math.min(PROPOSALS_PAGE, limit + 1) };
  const decided = docsOf(pagesOf<ProposalDoc>(reads, PROPOSALS, { ...query, prefix: [false] }, byPrepared, before));
  const expired = docsOf(pagesOf<ProposalDoc>(reads, PROPOSALS, { ...query, prefix: [true], range: { lte: since } }, byPrepared, before));
  const docs: ProposalDoc[] = [];
  let [d, e] = await Promise.all([decided.next(), expired.next()]);
  while (!d.done || !e.done) {
    // Both come newest prepared first: take the newer of the two heads.
    const takeDecided = e.done || (!d.done && compareByPrepared(d.value, e.value) > 0);
    const doc = takeDecided ? d.value! : e.value!;
    // One prepared right at the window's edge may still await review: it is not history yet.
    if (statusAt(doc, now) !== 'prepared') {
      if (docs.length === limit) return { docs, next: byPrepared(docs[docs.length - 1]!) };
      docs.push(doc);
    }
    if (takeDecided) d = await decided.next();
    else e = await expired.next();
  }
  return { docs, next: null };
}

/**
 * The proposals awaiting the athlete's review now, soonest to expire first, from the athlete's
 * waiting list: ids and times only, however many there are (Home and the navigation count them).
 */
export async function waitingProposals(reads: ReadStore, at: Date, athleteId: string): Promise<WaitingItem[]> {
  const now = at.toISOString();
  const doc = await reads.get<WaitingDoc>(WAITING, athleteId, athleteId);
  return (doc?.items ?? []).filter((i) => i.expires_at > now);
}

/** The documents of waiting proposals (a page of `waiting`), in its order, those still awaiting review. */
export async function pendingProposals(reads: ReadStore, now: Date, athleteId: string, items: readonly WaitingItem[]): Promise<ProposalDoc[]> {
  const docs = new Map(
    (
      await reads.getMany<ProposalDoc>(
        PROPOSALS,
        athleteId,
        items.map((i) => i.id),
      )
    ).map((d) => [d.id, d]),
  );
  return items.flatMap((i) => {
    const doc = docs.get(i.id);
    return doc && statusAt(doc, now) === 'prepared' ? [doc] : [];
  });
}
