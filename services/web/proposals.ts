// The athlete's review of what agents propose (spec 3): the list, one proposal with every change
// as a person reads it, and the moves only the athlete makes here — approve, reject, undo. No
// REST or MCP operation reaches these routes; they need the signed-in athlete and the form token.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { uuid } from '../../contracts/common.ts';
import { WRITE_KINDS, writeKindOf, type NormalisedAction, type ProposalStatus } from '../../contracts/write.ts';
import type { ProposalDoc } from '../../projections/proposals.ts';
import type { App } from '../app.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { DomainError } from '../domain/errors.ts';
import { ReviewRefusal } from '../domain/proposal-review.ts';
import { exerciseIdsOf, statusAt } from '../domain/proposal.ts';
import { itemKey } from '../domain/record.ts';
import type { ProposalReview } from '../writes/proposals.ts';
import { html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { changedFields, fieldsOf, kindTitle, type ViewContext } from './record-view.ts';
import type { Session } from './sessions.ts';

/** Each status as the athlete reads it (the connection's activity page uses them too). */
export const STATUS_WORDS: Record<ProposalStatus, string> = {
  prepared: 'Waiting for your review',
  committed: 'Saved',
  rejected: 'Rejected — nothing saved',
  expired: 'Expired — nothing saved',
  conflicted: 'Not saved — your record had changed',
  undone: 'Undone',
};

function when(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(new Date(iso));
}

function minutesLeft(until: string, now: Date): string {
  const minutes = Math.max(0, Math.ceil((Date.parse(until) - now.getTime()) / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** Decided proposals a page of the history shows. */
const HISTORY_PAGE = 50;

const VERBS: Record<NormalisedAction['op'], string> = { create: 'Add', update: 'Change', delete: 'Remove' };

/** Exercise names for every id the actions use: the catalog's, and those the batch itself creates. */
async function exerciseNames(app: App, athleteId: string, actions: readonly NormalisedAction[]): Promise<(id: string) => string> {
  const names = new Map<string, string>();
  for (const a of actions) if (a.kind === 'exercise' && a.op === 'create' && a.record) names.set(a.id, `${String(a.record.name)} (new, in this proposal)`);
  const used = new Set(actions.flatMap((a) => exerciseIdsOf(a).map((u) => u.id)));
  for (const id of used) {
    if (names.has(id)) continue;
    const doc = await app.reads.get<{ id: string; name: string }>('exercises', athleteId, id);
    if (doc) names.set(id, doc.name);
  }
  return (id) => names.get(id) ?? 'an exercise no longer in your catalog';
}

function fieldList(fields: Array<{ label: string; value: string }>): Html {
  return html`<dl class="fields">${fields.map((f) => html`<dt>${f.label}</dt><dd>${f.value}</dd>`)}</dl>`;
}

/**
 * Where a proposal stands for its changes: waiting for review, saved (committed, or undone since),
 * or never saved (rejected, expired, conflicted), when there are no earlier values to show, only
 * what was proposed.
 */
type ChangeStage = 'pending' | 'saved' | 'unsaved';

/** One change as the athlete reviews it: the new item, the fields that change (before → after), or what goes. */
function changeCard(action: NormalisedAction, summary: string | null, current: Record<string, unknown> | null | undefined, ctx: ViewContext, stage: ChangeStage): Html {
  const title = `${VERBS[action.op]} ${kindTitle(action.kind).toLowerCase()}`;
  const pending = stage === 'pending';
  let body: Html;
  if (action.op === 'create') body = fieldList(fieldsOf(action.kind, action.record!, ctx));
  else if (stage === 'unsaved') {
    body =
      action.op === 'delete'
        ? html`<p>Proposed to remove it. Nothing was removed.</p>`
        : html`<p>Proposed values (nothing was changed):</p>${fieldList(fieldsOf(action.kind, action.record!, ctx))}`;
  } else if (current === undefined) body = html`<p class="hint">Its earlier values are no longer kept.</p>`;
  else if (current === null) body = html`<p class="error">This item is no longer in your record, so approving will save nothing.</p>`;
  else if (action.op === 'delete') body = html`<p>${pending ? 'Will be removed:' : 'Removed:'}</p>${fieldList(fieldsOf(action.kind, current, ctx))}`;
  else {
    const changed = changedFields(action.kind, current, action.record!, ctx);
    body = changed.length
      ? html`<table class="diff"><thead><tr><th scope="col">Field</th><th scope="col">${pending ? 'Now' : 'Before'}</th><th scope="col">After</th></tr></thead><tbody>${changed.map(
          (c) => html`<tr><th scope="row">${c.label}</th><td>${c.before}</td><td>${c.after}</td></tr>`,
        )}</tbody></table>`
      : html`<p>No field changes.</p>`;
  }
  return html`<section class="card change"><h2>${title}</h2>${summary ? html`<p class="hint">${summary}</p>` : ''}${body}</section>`;
}

/** What a committed batch changed, from its receipt: kinds, operations and revisions, never values. */
function receiptCard(doc: ProposalDoc, timezone: string): Html {
  const r = doc.receipt!;
  return html`<section class="card receipt"><h2>Receipt</h2>
<p>Saved ${when(r.committed_at, timezone)}, approved by you, suggested by ${r.client.name}.</p>
<table class="diff"><thead><tr><th scope="col">Change</th><th scope="col">Item</th><th scope="col">Revision</th></tr></thead><tbody>${r.changes.map(
    (c) => html`<tr><td>${VERBS[c.op]} ${kindTitle(c.kind).toLowerCase()}</td><td><code>${c.id.slice(0, 8)}</code></td><td>${c.revision_before ?? 'new'} → ${c.revision_after}</td></tr>`,
  )}</tbody></table></section>`;
}

const CONFLICT_WORDS = { changed: 'changed', removed: 'was removed', taken: 'was already taken' } as const;

function statusCard(review: ProposalReview, athlete: AthleteState, now: Date): Html {
  const { doc, status } = review;
  const tz = athlete.profile.timezone;
  switch (status) {
    case 'prepared':
      return html`<div class="notice" role="status"><p><strong>Waiting for your review.</strong> It expires at ${when(doc.expires_at, tz)} (in ${minutesLeft(doc.expires_at, now)}). Nothing changes unless you approve.</p></div>`;
    case 'committed': {
      const undoable = review.before !== null && review.undoDeadline !== null && now.getTime() < Date.parse(review.undoDeadline);
      return html`<div class="notice" role="status"><p><strong>Saved</strong> ${when(doc.decided_at!, tz)}.</p>
${undoable ? html`<p>You can undo the whole batch until ${when(review.undoDeadline!, tz)}.</p><a class="button" href="/proposals/${doc.id}/undo">Undo this batch…</a>` : html`<p class="hint">The time to undo it has passed.</p>`}</div>`;
    }
    case 'conflicted': {
      const c = doc.conflict;
      const conflictKind = c && writeKindOf(c.kind);
      const kind = conflictKind ? kindTitle(conflictKind).toLowerCase() : 'record';
      return html`<div class="error" role="status"><p><strong>Not saved.</strong> ${c?.action_index === null ? `A ${kind} this proposal relies on` : `The ${kind} in change ${(c?.action_index ?? 0) + 1}`} ${c ? CONFLICT_WORDS[c.reason] : 'changed'} after the proposal was prepared, so nothing was saved. Ask the app to prepare it again from your record as it is now.</p></div>`;
    }
    case 'undone':
      return html`<div class="notice" role="status"><p><strong>Undone</strong> ${when(doc.undone_at!, tz)}: your record is as it was before this batch.</p></div>`;
    case 'rejected':
      return html`<div class="notice" role="status"><p><strong>Rejected</strong> ${when(doc.decided_at!, tz)}. Nothing was saved.</p></div>`;
    case 'expired':
      return html`<div class="notice" role="status"><p><strong>Expired</strong> ${when(doc.expires_at, tz)}, before it was approved. Nothing was saved.</p></div>`;
  }
}

export function registerProposals(web: FastifyInstance, app: App, show: Show): void {
  /** The signed-in athlete, or a redirect to sign in and back. */
  const signedIn = async (session: Session | null, reply: FastifyReply, back: string) => {
    if (!session?.athlete_id) {
      await reply.redirect(`/sign-in?return_to=${encodeURIComponent(back)}`, 303);
      return null;
    }
    return app.athletes.get(session.athlete_id);
  };
  const notFound = (reply: FastifyReply, session: Session | null) =>
    show(reply, 'No such proposal', session, html`<div class="card"><h1>No such proposal</h1><p>There is no proposal of yours at this address.</p><a class="button" href="/proposals">Your proposals</a></div>`, 404);
  const commandIdOf = (params: unknown) => z.object({ id: uuid }).safeParse(params).data?.id ?? null;

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
    const [pending, { docs: history, next }] = await Promise.all([app.proposals.pending(athlete.athlete_id), app.proposals.history(athlete.athlete_id, HISTORY_PAGE, before)]);
    const row = (d: ProposalDoc) => html`<li><a href="/proposals/${d.id}">${d.changes.length === 1 ? '1 change' : `${d.changes.length} changes`} from ${d.client_name}</a>
<span class="hint">${STATUS_WORDS[statusAt(d, now)]} · prepared ${when(d.prepared_at, tz)}${statusAt(d, now) === 'prepared' ? ` · expires in ${minutesLeft(d.expires_at, now)}` : ''}</span></li>`;
    return show(
      reply,
      'Proposals',
      request.session,
      html`<h1>Proposals</h1>
<p class="hint">Changes your connected AI apps suggest. Nothing changes in your record until you approve it here.</p>
<section class="card"><h2>Waiting for your review</h2>${pending.length ? html`<ul class="proposals">${pending.map(row)}</ul>` : html`<p>Nothing is waiting for you.</p>`}</section>
<section class="card"><h2>${before ? 'Earlier history' : 'History'}</h2>${history.length ? html`<ul class="proposals">${history.map(row)}</ul>` : html`<p>No earlier proposals.</p>`}${
  next ? html`<p><a href="/proposals?before=${encodeURIComponent(next.join('~'))}">Older proposals</a></p>` : ''
}${before ? html`<p><a href="/proposals">Newest proposals</a></p>` : ''}</section>`,
    );
  });

  web.get('/proposals/:id', async (request, reply) => {
    const commandId = commandIdOf(request.params);
    const athlete = await signedIn(request.session, reply, request.url);
    if (!athlete) return reply;
    const review = commandId ? await app.proposals.review(athlete.athlete_id, commandId) : null;
    if (!review) return notFound(reply, request.session);
    const now = app.clock.now();
    const { doc, details } = review;
    const csrf = request.session!.csrf;
    const ctx: ViewContext = { profile: athlete.profile, exerciseName: await exerciseNames(app, athlete.athlete_id, details?.actions ?? []) };
    const notice = (request.query as Record<string, unknown>).done;
    const changes = details
      ? details.actions.map((a, i) => {
          const stage: ChangeStage = review.status === 'prepared' ? 'pending' : review.status === 'committed' || review.status === 'undone' ? 'saved' : 'unsaved';
          const current = stage === 'pending' ? (review.current.get(itemKey(WRITE_KINDS[a.kind], a.id)) ?? null) : beforeOf(review, a);
          return changeCard(a, details.summaries[i] ?? null, current, ctx, stage);
        })
      : [html`<div class="card"><p>The details of this proposal were removed after 30 days; the receipt below remains.</p></div>`];
    return show(
      reply,
      `Proposal from ${doc.client_name}`,
      request.session,
      html`<h1>${doc.changes.length === 1 ? '1 change' : `${doc.changes.length} changes`} from ${doc.client_name}</h1>
${notice === 'undone' ? html`<p class="notice" role="status">Undone. Your record is as it was before this batch.</p>` : ''}
<p class="hint">Prepared ${when(doc.prepared_at, athlete.profile.timezone)} by ${doc.client_name}.</p>
${statusCard(review, athlete, now)}
${changes}
${review.status === 'prepared'
  ? html`<div class="card actions"><form method="post" action="/proposals/${doc.id}/approve"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Approve all ${doc.changes.length === 1 ? '' : `${doc.changes.length} `}changes</button></form>
<form method="post" action="/proposals/${doc.id}/reject"><input type="hidden" name="_csrf" value="${csrf}"><button class="secondary" type="submit">Reject</button></form>
<p class="hint">Approving saves every change together, or none if your record changed meanwhile.</p></div>`
  : ''}
${doc.receipt ? receiptCard(doc, athlete.profile.timezone) : ''}
<p><a href="/proposals">All proposals</a></p>`,
    );
  });

  const move = (path: string, run: (athleteId: string, commandId: string) => Promise<string | null>) =>
    web.post(`/proposals/:id/${path}`, async (request, reply) => {
      const commandId = commandIdOf(request.params);
      const athlete = await signedIn(request.session, reply, request.url.replace(`/${path}`, ''));
      if (!athlete) return reply;
      if (!commandId) return notFound(reply, request.session);
      try {
        const done = await run(athlete.athlete_id, commandId);
        return reply.redirect(`/proposals/${commandId}${done ? `?done=${done}` : ''}`, 303);
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found') return notFound(reply, request.session);
        if (error instanceof ReviewRefusal) {
          return show(reply, 'Not possible', request.session, html`<div class="card"><h1>That was not possible</h1><p>${error.message}.</p><a class="button" href="/proposals/${commandId}">Back to the proposal</a></div>`, 409);
        }
        throw error;
      }
    });
  move('approve', async (athleteId, commandId) => (await app.proposals.approve(athleteId, commandId)).outcome);
  move('reject', async (athleteId, commandId) => (await app.proposals.reject(athleteId, commandId)).outcome);
  move('undo', async (athleteId, commandId) => {
    await app.proposals.undo(athleteId, commandId);
    return 'undone';
  });

  // Undo asks first, listing what will be restored.
  web.get('/proposals/:id/undo', async (request, reply) => {
    const commandId = commandIdOf(request.params);
    const athlete = await signedIn(request.session, reply, request.url);
    if (!athlete) return reply;
    const review = commandId ? await app.proposals.review(athlete.athlete_id, commandId) : null;
    if (!review?.doc.affected) return notFound(reply, request.session);
    const ctx: ViewContext = { profile: athlete.profile, exerciseName: await exerciseNames(app, athlete.athlete_id, review.details?.actions ?? []) };
    const lines = review.doc.affected.map((x, i) => {
      // Feedback is no kind a proposal names: it comes and goes with its workout.
      const kind = writeKindOf(x.kind);
      const before = review.before?.[i]?.item as Record<string, unknown> | null | undefined;
      const title = kind ? kindTitle(kind).toLowerCase() : 'workout feedback';
      const what = x.change === 'created' ? `Remove the ${title} it added` : x.change === 'deleted' ? `Bring back the ${title} it removed` : `Set the ${title} back as it was`;
      const shown = before && kind ? fieldList(fieldsOf(kind, withoutId(before), ctx)) : '';
      return html`<li><strong>${what}</strong>${shown}</li>`;
    });
    return show(
      reply,
      'Undo this batch?',
      request.session,
      html`<h1>Undo this batch?</h1>
<div class="card"><p>Everything the batch from ${review.doc.client_name} changed goes back as it was, all together. If any of these records changed since, nothing is undone.</p>
<ul class="undo">${lines}</ul>
<form method="post" action="/proposals/${review.doc.id}/undo"><input type="hidden" name="_csrf" value="${request.session!.csrf}"><button type="submit">Yes, undo all of it</button></form>
<p><a href="/proposals/${review.doc.id}">Keep it as it is</a></p></div>`,
    );
  });
}

/** For a committed batch: the item as it was before, if still kept. */
function beforeOf(review: ProposalReview, action: NormalisedAction): Record<string, unknown> | null | undefined {
  const i = review.doc.affected?.findIndex((x) => x.kind === WRITE_KINDS[action.kind] && x.id === action.id) ?? -1;
  const item = i >= 0 ? review.before?.[i]?.item : undefined;
  return item ? withoutId(item as Record<string, unknown>) : item === null ? null : undefined;
}

function withoutId({ id: _id, source: _source, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest;
}

