// The athlete's review of what agents propose (spec 3): the list, one proposal with every change
// as a person reads it, and the moves only the athlete makes here — approve, reject, undo. No
// REST or MCP operation reaches these routes; they need the signed-in athlete and the form token.
// Every sentence and table comes from the words layer (services/words/) at view time, from the
// proposal's actions and the record as it is: nothing shown was stored when it was prepared.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { uuid } from '../../contracts/common.ts';
import type { Profile, RecordKind } from '../../contracts/record.ts';
import { WRITE_KINDS, writeKindOf, type ProposalStatus, type WriteKind } from '../../contracts/write.ts';
import type { ProposalDoc } from '../../projections/proposals.ts';
import type { Services } from '../api/services.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { DomainError } from '../domain/errors.ts';
import { ReviewRefusal } from '../domain/proposal-review.ts';
import { statusAt } from '../domain/proposal.ts';
import { itemKey } from '../domain/record.ts';
import { WritesPaused } from '../writes/moves.ts';
import type { ProposalReview } from '../writes/proposals.ts';
import {
  approveLabel,
  blockWords,
  capitalise,
  changedByWords,
  changeHeading,
  changeSubject,
  KIND_NOUNS,
  overview,
  receiptLine,
  recordSubject,
  tally,
  undoLine,
  type ChangeInput,
} from '../words/changes.ts';
import { compareRecords, type WordsContext } from '../words/record-fields.ts';
import { COUNTDOWN_SCRIPT, html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { recordFields, recordLists } from './review.ts';
import type { Session } from '../identity/sessions.ts';
import { dateTime, timeOfDay } from '../words/units.ts';
import { WRITE_POLICY } from '../../contracts/policy.ts';

/** Each status as the athlete reads it (the connection's activity page uses them too). */
export const STATUS_WORDS: Record<ProposalStatus, string> = {
  prepared: 'Waiting for your review',
  committed: 'Saved',
  rejected: 'Rejected — nothing saved',
  expired: 'Expired — nothing saved',
  conflicted: 'Not saved — your record had changed',
  undone: 'Undone',
};

/** Decided proposals a page of the history shows. */
const HISTORY_PAGE = 50;
/** Proposals awaiting review a page shows, soonest to expire first. */
const WAITING_PAGE = 20;

/**
 * When a proposal expires: the absolute time, which a script turns into a live countdown (and,
 * once it passes, disables the Approve button); without script the time alone is right.
 */
export function expiry(expiresAt: string, timezone: string): Html {
  const at = timeOfDay(expiresAt, timezone);
  return html`<time datetime="${expiresAt}" data-countdown data-at="${at}">at ${at}</time>`;
}

/**
 * A proposal in a list (the proposals page, Home): who sent it and what it does at a glance, from
 * the read model's metadata only (never its sealed details), so that two batches read apart.
 */
export function proposalLine(doc: ProposalDoc, now: Date, timezone: string): Html {
  const status = statusAt(doc, now);
  return html`<li><a href="/proposals/${doc.id}">${doc.client_name}: ${overview(doc.changes)}</a>
<span class="hint">${STATUS_WORDS[status]} · prepared ${dateTime(doc.prepared_at, timezone)}${status === 'prepared' ? html` · expires ${expiry(doc.expires_at, timezone)}` : ''}</span></li>`;
}

/**
 * Where a proposal stands for its changes: waiting for review, saved (committed, or undone since),
 * or never saved (rejected, expired, conflicted), when there are no earlier values to show, only
 * what was proposed.
 */
type ChangeStage = 'pending' | 'saved' | 'unsaved';

const stageOf = (status: ProposalStatus): ChangeStage =>
  status === 'prepared' ? 'pending' : status === 'committed' || status === 'undone' ? 'saved' : 'unsaved';

/** One change as the athlete reviews it: the new record, the fields that change (before and after), or what goes. */
function changeCard(index: number, change: ChangeInput, ctx: WordsContext, stage: ChangeStage): Html {
  const { op, kind, record, current } = change;
  const one = (before: Record<string, unknown> | null, after: Record<string, unknown> | null) => {
    const words = compareRecords(kind, before, after, ctx);
    return html`${recordFields(words, 'one', 'Now')}${recordLists(words, 'one')}`;
  };
  let body: Html;
  if (op === 'create') body = html`${stage === 'unsaved' ? html`<p>Proposed (nothing was saved):</p>` : ''}${one(null, record)}`;
  else if (stage === 'unsaved') {
    body =
      op === 'delete'
        ? html`<p>Proposed to remove it. Nothing was removed.</p>${current ? one(current, null) : ''}`
        : html`<p>Proposed values (nothing was changed):</p>${one(null, record)}`;
  } else if (current === null && stage === 'saved')
    body = html`<p class="hint">Its earlier values are no longer kept.</p>${op === 'update' ? one(null, record) : ''}`;
  else if (current === null)
    body = html`<p class="error">This record is no longer in your record, so approving will save nothing.</p>${op === 'update' ? one(null, record) : ''}`;
  else if (op === 'delete') body = html`<p><strong>${stage === 'pending' ? 'Will be removed:' : 'Removed:'}</strong></p>${one(current, null)}`;
  else {
    const words = compareRecords(kind, current, record, ctx);
    body = words.changed
      ? html`${recordFields(words, 'both', stage === 'pending' ? 'Now' : 'Before')}${recordLists(words, 'both')}`
      : html`<p>Nothing differs from the record as it is.</p>${recordFields(words, 'one', 'Now')}${recordLists(words, 'one')}`;
  }
  const badge = { create: 'Add', update: 'Change', delete: 'Remove' }[op];
  return html`<section class="card change change-${op}" id="change-${index + 1}" aria-labelledby="change-${index + 1}-title">
<p class="op ${op}">${badge} · ${capitalise(KIND_NOUNS[kind].one)}</p>
<h2 id="change-${index + 1}-title">${changeHeading(change, ctx)}</h2>
${body}</section>`;
}

/** The change of a batch that names the record `kind/id`, while its details are kept. */
function changeOf(review: ProposalReview, kind: RecordKind, id: string): ChangeInput | null {
  const index = review.details?.actions.findIndex((a) => WRITE_KINDS[a.kind] === kind && a.id === id) ?? -1;
  return index >= 0 ? (review.changes?.[index] ?? null) : null;
}

/** Where the athlete sees a record of each kind. */
function recordPath(kind: WriteKind, id: string): string | null {
  switch (kind) {
    case 'completed_workout':
      return `/workouts/${id}`;
    case 'saved_routine':
      return `/routines/${id}`;
    case 'goal':
      return '/goals';
    case 'recovery_checkin':
      return '/recovery';
    case 'meal':
      return '/nutrition';
    case 'body_measurement':
      return '/body';
    case 'exercise':
      return `/progress/exercises/${id}`;
    default:
      return null;
  }
}

/** What a committed batch changed, from its receipt: each record named and linked while it is in the record; revisions and ids in a disclosure. */
function receiptCard(review: ProposalReview, ctx: WordsContext, timezone: string): Html {
  const { doc } = review;
  const r = review.receipt!;
  const lines = r.changes.map((c) => {
    const change = review.changes?.[c.index];
    const now = review.receiptItems.get(itemKey(WRITE_KINDS[c.kind], c.id)) ?? null;
    const subject = change ? (c.op === 'delete' ? changeSubject(change, ctx) : recordSubject(c.kind, change.record, ctx)) : recordSubject(c.kind, now, ctx);
    const path = now ? recordPath(c.kind, c.id) : null;
    return html`<li>${receiptLine(c.op, subject)}${path ? html` · <a href="${path}">see it in your record</a>` : now === null && c.op !== 'delete' ? html` <span class="hint">(no longer in your record)</span>` : ''}</li>`;
  });
  return html`<section class="card receipt" aria-labelledby="receipt-title"><h2 id="receipt-title">Receipt</h2>
<p>Saved ${dateTime(r.committed_at, timezone)}, approved by you, suggested by ${r.client.name}.${doc.undone_at ? ` You undid it on ${dateTime(doc.undone_at, timezone)}: every change below was reversed.` : ''}</p>
<ul class="receipt-lines">${lines}</ul>
<details class="ids"><summary>Revisions and ids</summary>
<p class="hint">Proposal ${doc.id}</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Revisions"><table><thead><tr><th scope="col">Change</th><th scope="col">Record id</th><th scope="col">Revision</th></tr></thead><tbody>${r.changes.map(
    (c) =>
      html`<tr><td>${c.index + 1}. ${c.op} ${c.kind.replaceAll('_', ' ')}</td><td><code>${c.id}</code></td><td>${c.revision_before ?? 'new'} → ${c.revision_after ?? 'none'}</td></tr>`,
  )}</tbody></table></div></details></section>`;
}

/** Who made the change that conflicted a batch, as its page says it. */
const CHANGED_BY = {
  athlete: 'by you',
  import: 'by an import',
  operator: 'by whoever runs this RepLedger',
  proposal: 'by another batch you approved or undid',
} as const;

/** Writes paused for maintenance, in the athlete's words: nothing saved, and when to try again. */
export function pausedWords(error: WritesPaused, now: Date, timezone: string): string {
  const until = dateTime(new Date(now.getTime() + error.retryAfter * 1000).toISOString(), timezone);
  return `Whoever runs this RepLedger has paused changes to records for maintenance, so nothing was saved. Try again after ${until}.`;
}

/** A conflicted or stale record in words: which, how. */
function blockedSubject(
  review: ProposalReview,
  kind: RecordKind,
  id: string,
  actionIndex: number | null,
  body: Record<string, unknown> | null,
  ctx: WordsContext,
): string {
  const writeKind = writeKindOf(kind);
  if (!writeKind) return 'a record';
  if (writeKind === 'exercise' && !body) return `exercise “${ctx.exerciseName(id) ?? 'unknown'}”`;
  const change = actionIndex === null ? null : review.changes?.[actionIndex];
  return recordSubject(writeKind, body ?? change?.current ?? change?.record ?? null, ctx);
}

/** Why a waiting batch cannot be approved: each record no longer as it saw it, when and by what it changed. */
function staleNotice(review: ProposalReview, ctx: WordsContext, timezone: string): Html {
  const client = review.doc.client_name;
  return html`<div class="error stale" role="alert"><h2>This batch is out of date</h2>
<p>Since ${client} prepared it:</p>
<ul>${review.stale.map((x) => {
    const subject = blockedSubject(review, x.holder.kind, x.holder.id, x.reason === 'taken' ? null : x.action_index, x.body, ctx);
    const what = x.reason === 'taken' ? blockWords(subject, 'taken') : blockWords(subject, x.reason);
    return html`<li>${capitalise(what)}${x.at ? ` on ${dateTime(x.at, timezone)}` : ''}${x.by.type === 'unknown' ? '' : `, by ${changedByWords(x.by)}`}.</li>`;
  })}</ul>
<p>Approving it now would save nothing. Reject it, and ask ${client} to prepare it again from your record as it is now.</p></div>`;
}

function statusCard(review: ProposalReview, ctx: WordsContext, now: Date): Html {
  const { doc, status } = review;
  const tz = ctx.profile.timezone;
  switch (status) {
    case 'prepared':
      return review.stale.length
        ? staleNotice(review, ctx, tz)
        : html`<div class="notice pending" role="status"><p><strong>Waiting for your review.</strong> It expires ${expiry(doc.expires_at, tz)}. Nothing changes unless you approve; approving saves every change together, or none if your record changed meanwhile.</p></div>`;
    case 'committed': {
      const undoable = review.before !== null && review.undoDeadline !== null && now.getTime() < Date.parse(review.undoDeadline);
      return html`<div class="notice saved" role="status"><p><strong>Saved</strong> ${dateTime(doc.decided_at!, tz)}.</p>
${undoable ? html`<p>You can undo the whole batch until ${dateTime(review.undoDeadline!, tz)}.</p><a class="button secondary" href="/proposals/${doc.id}/undo">Undo this batch…</a>` : html`<p class="hint">The time to undo it has passed.</p>`}</div>`;
    }
    case 'conflicted': {
      const c = doc.conflict;
      const words = c ? blockWords(blockedSubject(review, c.kind, c.id, c.action_index, null, ctx), c.reason) : 'your record changed';
      const by = c?.changed_by ? ` (${CHANGED_BY[c.changed_by.type]}, on ${dateTime(c.changed_by.at, tz)})` : '';
      return html`<div class="error" role="status"><p><strong>Not saved.</strong> When you approved it, ${words} after ${doc.client_name} prepared it${by}, so nothing was saved. Ask ${doc.client_name} to prepare it again from your record as it is now.</p></div>`;
    }
    case 'undone':
      return html`<div class="notice neutral" role="status"><p><strong>Undone</strong> ${dateTime(doc.undone_at!, tz)}: your record is as it was before this batch.</p></div>`;
    case 'rejected':
      return html`<div class="notice neutral" role="status"><p><strong>Rejected</strong> ${dateTime(doc.decided_at!, tz)}. Nothing was saved.</p></div>`;
    case 'expired':
      return html`<div class="notice neutral" role="status"><p><strong>Expired</strong> ${dateTime(doc.expires_at, tz)}, before it was approved. Nothing was saved.</p></div>`;
  }
}

/** The batch at a glance: who, what in numbers, the client's reason in its words, and each change linked. */
function overviewCard(review: ProposalReview, ctx: WordsContext, cards: Html): Html {
  const { doc, details, changes } = review;
  // The legend where there is something it speaks of: the reason, or a text field on a card.
  const written = !!details?.reason || cards.value.includes('class="written"');
  const client = doc.client_name;
  return html`<section class="card overview" aria-labelledby="overview-title"><h2 id="overview-title">At a glance</h2>
<p><strong>${capitalise(overview(doc.changes))}</strong></p>
${details?.reason ? html`<figure class="reason"><figcaption>${client}'s reason, in its own words:</figcaption><blockquote class="written">${details.reason}</blockquote></figure>` : ''}
${changes ? html`<ol class="summary">${changes.map((c, i) => html`<li class="op-${c.op}"><a href="#change-${i + 1}">${changeHeading(c, ctx)}</a></li>`)}</ol>` : ''}
${written ? html`<p class="hint">Text in a dashed box was written by ${client}: it is their words, not RepLedger's.</p>` : ''}</section>`;
}

/** Approve and Reject, kept in reach at the foot of the screen. A batch with removals asks to confirm them, with or without script. */
function decisionBar(review: ProposalReview, csrf: string): Html {
  const { doc } = review;
  const removals = tally(doc.changes).delete;
  const reject = html`<form method="post" action="/proposals/${doc.id}/reject"><input type="hidden" name="_csrf" value="${csrf}"><button class="secondary" type="submit">Reject</button></form>`;
  if (review.stale.length)
    return html`<div class="decide" role="region" aria-label="Your decision">${reject}<p class="hint">This batch is out of date and cannot be approved.</p></div>`;
  return html`<div class="decide" role="region" aria-label="Your decision">
<form method="post" action="/proposals/${doc.id}/approve"><input type="hidden" name="_csrf" value="${csrf}">
${removals ? html`<label class="confirm"><input type="checkbox" name="confirm_removals" value="${removals}" required> <span>Yes, remove ${removals === 1 ? '1 record' : `${removals} records`} from my record</span></label>` : ''}
<button type="submit"${removals ? html` class="danger"` : ''} data-approve>${approveLabel(doc.changes)}</button></form>
${reject}</div>`;
}

/** The review of one proposal: where it stands, the batch at a glance, every change, the receipt, and (while it waits) the decision. */
export function reviewPage(review: ProposalReview, profile: Profile, now: Date, csrf: string): Html {
  const { doc, changes } = review;
  const tz = profile.timezone;
  const ctx: WordsContext = { profile, exerciseName: review.exerciseName };
  const stage = stageOf(review.status);
  const cards = changes
    ? html`${changes.map((c, i) => changeCard(i, c, ctx, stage))}`
    : html`<div class="card"><p>The details of this proposal were removed after ${WRITE_POLICY.recoveryRetentionDays} days; the receipt below remains.</p></div>`;
  const pending = review.status === 'prepared';
  return html`<h1>${doc.changes.length === 1 ? '1 change' : `${doc.changes.length} changes`} from ${doc.client_name}</h1>
<p class="meta">Prepared ${dateTime(doc.prepared_at, tz)} by ${doc.client_name}.</p>
${statusCard(review, ctx, now)}
${overviewCard(review, ctx, cards)}
${cards}
${review.receipt ? receiptCard(review, ctx, tz) : ''}
<p><a href="/proposals">All proposals</a></p>
${pending ? decisionBar(review, csrf) : ''}
${pending ? html`<script>${COUNTDOWN_SCRIPT}</script>` : ''}`;
}

export function registerProposals(web: FastifyInstance, app: Services, show: Show): void {
  /** The signed-in athlete, or a redirect to sign in and back. */
  const signedIn = async (session: Session | null, reply: FastifyReply, back: string) => {
    if (!session?.athlete_id) {
      await reply.redirect(`/sign-in?return_to=${encodeURIComponent(back)}`, 303);
      return null;
    }
    return app.athletes.get(session.athlete_id);
  };
  const notFound = (reply: FastifyReply, session: Session | null) =>
    show(
      reply,
      'No such proposal',
      session,
      html`<div class="card"><h1>No such proposal</h1><p>There is no proposal of yours at this address.</p><a class="button" href="/proposals">Your proposals</a></div>`,
      404,
    );
  const commandIdOf = (params: unknown) => z.object({ id: uuid }).safeParse(params).data?.id ?? null;
  const wordsFor = (athlete: AthleteState, review: ProposalReview): WordsContext => ({ profile: athlete.profile, exerciseName: review.exerciseName });

  /** `?before=<prepared_at>~<command id>`, as the page's own link writes it; anything else is the first page. */
  const historyCursor = (value: unknown): [string, string] | undefined => {
    const [at, id] = typeof value === 'string' ? value.split('~') : [];
    return at && id && !Number.isNaN(Date.parse(at)) && uuid.safeParse(id).success ? [at, id] : undefined;
  };

  web.get('/proposals', async (request, reply) => {
    const athlete = await signedIn(request.session, reply, '/proposals');
    if (!athlete) return reply;
    const now = app.clock.now();
    const tz = athlete.profile.timezone;
    const before = historyCursor((request.query as Record<string, unknown>).before);
    const query = request.query as Record<string, unknown>;
    const waiting = request.waiting;
    // The waiting ones a page at a time (`?waiting=2`), soonest to expire first: a page reads only the proposals it shows.
    const pages = Math.max(1, Math.ceil(waiting.length / WAITING_PAGE));
    const at = Math.min(pages, Math.max(1, Number.parseInt(String(query.waiting ?? '1'), 10) || 1));
    const [pending, { docs: history, next }] = await Promise.all([
      app.proposals.pending(athlete.athlete_id, waiting.slice((at - 1) * WAITING_PAGE, at * WAITING_PAGE)),
      app.proposals.history(athlete.athlete_id, HISTORY_PAGE, before),
    ]);
    return show(
      reply,
      'Proposals',
      request.session,
      html`<h1>Proposals</h1>
<p class="hint">Changes your connected AI apps suggest. Nothing changes in your record until you approve it here.</p>
<section class="card"><h2>Waiting for your review${waiting.length > WAITING_PAGE ? ` (${waiting.length})` : ''}</h2>${pending.length ? html`<ul class="proposals">${pending.map((d) => proposalLine(d, now, tz))}</ul>` : html`<p>Nothing is waiting for you.</p>`}${
        pages > 1
          ? html`<p class="pager">${at > 1 ? html`<a href="/proposals?waiting=${at - 1}">Sooner to expire</a>` : html`<span></span>`}<span class="hint">${(at - 1) * WAITING_PAGE + 1}–${Math.min(at * WAITING_PAGE, waiting.length)} of ${waiting.length}</span>${at < pages ? html`<a href="/proposals?waiting=${at + 1}">Later to expire</a>` : html`<span></span>`}</p>`
          : ''
      }</section>
<section class="card"><h2>${before ? 'Earlier history' : 'History'}</h2>${history.length ? html`<ul class="proposals">${history.map((d) => proposalLine(d, now, tz))}</ul>` : html`<p>No earlier proposals.</p>`}${
        next ? html`<p><a href="/proposals?before=${encodeURIComponent(next.join('~'))}">Older proposals</a></p>` : ''
      }${before ? html`<p><a href="/proposals">Newest proposals</a></p>` : ''}</section>
<script>${COUNTDOWN_SCRIPT}</script>`,
    );
  });

  web.get('/proposals/:id', async (request, reply) => {
    const commandId = commandIdOf(request.params);
    const athlete = await signedIn(request.session, reply, request.url);
    if (!athlete) return reply;
    const review = commandId ? await app.proposals.review(athlete.athlete_id, commandId) : null;
    if (!review) return notFound(reply, request.session);
    return show(reply, `Proposal from ${review.doc.client_name}`, request.session, reviewPage(review, athlete.profile, app.clock.now(), request.session!.csrf));
  });

  /** A move refused: what happened and the way back, in words, with nothing saved. */
  const refused = (reply: FastifyReply, session: Session | null, commandId: string, title: string, message: string | Html, status: number) =>
    show(
      reply,
      title,
      session,
      html`<div class="card"><h1>${title}</h1><p>${message}</p><a class="button" href="/proposals/${commandId}">Back to the proposal</a></div>`,
      status,
    );

  const move = (path: string, run: (athlete: AthleteState, commandId: string, form: Record<string, unknown>) => Promise<unknown>) =>
    web.post(`/proposals/:id/${path}`, async (request, reply) => {
      const commandId = commandIdOf(request.params);
      const athlete = await signedIn(request.session, reply, request.url.replace(`/${path}`, ''));
      if (!athlete) return reply;
      if (!commandId) return notFound(reply, request.session);
      try {
        await run(athlete, commandId, (request.body ?? {}) as Record<string, unknown>);
        return reply.redirect(`/proposals/${commandId}`, 303);
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found') return notFound(reply, request.session);
        if (error instanceof WritesPaused) {
          reply.header('Retry-After', String(error.retryAfter));
          return refused(reply, request.session, commandId, 'Saving is paused', pausedWords(error, app.clock.now(), athlete.profile.timezone), 503);
        }
        if (error instanceof RemovalsNotConfirmed) return refused(reply, request.session, commandId, 'Nothing was saved', error.message, 400);
        if (error instanceof ReviewRefusal)
          return refused(reply, request.session, commandId, 'That was not possible', await refusalWords(error, athlete, commandId), 409);
        throw error;
      }
    });

  /** A refusal in the athlete's words: the record that blocks an undo by what the athlete knows it as, never an id. */
  async function refusalWords(error: ReviewRefusal, athlete: AthleteState, commandId: string): Promise<string> {
    switch (error.reason) {
      case 'not_pending':
      case 'not_committed': {
        const doc = (await app.proposals.review(athlete.athlete_id, commandId))?.status;
        return `This proposal is ${doc ? STATUS_WORDS[doc].toLowerCase() : 'no longer waiting'}; ${error.reason === 'not_pending' ? 'only a proposal waiting for your review can be approved or rejected' : 'only a saved batch can be undone'}.`;
      }
      case 'undo_window_passed':
        return `A batch can be undone for ${WRITE_POLICY.undoWindowDays} days after it was saved; that time has passed for this one.`;
      case 'recovery_data_removed':
        return 'The earlier values of this batch were removed after 30 days, so it can no longer be undone.';
      case 'undo_blocked': {
        const item = error.item!;
        const review = await app.proposals.review(athlete.athlete_id, commandId);
        const ctx: WordsContext = { profile: athlete.profile, exerciseName: review?.exerciseName ?? (() => null) };
        const kind = writeKindOf(item.kind);
        const current = kind ? ((await app.proposals.record(athlete.athlete_id, kind, { id: item.id }))?.record ?? null) : null;
        const change = review ? changeOf(review, item.kind, item.id) : null;
        const subject = kind ? recordSubject(kind, current ?? change?.record ?? change?.current ?? null, ctx) : 'feedback on a workout of this batch';
        return `${capitalise(blockWords(subject, item.how))} after this batch was saved, so nothing was undone.`;
      }
    }
  }

  move('approve', async (athlete, commandId, form) => {
    const review = await app.proposals.review(athlete.athlete_id, commandId);
    if (!review) throw new DomainError('not_found', `there is no proposal ${commandId}`);
    const removals = tally(review.doc.changes).delete;
    if (review.status === 'prepared' && removals > 0 && form.confirm_removals !== String(removals)) throw new RemovalsNotConfirmed(removals);
    return app.proposals.approve(athlete.athlete_id, commandId);
  });
  move('reject', (athlete, commandId) => app.proposals.reject(athlete.athlete_id, commandId));
  move('undo', (athlete, commandId) => app.proposals.undo(athlete.athlete_id, commandId));

  // Undo asks first, listing what will be restored.
  web.get('/proposals/:id/undo', async (request, reply) => {
    const commandId = commandIdOf(request.params);
    const athlete = await signedIn(request.session, reply, request.url);
    if (!athlete) return reply;
    const review = commandId ? await app.proposals.review(athlete.athlete_id, commandId) : null;
    if (!review?.doc.affected) return notFound(reply, request.session);
    const ctx = wordsFor(athlete, review);
    const lines = review.doc.affected.map((x, i) => {
      // Feedback is no kind a proposal names: it comes and goes with its workout.
      const kind = writeKindOf(x.kind);
      const before = review.before?.[i]?.item as Record<string, unknown> | null | undefined;
      const proposed = changeOf(review, x.kind, x.id)?.record ?? null;
      const subject = kind ? recordSubject(kind, before ?? proposed, ctx) : 'feedback on the workout';
      const what = undoLine(x.change, subject);
      const words = before && kind ? compareRecords(kind, before, null, ctx) : null;
      return html`<li><strong>${what}</strong>${words ? html`${recordFields(words, 'one', 'Now')}${recordLists(words, 'one')}` : ''}</li>`;
    });
    return show(
      reply,
      'Undo this batch?',
      request.session,
      html`<h1>Undo this batch?</h1>
<div class="card"><p>Everything the batch from ${review.doc.client_name} changed goes back as it was, all together. If any of these records changed since, nothing is undone.</p>
<ul class="undo">${lines}</ul>
<form method="post" action="/proposals/${review.doc.id}/undo"><input type="hidden" name="_csrf" value="${request.session!.csrf}"><button type="submit" class="danger">Yes, undo all of it</button></form>
<p><a href="/proposals/${review.doc.id}">Keep it as it is</a></p></div>`,
    );
  });
}

/** Approve was sent without ticking the confirmation a batch with removals asks for: nothing is decided. */
class RemovalsNotConfirmed extends Error {
  constructor(removals: number) {
    super(
      `This batch removes ${removals === 1 ? '1 record' : `${removals} records`} from your record. Tick the box that confirms ${removals === 1 ? 'it' : 'them'} before approving; nothing was saved.`,
    );
    this.name = 'RemovalsNotConfirmed';
  }
}
