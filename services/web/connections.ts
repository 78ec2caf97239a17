// Connection settings: the AI clients the athlete connected, what each may read, when it last
// read, a link to what it read and suggested, and a button that disconnects it at once.
import type { FastifyInstance } from 'fastify';
import type { DisconnectReason } from '../../contracts/events.ts';
import { READ_SCOPE_AREAS } from '../../contracts/common.ts';
import type { App } from '../app.ts';
import { DomainError } from '../domain/errors.ts';
import { lastReadAt } from '../api/auth.ts';
import type { Show } from './layout.ts';
import { html, type Html } from './html.ts';
import { z } from 'zod';
import { describePermission, WRITE_PERMISSIONS, writePermission, type WritePermission } from '../../contracts/write-permissions.ts';
import { readForm } from './forms.ts';

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

/** What a connection may propose, each with a box to untick; turning all off leaves it read-only. */
function writePermissions(grantId: string, clientName: string, held: WritePermission[], csrf: string): Html {
  if (held.length === 0) return html`<p><strong>Write permissions:</strong> none — it can only read.</p>`;
  return html`<form method="post" action="/connections/${grantId}/write-permissions"><input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend><strong>May suggest changes</strong> (nothing changes until you approve it)</legend>
${held.map((p) => html`<label class="area"><input type="checkbox" name="keep" value="${p}" checked><span>${describePermission(p, (area) => READ_SCOPE_AREAS[area].title)}</span></label>`)}
</fieldset>
<button class="secondary" type="submit">Save what ${clientName} may suggest</button></form>`;
}

export function registerConnections(web: FastifyInstance, app: App, show: Show): void {
  web.get('/connections', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/connections')}`);
    const athlete = (await app.athletes.get(session.athlete_id))!;
    const tz = athlete.profile.timezone;
    const all = await app.connections.list(athlete.athlete_id);
    const connected = all.filter((c) => c.status === 'connected');
    // Shown with why they ended, so that an app cut off by the authorization server does not
    // simply look connected while nothing works (or vanish without a word).
    const ended = all.filter((c) => c.status === 'disconnected');
    const rows = await Promise.all(
      connected.map(async (c) => {
        const lastRead = await lastReadAt(app, athlete.athlete_id, c.id);
        return html`<div class="card connection">
<h2>${c.client_name}</h2>
<p class="hint">Returns to ${c.redirect_host}</p>
<p><strong>May read:</strong> ${c.scopes.map((s) => AREA_NAMES[s] ?? s).join(', ')}</p>
${writePermissions(c.id, c.client_name, c.write_permissions ?? [], session.csrf)}
<p>Connected ${when(c.connected_at, tz)} · last read ${when(lastRead, tz)}</p>
<p><a href="/connections/${c.id}/activity">What ${c.client_name} read and suggested</a></p>
<form method="post" action="/connections/${c.id}/disconnect"><input type="hidden" name="_csrf" value="${session.csrf}"><button class="secondary" type="submit">Disconnect ${c.client_name}</button></form>
</div>`;
      }),
    );
    const query = request.query as Record<string, unknown>;
    const notice = query.disconnected;
    return show(
      reply,
      'Connected apps',
      session,
      html`<h1>Connected apps</h1>
${notice ? html`<p class="notice" role="status">Disconnected. It can no longer read your record; copies it already received stay with it.</p>` : ''}
${query.permissions ? html`<p class="notice" role="status">${PERMISSION_NOTICES[Object.hasOwn(PERMISSION_NOTICES, String(query.permissions)) ? String(query.permissions) : '1']}</p>` : ''}
${rows.length ? rows : html`<div class="card"><p>No AI clients are connected. When you connect one, it appears here with what it may read.</p></div>`}
${ended.length ? html`<h2>Disconnected</h2>${ended.map(
  (c) => html`<div class="card connection disconnected">
<h2>${c.client_name}</h2>
<p><strong>Disconnected</strong> ${when(c.disconnected_at, tz)}. ${whyDisconnected(c.disconnect_reason)}</p>
<p><a href="/connections/${c.id}/activity">What ${c.client_name} read and suggested</a></p>
</div>`,
)}` : ''}`,
    );
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
