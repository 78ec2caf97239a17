// Connection settings: the AI clients the athlete connected, what each may read, when it last
// read, and a button that disconnects it at once.
import type { FastifyInstance } from 'fastify';
import type { App } from '../app.ts';
import { DomainError } from '../domain/errors.ts';
import { lastReadAt } from '../http/agent-access.ts';
import type { Show } from './app.ts';
import { html } from './html.ts';

const AREA_NAMES: Record<string, string> = { training: 'Training', recovery: 'Recovery', nutrition: 'Nutrition', body_measurements: 'Body measurements' };

function when(iso: string | null, timezone: string): string {
  if (!iso) return 'never';
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(new Date(iso));
}

export function registerConnections(web: FastifyInstance, app: App, show: Show): void {
  web.get('/connections', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/connections')}`);
    const athlete = (await app.athletes.get(session.athlete_id))!;
    const tz = athlete.profile.timezone;
    const connected = (await app.connections.list(athlete.athlete_id)).filter((c) => c.status === 'connected');
    const rows = await Promise.all(
      connected.map(async (c) => {
        const lastRead = await lastReadAt(app, athlete.athlete_id, c.id);
        return html`<div class="card connection">
<h2>${c.client_name}</h2>
<p class="hint">Returns to ${c.redirect_host}</p>
<p><strong>May read:</strong> ${c.scopes.map((s) => AREA_NAMES[s] ?? s).join(', ')}</p>
<p><strong>Write permissions:</strong> none — it can only read.</p>
<p>Connected ${when(c.connected_at, tz)} · last read ${when(lastRead, tz)}</p>
<form method="post" action="/connections/${c.id}/disconnect"><input type="hidden" name="_csrf" value="${session.csrf}"><button class="secondary" type="submit">Disconnect ${c.client_name}</button></form>
</div>`;
      }),
    );
    const notice = (request.query as Record<string, string>).disconnected;
    return show(
      reply,
      'Connected apps',
      session,
      html`<h1>Connected apps</h1>
${notice ? html`<p class="notice" role="status">Disconnected. It can no longer read your record; copies it already received stay with it.</p>` : ''}
${rows.length ? rows : html`<div class="card"><p>No AI clients are connected. When you connect one, it appears here with what it may read.</p></div>`}`,
    );
  });

  web.post('/connections/:grantId/disconnect', async (request, reply) => {
    const session = request.session;
    if (!session?.athlete_id) return reply.redirect('/sign-in', 303);
    const { grantId } = request.params as { grantId: string };
    try {
      await app.connections.disconnect(session.athlete_id, grantId);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
    }
    return reply.redirect('/connections?disconnected=1', 303);
  });
}
