// The athlete's own changes to their record: a form to add, change or remove each kind of item,
// and the undo of their last change. Forms are server-rendered and work without script; each
// carries the CSRF token (checked for every form in app.ts) and the revision the item was read at,
// so a change made meanwhile (an approved batch, an import) is shown as a conflict that names it
// and keeps what the athlete typed, never overwritten unseen. A save goes through the same checks
// and record decider as an agent's batch (services/writes/edits.ts), with the athlete as actor.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WRITE_POLICY } from '../../contracts/common.ts';
import type { WriteAction, WriteKind } from '../../contracts/write.ts';
import type { Services } from '../api/services.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { ReviewRefusal, undoDeadline } from '../domain/proposal-review.ts';
import { WriteRefusal } from '../domain/proposal.ts';
import { todayIn } from '../domain/time.ts';
import type { Session } from '../identity/sessions.ts';
import { capitalise, changeHeading, changeWords, KIND_NOUNS, recordSubject, undoLine, changedByWords } from '../words/changes.ts';
import { compareRecords, RECORD_FIELDS, type WordsContext } from '../words/record-fields.ts';
import { dateTime } from '../words/units.ts';
import type { EditedItem } from '../writes/edits.ts';
import { WritesPaused } from '../writes/moves.ts';
import { html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { applyButton, formControls, readTree, treeOf, treeOfBody, type FormContext, type FormProblem, type Tree } from './record-forms.ts';
import { pausedWords } from './proposals.ts';
import { signedInAthlete, UUID } from './record-pages.ts';
import { EDITABLE, editPath, editWords, pageOf, type Slug } from './record-links.ts';

/** The largest record form (a workout of 200 sets, every field with its shown value beside it), in bytes. */
const RECORD_FORM_BYTES = 512 * 1024;
/** Exercises offered by the pickers, by name; a catalog beyond it is picked from its first ones (or a name typed). */
const PICKER_EXERCISES = 2000;
const PICKS_EXERCISES: readonly WriteKind[] = ['completed_workout', 'saved_routine', 'goal'];

type Body = Record<string, unknown>;

/** What a new item's form starts with: now, today, the usual choices. */
function startingRecord(kind: WriteKind, now: Date, timezone: string): Body {
  const at = now.toISOString();
  const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
  switch (kind) {
    case 'completed_workout':
      return { started_at: hourAgo, ended_at: at, notes: null, exercises: [] };
    case 'meal':
      return { eaten_at: at };
    case 'body_measurement':
      return { measured_at: at, metric: 'bodyweight' };
    case 'recovery_checkin':
      return { date: todayIn(timezone, now.getTime()) };
    case 'goal':
      return { status: 'active', target_unit: 'kg', achieved_at: null, exercise_id: null };
    case 'saved_routine':
      return { exercises: [], scheduled_dates: [] };
    default:
      return {};
  }
}

export function registerRecordEdits(web: FastifyInstance, app: Services, show: Show): void {
  /** The controls' context: the athlete's catalog only for the kinds that pick an exercise (a workout, a routine, a goal). */
  const formContext = async (athlete: AthleteState, kind: WriteKind): Promise<FormContext> => ({
    profile: athlete.profile,
    exercises: PICKS_EXERCISES.includes(kind)
      ? await app.reads.page<{ id: string; name: string }>('exercises', {
          partition: athlete.athlete_id,
          index: 'by_name',
          direction: 'asc',
          limit: PICKER_EXERCISES,
        })
      : [],
  });
  const wordsOf = (ctx: FormContext): WordsContext => {
    const names = new Map(ctx.exercises.map((e) => [e.id, e.name]));
    return { profile: ctx.profile, exerciseName: (id) => names.get(id) ?? null };
  };

  interface FormPage {
    slug: Slug;
    id: string | null;
    /** The revision the form was read at (null: a new item). */
    revision: number | null;
    tree: Tree;
    /** The item as the record holds it (null: a new item). */
    current: EditedItem | null;
    problems?: readonly FormProblem[];
    /** Shown above the form: why it came back (a conflict). */
    notice?: Html;
    status?: number;
  }

  const formPage = (reply: FastifyReply, session: Session, ctx: FormContext, f: FormPage) => {
    const kind = EDITABLE[f.slug].kind;
    const noun = KIND_NOUNS[kind].one;
    const words = wordsOf(ctx);
    const title =
      f.id === null
        ? kind === 'fitness_preferences'
          ? 'Your fitness preferences'
          : `Add ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`
        : capitalise(changeHeading({ op: 'update', kind, record: null, current: f.current?.record ?? null }, words));
    const action = f.id === null ? `/record/${f.slug}` : `/record/${f.slug}/${f.id}`;
    const problems = f.problems ?? [];
    return show(
      reply,
      title,
      session,
      html`<h1>${title}</h1>${f.notice ?? ''}
${
  problems.length
    ? html`<div class="error" role="alert"><p><strong>Nothing was saved.</strong> Please check:</p><ul>${problems.map(
        (p) => html`<li><a href="#f-${p.name.replace(/[^a-z0-9]+/gi, '-')}">${p.message}</a></li>`,
      )}</ul></div>`
    : ''
}
<form method="post" action="${action}" class="card record-form" novalidate>
<input type="hidden" name="_csrf" value="${session.csrf}">
${f.revision !== null ? html`<input type="hidden" name="_revision" value="${String(f.revision)}">` : ''}
<button type="submit" name="_do" value="save" class="default-submit" tabindex="-1" aria-hidden="true">Save</button>
${formControls(kind, f.tree, ctx, problems)}
<div class="form-actions"><button type="submit" name="_do" value="save">Save</button> <a class="button secondary" href="${EDITABLE[f.slug].page(f.id)}">Cancel</a></div>
</form>
${f.id !== null && kind !== 'fitness_preferences' ? html`<p><a class="danger" href="/record/${f.slug}/${f.id}/remove">Remove this ${noun}…</a></p>` : ''}`,
      f.status ?? 200,
      { wide: kind === 'completed_workout' || kind === 'saved_routine' },
    );
  };

  /** The slug and item id an address names; null for anything else (a 404). */
  const target = (params: unknown): { slug: Slug; id: string | null } | null => {
    const { slug, id } = (params ?? {}) as { slug?: string; id?: string };
    if (!slug || !Object.hasOwn(EDITABLE, slug)) return null;
    if (id !== undefined && !UUID.test(id)) return null;
    return { slug: slug as Slug, id: id?.toLowerCase() ?? null };
  };

  const notFound = (reply: FastifyReply, session: Session) =>
    show(
      reply,
      'Not found',
      session,
      html`<div class="card"><h1>Not in your record</h1><p>There is no such item in your record. It may have been removed.</p><a class="button" href="/account">Home</a></div>`,
      404,
    );

  /** Fitness preferences are one per athlete and share their id: their form is always the one to change them. */
  const itemIdOf = (slug: Slug, id: string | null, athlete: AthleteState) => (EDITABLE[slug].kind === 'fitness_preferences' ? athlete.athlete_id : id);

  /**
   * What every form's address needs: the signed-in athlete, the kind and item it names, the
   * controls' context, and the item as the record holds it; null once answered (signed out, or an
   * address of nothing).
   */
  const formTarget = async (request: FastifyRequest, reply: FastifyReply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return null;
    const t = target(request.params);
    if (!t) {
      void notFound(reply, who.session);
      return null;
    }
    const kind = EDITABLE[t.slug].kind;
    const id = itemIdOf(t.slug, t.id, who.athlete);
    const [ctx, current] = await Promise.all([formContext(who.athlete, kind), id ? app.edits.item(who.athlete.athlete_id, kind, id) : null]);
    return { ...who, ...t, kind, itemId: id, ctx, current };
  };

  const openForm = async (request: FastifyRequest, reply: FastifyReply) => {
    const f = await formTarget(request, reply);
    if (!f) return reply;
    if (f.id !== null && !f.current) return notFound(reply, f.session);
    const start = f.current?.record ?? startingRecord(f.kind, app.clock.now(), f.athlete.profile.timezone);
    return formPage(reply, f.session, f.ctx, {
      slug: f.slug,
      id: f.current ? f.itemId : null,
      revision: f.current?.revision ?? null,
      current: f.current,
      tree: treeOf(f.kind, start, f.athlete.profile),
    });
  };
  web.get('/record/:slug/new', openForm);
  web.get('/record/:slug/:id', openForm);

  const save = async (request: FastifyRequest, reply: FastifyReply) => {
    const f = await formTarget(request, reply);
    if (!f) return reply;
    const { kind, ctx, current, session, athlete } = f;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const revision = typeof body._revision === 'string' && /^\d{1,9}$/.test(body._revision) ? Number(body._revision) : null;
    // A form for a new item whose kind is one per athlete (fitness preferences) that exists by now changes it.
    const base = f.id === null && current === null ? null : revision;
    let tree = treeOfBody(body);
    const again = (more: Partial<FormPage>) =>
      formPage(reply, session, ctx, { slug: f.slug, id: base === null ? null : f.itemId, revision: base, current, tree, ...more });

    const button = typeof body._do === 'string' ? body._do : 'save';
    if (button !== 'save') {
      const changed = applyButton(kind, tree, button);
      if (!changed) return again({ problems: [{ name: '', message: 'That button is not part of this form; nothing was changed.' }], status: 400 });
      tree = changed;
      return again({ tree });
    }
    if (f.id !== null && base === null)
      return again({ problems: [{ name: '', message: 'This form is missing what it was read at. Open it again.' }], status: 400 });
    if (base !== null && !current) return removedMeanwhile(reply, session, ctx, f.slug, tree);

    const read = readTree(kind, tree, ctx);
    if (!read.ok) return again({ problems: read.problems, status: 400 });
    const main: WriteAction =
      base === null
        ? { op: 'create', kind, record: read.record as never }
        : { op: 'update', kind, id: f.itemId!, base_revision: base, record: read.record as never };
    try {
      const saved = await app.edits.save(athlete.athlete_id, athlete.profile.timezone, [...read.exercises, main]);
      return reply.redirect(EDITABLE[f.slug].page(base === null ? (saved.created.at(-1) ?? null) : f.itemId), 303);
    } catch (error) {
      if (error instanceof WritesPaused) return paused(reply, session, athlete, error);
      if (!(error instanceof WriteRefusal)) throw error;
      const mainIndex = read.exercises.length;
      if ((error.reason === 'stale_revision' || error.reason === 'unknown_item') && error.actionIndex === mainIndex) {
        const now = await app.edits.item(athlete.athlete_id, kind, f.itemId!);
        if (!now) return removedMeanwhile(reply, session, ctx, f.slug, tree);
        return again({ revision: now.revision, current: now, notice: conflictNotice(kind, f.itemId!, now, read.record, wordsOf(ctx)), status: 409 });
      }
      return again({ problems: [problemOf(kind, error, mainIndex, read.exercises.length)], status: 400 });
    }
  };
  web.post('/record/:slug', { bodyLimit: RECORD_FORM_BYTES }, save);
  web.post('/record/:slug/:id', { bodyLimit: RECORD_FORM_BYTES }, save);

  /** An item removed while its form was open: nothing saved; what was typed can be added as new. */
  const removedMeanwhile = (reply: FastifyReply, session: Session, ctx: FormContext, slug: Slug, tree: Tree) => {
    const noun = KIND_NOUNS[EDITABLE[slug].kind].one;
    return formPage(reply, session, ctx, {
      slug,
      id: null,
      revision: null,
      current: null,
      tree: withoutShownValues(tree),
      notice: html`<div class="error" role="alert"><p><strong>Nothing was saved:</strong> this ${noun} was removed from your record while you were changing it. What you typed is below; save it to add it again as a new ${noun}.</p></div>`,
      status: 409,
    });
  };

  const paused = (reply: FastifyReply, session: Session, athlete: AthleteState, error: WritesPaused) => {
    reply.header('Retry-After', String(error.retryAfter));
    const words = pausedWords(error, app.clock.now(), athlete.profile.timezone);
    return show(reply, 'Saving is paused', session, html`<div class="card"><h1>Saving is paused</h1><p>${words}</p></div>`, 503);
  };

  // Removal asks first.
  /** The item a removal's address names, as the record holds it; null once answered. Fitness preferences are changed, never removed. */
  const removalTarget = async (request: FastifyRequest, reply: FastifyReply) => {
    const f = await formTarget(request, reply);
    if (!f) return null;
    if (f.id === null || !f.current || f.kind === 'fitness_preferences') {
      void notFound(reply, f.session);
      return null;
    }
    return { ...f, id: f.id, current: f.current };
  };

  web.get('/record/:slug/:id/remove', async (request, reply) => {
    const f = await removalTarget(request, reply);
    if (!f) return reply;
    return removePage(reply, f.session, f.ctx, f.slug, f.id, f.current);
  });

  const removePage = (
    reply: FastifyReply,
    session: Session,
    ctx: FormContext,
    slug: Slug,
    id: string,
    current: EditedItem,
    notice: Html | '' = '',
    status = 200,
  ) => {
    const kind = EDITABLE[slug].kind;
    const subject = recordSubject(kind, current.record, wordsOf(ctx));
    const withFeedback = kind === 'completed_workout' ? ' Its feedback is removed with it.' : '';
    return show(
      reply,
      `Remove the ${subject}?`,
      session,
      html`<div class="card"><h1>Remove the ${subject}?</h1>${notice}
<p>It leaves your record, and AI apps you connected no longer see it.${withFeedback} You can undo this from your record's pages for ${WRITE_POLICY.undoWindowDays} days, as long as it is your last change.</p>
<form method="post" action="/record/${slug}/${id}/remove"><input type="hidden" name="_csrf" value="${session.csrf}"><input type="hidden" name="_revision" value="${String(current.revision)}">
<button type="submit" class="danger">Remove it</button> <a class="button secondary" href="${EDITABLE[slug].page(id)}">Keep it</a></form></div>`,
      status,
    );
  };

  web.post('/record/:slug/:id/remove', async (request, reply) => {
    const f = await removalTarget(request, reply);
    if (!f) return reply;
    const { kind, ctx, session, athlete } = f;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const revision = typeof body._revision === 'string' && /^\d{1,9}$/.test(body._revision) ? Number(body._revision) : null;
    const again = (current: EditedItem, notice: Html, status: number) => removePage(reply, session, ctx, f.slug, f.id, current, notice, status);
    if (revision === null) return again(f.current, html`<p class="error" role="alert">This form is missing what it was read at; nothing was removed.</p>`, 400);
    try {
      await app.edits.save(athlete.athlete_id, athlete.profile.timezone, [{ op: 'delete', kind, id: f.id, base_revision: revision }]);
      return reply.redirect(EDITABLE[f.slug].page(null), 303);
    } catch (error) {
      if (error instanceof WritesPaused) return paused(reply, session, athlete, error);
      if (!(error instanceof WriteRefusal)) throw error;
      const now = await app.edits.item(athlete.athlete_id, kind, f.id);
      if (!now) return notFound(reply, session);
      const by = now.at ? html` by ${changedByWords(now.by)} on ${dateTime(now.at, athlete.profile.timezone)}` : '';
      return again(
        now,
        html`<div class="error" role="alert"><p><strong>Nothing was removed:</strong> it was changed${by} after you opened this page. <a href="${editPath(kind, f.id)}">Look at it as it is now</a>, or remove it still.</p></div>`,
        409,
      );
    }
  });

  // Undoing the last change asks first, listing what will be set back.
  web.get('/record/undo', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const last = await app.edits.lastShown(who.athlete.athlete_id);
    const ctx = await editWords(app, who.athlete, last);
    if (!last)
      return show(
        reply,
        'Nothing to undo',
        who.session,
        html`<div class="card"><h1>Nothing to undo</h1><p>You have no change of your own to undo: your last one was undone already, or you have made none here.</p><a class="button" href="/account">Home</a></div>`,
      );
    const deadline = undoDeadline(last.saved_at);
    // Keeping it goes back to where the change shows.
    const first = last.changes[0];
    const back = first ? pageOf(first.kind, first.change === 'deleted' ? null : first.id) : '/account';
    return show(
      reply,
      'Undo your last change?',
      who.session,
      html`<div class="card"><h1>Undo your last change?</h1>
<p>You made it on ${dateTime(last.saved_at, who.athlete.profile.timezone)}. Undoing it will:</p>
<ul class="undo">${last.changes.map((c) => html`<li>${undoLine(c.change, recordSubject(c.kind, c.after ?? c.before, ctx), 'change')}</li>`)}</ul>
${
  app.clock.now() < deadline
    ? html`<form method="post" action="/record/undo"><input type="hidden" name="_csrf" value="${who.session.csrf}"><input type="hidden" name="edit_id" value="${last.edit_id}">
<button type="submit" class="danger">Undo this change</button> <a class="button secondary" href="${back}">Keep it</a></form>`
    : html`<p>A change can be undone for ${WRITE_POLICY.undoWindowDays} days; that time has passed for this one.</p>`
}</div>`,
    );
  });

  web.post('/record/undo', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const editId = (request.body as Record<string, unknown> | undefined)?.edit_id;
    const last = await app.edits.lastShown(who.athlete.athlete_id);
    try {
      await app.edits.undo(who.athlete.athlete_id, typeof editId === 'string' ? editId : '');
      const first = last?.changes[0];
      return reply.redirect(first ? pageOf(first.kind, first.change === 'created' ? null : first.id) : '/account', 303);
    } catch (error) {
      if (error instanceof WritesPaused) return paused(reply, who.session, who.athlete, error);
      if (!(error instanceof ReviewRefusal)) throw error;
      const ctx = await editWords(app, who.athlete, last);
      const blocking = error.item && last?.changes.find((c) => c.id === error.item!.id);
      const message =
        error.reason === 'undo_blocked' && blocking
          ? `${capitalise(recordSubject(blocking.kind, blocking.after ?? blocking.before, ctx))} ${error.item!.how === 'removed' ? 'was removed' : error.item!.how === 'in_use' ? 'is used by a workout, routine or goal saved' : 'changed'} after your change, so nothing was undone.`
          : error.reason === 'undo_window_passed'
            ? `A change can be undone for ${WRITE_POLICY.undoWindowDays} days after it was saved; that time has passed for this one.`
            : 'That is no longer your last change (or it was undone already), so nothing was undone.';
      return show(
        reply,
        'Nothing was undone',
        who.session,
        html`<div class="card"><h1>Nothing was undone</h1><p>${message}</p><a class="button" href="/account">Home</a></div>`,
        409,
      );
    }
  });
}

/** What a conflict page says: who changed the item, when, and where the saved one differs from what was typed. */
function conflictNotice(kind: WriteKind, id: string, now: EditedItem, typed: Body, ctx: WordsContext): Html {
  const who = changedByWords(now.by);
  const when = now.at ? ` on ${dateTime(now.at, ctx.profile.timezone)}` : '';
  const differences = changeWords(compareRecords(kind, now.record, typed, ctx), ctx);
  return html`<div class="error" role="alert"><p><strong>Nothing was saved:</strong> while you were changing it, this ${KIND_NOUNS[kind].one} was changed by ${who}${when}.</p>
${
  differences.length
    ? html`<p>Where yours differs from the saved one (saved → yours):</p><ul>${differences.map((d) => html`<li>${d}</li>`)}</ul>`
    : html`<p>Your version below is the same as the saved one.</p>`
}<p>What you typed is kept below. Save it to replace the saved one, or <a href="${editPath(kind, id)}">start again from the saved one</a>.</p></div>`;
}

/** A refusal of the record's rules, named by the field's label where it names one. */
function problemOf(kind: WriteKind, error: WriteRefusal, mainIndex: number, exerciseCount: number): FormProblem {
  const m = /^actions\.(\d+)(?:\.record\.(.+))?$/.exec(error.field ?? '');
  const index = m ? Number(m[1]) : null;
  if (index !== null && index < exerciseCount) return { name: '', message: `A new exercise: ${error.message}` };
  const path = index === mainIndex ? (m?.[2] ?? '') : '';
  return { name: path, message: `${labelOf(kind, path)}${error.message}` };
}

/** "Weight (set 2 of exercise 1): " for `exercises.0.sets.1.weight_kg`; nothing for a path of no field. */
function labelOf(kind: WriteKind, path: string): string {
  if (!path) return '';
  const parts = path.split('.');
  let rows: Record<string, unknown> = RECORD_FIELDS[kind];
  const where: string[] = [];
  let label: string | null = null;
  for (let i = 0; i < parts.length; i++) {
    const row = rows[parts[i]!] as { label: string; noun?: string; fields?: Record<string, unknown> } | undefined;
    if (!row) break;
    label = row.label;
    if (row.fields && /^\d+$/.test(parts[i + 1] ?? '')) {
      where.unshift(`${row.noun} ${Number(parts[i + 1]) + 1}`);
      rows = row.fields;
      i++;
    }
  }
  if (!label) return '';
  return `${label}${where.length ? ` (${where.join(' of ')})` : ''}: `;
}

/** A posted tree without the values it was shown from: saved as new, everything in it is read as typed. */
function withoutShownValues(tree: Tree): Tree {
  const out: Tree = {};
  for (const [k, v] of Object.entries(tree)) {
    if (k.endsWith('~was')) continue;
    out[k] = Array.isArray(v) && typeof v[0] !== 'string' ? (v as Tree[]).map(withoutShownValues) : v;
  }
  return out;
}
