// Connection settings: the AI clients the athlete connected, each under the name the athlete gave
// it (beside the client's own name), what each may read and suggest, when it was connected, when
// it last made a request and last suggested a change, where it returns to, a link to what it read
// and suggested, and a link to disconnect it, which asks to confirm on a page of its own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DisconnectReason } from '../../contracts/events.ts';
import { CONNECTION_LABEL_MAX } from '../../contracts/events.ts';
import { READ_SCOPE_AREAS } from '../../contracts/common.ts';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import type { ConnectionDoc } from '../../projections/connections.ts';
import type { Services } from '../api/services.ts';
import { connectionName } from '../identity/connections.ts';
import { DomainError } from '../domain/errors.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { lastReadAt } from '../api/auth.ts';
import type { Show } from './layout.ts';
import { html, type Html } from './html.ts';
import { z } from 'zod';
import { describePermission, WRITE_PERMISSIONS, writePermission, type WritePermission } from '../../contracts/write-permissions.ts';
import { readForm } from './forms.ts';
import { STATUS_WORDS } from './proposals.ts';
import type { Session } from '../identity/sessions.ts';

const AREA_NAMES: Record<string, string> = Object.fromEntries(Object.entries(READ_SCOPE_AREAS).map(([scope, area]) => [scope, area.title]));

/** Why a connection ended, as the athlete reads it. */
const WHY_DISCONNECTED: Record<DisconnectReason, string> = {
  athlete: 'You disconnected it.',
  refresh_token_reused:
    'RepLedger disconnected it: one of its sign-in tokens was used twice, which can mean someone copied it. Connect the app again if you still use it.',
  authorization_code_reused:
    'RepLedger disconnected it: its sign-in code was used twice, which can mean someone copied it. Connect the app again if you still use it.',
  client_revoked: 'The app gave up its access itself.',
  signed_out: 'You signed out of RepLedger in the sign-in window AI apps use.',
  authorization_server: 'RepLedger ended its access.',
};

/** What the page says after a change to an app's write permissions (`?permissions=`). */
const PERMISSION_NOTICES: Record<string, string> = {
  '1': 'Saved. The app may now suggest what you allowed; nothing changes until you approve it.',
  none: 'Nothing was allowed: no permission was ticked. The app may suggest what it could before.',
  kept: 'Saved. The app may suggest only what is still ticked.',
};

export function whyDisconnected(reason: DisconnectReason | null | undefined): string {
  return reason ? WHY_DISCONNECTED[reason] : 'It no longer has access.';
}

function when(iso: string | null, timezone: string): string {
  if (!iso) return 'never';
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(new Date(iso));
}

const keepFields = z.object({ keep: z.union([writePermission, z.array(writePermission).max(WRITE_PERMISSIONS.length)]).optional() });
/** The name form's one field; what is wrong with a name is the connection service's to say. */
const nameFields = z.object({ name: z.string({ error: 'Give the app one name, as text.' }) });

/** A refused name, shown again in its card with what was wrong. */
interface NameProblem {
  grantId: string;
  message: string;
  typed: string;
}

/** What a connection may propose, each with a box to untick; turning all off leaves it read-only. */
function writePermissions(grantId: string, name: string, held: WritePermission[], csrf: string): Html {
  if (held.length === 0) return html`<p><strong>Write permissions:</strong> none — it can only read.</p>`;
  return html`<form method="post" action="/connections/${grantId}/write-permissions"><input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend><strong>May suggest changes</strong> (nothing changes until you approve it)</legend>
${held.map((p) => html`<label class="area"><input type="checkbox" name="keep" value="${p}" checked><span>${describePermission(p, (area) => READ_SCOPE_AREAS[area].title)}</span></label>`)}
</fieldset>
<button class="secondary" type="submit">Save what ${name} may suggest</button></form>`;
}

/** The heading of a connection: the athlete's name for it first, the client's own name beside it. */
function heading(c: ConnectionDoc): Html {
  return html`<h2>${connectionName(c)}${c.label ? html` <span class="meta">(the app calls itself ${c.client_name})</span>` : ''}</h2>`;
}

/** A small form to give the connection a name of the athlete's own; open, with the refusal, when a name was refused. */
function nameForm(c: ConnectionDoc, csrf: string, problem: NameProblem | null): Html {
  const id = `name-${c.id}`;
  const refused = problem?.grantId === c.id ? problem : null;
  return html`<details class="rename"${refused ? html` open` : ''}><summary>${c.label ? 'Change your name for it' : 'Give it a name of your own'}</summary>
<form method="post" action="/connections/${c.id}/name"><input type="hidden" name="_csrf" value="${csrf}">
<label for="${id}">Your name for this connection</label>
${refused ? html`<p class="error" id="${id}-error">${refused.message}</p>` : ''}
<input type="text" id="${id}" name="name" value="${refused ? refused.typed : (c.label ?? '')}" maxlength="${CONNECTION_LABEL_MAX}" required${refused ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}>
<p class="hint">Up to ${CONNECTION_LABEL_MAX} characters, for example “Laptop” or “Work Claude”. Only you see it; the app keeps its own name.</p>
<button class="secondary" type="submit">Save the name</button></form></details>`;
}

async function connectedCard(app: Services, athlete: AthleteState, c: ConnectionDoc, csrf: string, problem: NameProblem | null): Promise<Html> {
  const tz = athlete.profile.timezone;
  const [lastUsed, lastProposal] = await Promise.all([lastReadAt(app, athlete.athlete_id, c.id), app.connections.latestProposal(athlete.athlete_id, c.id)]);
  const name = connectionName(c);
  return html`<div class="card connection">
${heading(c)}
<dl class="fields">
<dt>Connected</dt><dd>${when(c.connected_at, tz)}</dd>
<dt>May read</dt><dd>${c.scopes.map((s) => AREA_NAMES[s] ?? s).join(', ')}</dd>
<dt>Last request</dt><dd>${lastUsed ? html`${when(lastUsed, tz)} <span class="hint">(reads and other requests, to the minute)</span>` : 'none yet'}</dd>
<dt>Last suggestion</dt><dd>${lastProposal ? html`<a href="/proposals/${lastProposal.command_id}">${when(lastProposal.prepared_at, tz)}</a> — ${STATUS_WORDS[lastProposal.status]}` : 'none yet'}</dd>
<dt>Returns to</dt><dd>${c.redirect_host}</dd>
</dl>
${writePermissions(c.id, name, c.write_permissions ?? [], csrf)}
<p><a href="/connections/${c.id}/activity">What ${name} read and suggested</a></p>
${nameForm(c, csrf, problem)}
<p><a class="button secondary" href="/connections/${c.id}/disconnect">Disconnect ${name}…</a></p>
</div>`;
}

async function connectionsPage(
  app: Services,
  athlete: AthleteState,
  session: Session,
  query: Record<string, unknown>,
  problem: NameProblem | null,
): Promise<Html> {
  const tz = athlete.profile.timezone;
  const all = await app.connections.list(athlete.athlete_id);
  const connected = all.filter((c) => c.status === 'connected');
  // Shown with why they ended, so that an app cut off by the authorization server does not
  // simply look connected while nothing works (or vanish without a word).
  const ended = all.filter((c) => c.status === 'disconnected');
  const rows = await Promise.all(connected.map((c) => connectedCard(app, athlete, c, session.csrf, problem)));
  return html`<h1>Connected apps</h1>
${problem ? html`<p class="error" role="alert">The name was not saved: ${problem.message}</p>` : ''}
${query.disconnected ? html`<p class="notice" role="status">Disconnected. It can no longer read your record; copies it already received stay with it.</p>` : ''}
${query.renamed ? html`<p class="notice" role="status">Saved. The app shows under your name for it here.</p>` : ''}
${query.permissions ? html`<p class="notice" role="status">${PERMISSION_NOTICES[Object.hasOwn(PERMISSION_NOTICES, String(query.permissions)) ? String(query.permissions) : '1']}</p>` : ''}
${rows.length ? rows : html`<div class="card"><p>No AI clients are connected. When you connect one, it appears here with what it may read.</p></div>`}
${
  ended.length
    ? html`<h2>Disconnected</h2>${ended.map(
        (c) => html`<div class="card connection disconnected">
${heading(c)}
<p><strong>Disconnected</strong> ${when(c.disconnected_at, tz)}. ${whyDisconnected(c.disconnect_reason)}</p>
<p><a href="/connections/${c.id}/activity">What ${connectionName(c)} read and suggested</a></p>
</div>`,
      )}`
    : ''
}`;
}

/** What disconnecting stops and what it does not, before the athlete confirms (spec 1.10). */
function disconnectPage(c: ConnectionDoc, csrf: string, timezone: string): Html {
  const name = connectionName(c);
  const suggests = (c.write_permissions ?? []).length > 0;
  return html`<p><a href="/connections">← Connected apps</a></p>
<div class="card"><h1>Disconnect ${name}?</h1>
<p class="meta">${c.label ? `The app calls itself ${c.client_name} · ` : ''}returns to ${c.redirect_host} · connected ${when(c.connected_at, timezone)}</p>
<h2>What stops</h2>
<ul>
<li>${name} can no longer read your record (${c.scopes.map((s) => AREA_NAMES[s] ?? s).join(', ')}): its next request is refused and its sign-in stops working.</li>
${suggests ? html`<li>It can no longer suggest changes.</li>` : ''}
</ul>
<h2>What does not stop</h2>
<ul>
<li>Copies of your record ${name} has already received stay with the app: RepLedger cannot recall them.</li>
<li>Changes you approved stay in your record; you can still undo a batch within ${WRITE_POLICY.undoWindowDays} days of saving it. Suggestions waiting for your review stay on <a href="/proposals">Proposals</a>: you can still approve or reject them until they expire.</li>
<li>What it read and suggested stays listed under <a href="/connections/${c.id}/activity">its activity</a>.</li>
<li>To use it again, connect it again from the app; you choose again what it may read.</li>
</ul>
<form method="post" action="/connections/${c.id}/disconnect"><input type="hidden" name="_csrf" value="${csrf}"><button class="danger" type="submit">Yes, disconnect ${name}</button></form>
<p><a href="/connections">Keep it connected</a></p></div>`;
}

/**
 * The signed-in athlete and their connection named by the path's `:grantId`, for a page of it
 * (`/connections/<id>/<page>`). Otherwise the answer is given here and null returned: a redirect to
 * sign in and back, or a 404 page for a connection that is not theirs.
 */
export async function ownConnection(
  app: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  show: Show,
  page: string,
): Promise<{ session: Session; athlete: AthleteState; connection: ConnectionDoc } | null> {
  const session = request.session;
  const { grantId } = request.params as { grantId: string };
  if (!session?.athlete_id) {
    await reply.redirect(`/sign-in?return_to=${encodeURIComponent(`/connections/${grantId}/${page}`)}`);
    return null;
  }
  const athlete = (await app.athletes.get(session.athlete_id))!;
  const connection = await app.connections.get(athlete.athlete_id, grantId);
  if (!connection) {
    await show(
      reply,
      'No such connection',
      session,
      html`<div class="card"><h1>No such connection</h1><p>There is no app of yours at this address.</p><a class="button" href="/connections">Your connected apps</a></div>`,
      404,
    );
    return null;
  }
  return { session, athlete, connection };
}

export function registerConnections(web: FastifyInstance, app: Services, show: Show): void {
  const page = async (reply: FastifyReply, athlete: AthleteState, session: Session, query: Record<string, unknown>, problem: NameProblem | null = null) =>
    show(reply, 'Connected apps', session, await connectionsPage(app, athlete, session, query, problem), problem ? 400 : 200);

  web.get('/connections', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/connections')}`);
    const athlete = (await app.athletes.get(session.athlete_id))!;
    return page(reply, athlete, session, request.query as Record<string, unknown>);
  });

  // The athlete's own name for a connection: refused in its card with what was wrong; of a
  // connection not theirs (or not connected), nothing is done and nothing is said.
  web.post('/connections/:grantId/name', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect('/sign-in', 303);
    const { grantId } = request.params as { grantId: string };
    const athlete = (await app.athletes.get(session.athlete_id))!;
    const form = readForm(nameFields, request.body);
    if (!form.ok) {
      if (!(await app.connections.get(athlete.athlete_id, grantId))) return reply.redirect('/connections', 303);
      return page(reply, athlete, session, {}, { grantId, message: form.message, typed: '' });
    }
    try {
      await app.connections.rename(athlete.athlete_id, grantId, form.data.name);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'not_found') return reply.redirect('/connections', 303);
      if (error.code !== 'invalid_input') throw error;
      return page(reply, athlete, session, {}, { grantId, message: error.message, typed: form.data.name });
    }
    return reply.redirect('/connections?renamed=1', 303);
  });

  // Turning permissions off: the form posts those to keep; none can be added here.
  web.post('/connections/:grantId/write-permissions', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect('/sign-in', 303);
    const { grantId } = request.params as { grantId: string };
    const form = readForm(keepFields, request.body);
    // A form this page did not make changes nothing.
    if (!form.ok) return reply.redirect('/connections', 303);
    try {
      await app.connections.setWritePermissions(session.athlete_id, grantId, [form.data.keep ?? []].flat(), { onlyRemove: true });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
      return reply.redirect('/connections', 303);
    }
    return reply.redirect('/connections?permissions=kept', 303);
  });

  // Disconnecting asks first, on a page of its own that works without script.
  web.get('/connections/:grantId/disconnect', async (request, reply) => {
    const found = await ownConnection(app, request, reply, show, 'disconnect');
    if (!found) return reply;
    const { session, athlete, connection } = found;
    if (connection.status !== 'connected') {
      return show(
        reply,
        'Already disconnected',
        session,
        html`<div class="card"><h1>${connectionName(connection)} is already disconnected</h1><p>${whyDisconnected(connection.disconnect_reason)}</p><a class="button" href="/connections">Your connected apps</a></div>`,
      );
    }
    return show(reply, `Disconnect ${connectionName(connection)}?`, session, disconnectPage(connection, session.csrf, athlete.profile.timezone));
  });

  web.post('/connections/:grantId/disconnect', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect('/sign-in', 303);
    const { grantId } = request.params as { grantId: string };
    try {
      await app.connections.disconnect(session.athlete_id, grantId);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
      // Said only of the athlete's own connection, already disconnected (a second click); of
      // another's, or of none, nothing was done and nothing is said.
      if ((await app.connections.get(session.athlete_id, grantId))?.status !== 'disconnected') return reply.redirect('/connections', 303);
    }
    return reply.redirect('/connections?disconnected=1', 303);
  });
}
