// The permission form (spec 5.3): an AI client that wants to propose changes sends the athlete a
// link to it, naming the permissions it asks for. The athlete sees which client asks and ticks
// what to allow; nothing is ticked for them, and the client cannot grant itself anything. What is
// allowed is added to what the connection holds, as a grant event.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { READ_SCOPE_AREAS } from '../../contracts/common.ts';
import { describePermission, WRITE_PERMISSIONS, writePermission, type WritePermission } from '../../contracts/write-permissions.ts';
import type { Services } from '../api/services.ts';
import { readForm } from './forms.ts';
import { html } from './html.ts';
import type { Show } from './layout.ts';

const allowFields = z.object({ allow: z.union([writePermission, z.array(writePermission).max(WRITE_PERMISSIONS.length)]).optional() });

/** The known permissions a link asks for, in the vocabulary's order; anything else is left out. */
function asked(request: FastifyRequest): WritePermission[] {
  const value = (request.query as Record<string, unknown>).permissions;
  const names = typeof value === 'string' ? value.split(/[\s,]+/) : [];
  return WRITE_PERMISSIONS.filter((p) => names.includes(p));
}

export function registerPermissionForm(web: FastifyInstance, app: Services, show: Show): void {
  const describe = (p: WritePermission) => describePermission(p, (area) => READ_SCOPE_AREAS[area].title);

  web.get('/connections/:grantId/write-permissions/request', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect(`/sign-in?return_to=${encodeURIComponent(request.url)}`);
    const { grantId } = request.params as { grantId: string };
    const connection = await app.connections.get(session.athlete_id, grantId);
    if (connection?.status !== 'connected') {
      return show(
        reply,
        'No such connection',
        session,
        html`<div class="card"><h1>No such connection</h1><p>This link is not for a connected app of yours. Connect the app first, then ask it again for the link.</p><a class="button" href="/connections">Your connected apps</a></div>`,
        404,
      );
    }
    const held = connection.write_permissions ?? [];
    const wanted = asked(request).filter((p) => !held.includes(p));
    const body = wanted.length
      ? html`<form method="post" action="/connections/${grantId}/write-permissions/request"><input type="hidden" name="_csrf" value="${session.csrf}">
<fieldset><legend>Allow it to:</legend>
${wanted.map((p) => html`<label class="area"><input type="checkbox" name="allow" value="${p}"><span>${describe(p)}</span></label>`)}
</fieldset>
<p class="hint">Nothing it suggests changes your record until you approve it here, in RepLedger. You can turn these off at any time in your connection settings.</p>
<button type="submit">Allow what I ticked</button></form>`
      : html`<p>It already has every permission this link asks for.</p>`;
    return show(
      reply,
      'Allow changes to be suggested',
      session,
      html`<div class="card"><h1>Let ${connection.client_name} suggest changes?</h1>
<p><strong>${connection.client_name}</strong> (returns to ${connection.redirect_host}) asks to suggest changes to your record.</p>
${held.length ? html`<p>It may already: ${held.map(describe).join('; ')}.</p>` : ''}
${body}
<p><a href="/connections">Back to your connected apps</a></p></div>`,
    );
  });

  web.post('/connections/:grantId/write-permissions/request', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect('/sign-in', 303);
    const { grantId } = request.params as { grantId: string };
    const connection = await app.connections.get(session.athlete_id, grantId);
    const form = readForm(allowFields, request.body);
    if (connection?.status !== 'connected' || !form.ok) return reply.redirect('/connections', 303);
    const allowed = [form.data.allow ?? []].flat();
    if (allowed.length === 0) return reply.redirect('/connections?permissions=none', 303);
    await app.connections.setWritePermissions(session.athlete_id, grantId, [...(connection.write_permissions ?? []), ...allowed], { onlyRemove: false });
    return reply.redirect('/connections?permissions=1', 303);
  });
}
