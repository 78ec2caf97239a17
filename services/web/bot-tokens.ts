// Bot tokens in the web app: create a named token (shown once), see them, revoke one. Creating
// redirects to the list (post/redirect/get), which shows the new token once from the session, so
// reloading the page never creates a second token.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import type { Show } from './layout.ts';
import { readForm, requiredText } from './forms.ts';
import { html } from './html.ts';
import type { Session, Sessions } from '../identity/sessions.ts';

/** `request_key`: one per form shown, so that the form sent twice (a double click) makes one token. */
const createFields = z.object({ name: requiredText('Name', 100), request_key: z.uuid().optional() });

export function registerBotTokens(web: FastifyInstance, app: Services, sessions: Sessions, show: Show): void {
  const list = async (athleteId: string, timezone: string, csrf: string) => {
    const tokens = (await app.botTokens.list(athleteId)).filter((t) => !t.revoked_at);
    const fmt = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone });
    return tokens.map(
      (t) => html`<li><div class="what"><strong>${t.name}</strong>
<span class="hint">${t.token_prefix ? html`<code>${t.token_prefix}…</code> · ` : ''}created ${fmt.format(new Date(t.created_at))} · ${t.last_used_at ? `last used ${fmt.format(new Date(t.last_used_at))}` : 'never used'}</span></div>
<form method="post" action="/bot-tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button class="secondary" type="submit">Revoke ${t.name}</button></form></li>`,
    );
  };

  const signedIn = async (session: Session | null) => (session ? app.athletes.get(session.athlete_id) : null);

  web.get('/bot-tokens', async (request, reply) => {
    const athlete = await signedIn(request.session);
    if (!athlete) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/bot-tokens')}`);
    const session = request.session!;
    const flash = await sessions.takeFlash(session);
    const created = flash?.kind === 'bot_token' ? { name: flash.name, token: flash.token } : null;
    return show(reply, 'Bot tokens', session, await tokensPage(athlete.athlete_id, athlete.profile.timezone, session.csrf, created, null));
  });

  web.post('/bot-tokens', async (request, reply) => {
    const athlete = await signedIn(request.session);
    if (!athlete) return reply.redirect('/sign-in', 303);
    const session = request.session!;
    const form = readForm(createFields, request.body);
    // The name as typed comes back with the refusal (when it was one text), to be corrected rather than typed again.
    const typed = (request.body as Record<string, unknown> | null)?.name;
    const again = async (message: string) =>
      show(
        reply,
        'Bot tokens',
        session,
        await tokensPage(athlete.athlete_id, athlete.profile.timezone, session.csrf, null, message, typeof typed === 'string' ? typed : ''),
        400,
      );
    if (!form.ok) return again(form.message);
    try {
      const name = form.data.name.trim();
      const { token } = await app.botTokens.create(athlete.athlete_id, name, { type: 'athlete', id: athlete.athlete_id }, form.data.request_key);
      // Kept in the session only until the next page shows it.
      await sessions.setFlash(session, { kind: 'bot_token', name, token });
      return reply.redirect('/bot-tokens', 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The same form sent again: its token was made by the first, and the page shows it once.
      if (error.code === 'already_exists' && form.data.request_key) return reply.redirect('/bot-tokens', 303);
      return again(error.message);
    }
  });

  web.post('/bot-tokens/:tokenId/revoke', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect('/sign-in', 303);
    try {
      await app.botTokens.revoke(session.athlete_id, (request.params as { tokenId: string }).tokenId, { type: 'athlete', id: session.athlete_id });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
    }
    return reply.redirect('/bot-tokens', 303);
  });

  async function tokensPage(
    athleteId: string,
    timezone: string,
    csrf: string,
    created: { name: string; token: string } | null,
    error: string | null,
    typedName = '',
  ) {
    const items = await list(athleteId, timezone, csrf);
    return html`<h1>Bot tokens</h1>
<p>A bot token lets a bot read your profile, stats, workouts and saved workouts through the Read API while your account is on Pro. It cannot change anything and does not work for AI clients connected with sign-in.</p>
${
  created
    ? html`<div class="notice" role="status"><p><strong>${created.name}</strong> is ready. Copy the token now: it is shown only this once.</p><p><code class="token">${created.token}</code></p></div>`
    : ''
}
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<div class="card"><h2>Create a token</h2>
<form method="post" action="/bot-tokens"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="request_key" value="${randomUUID()}">
<label for="name">Name</label><input type="text" id="name" name="name" required maxlength="100" placeholder="e.g. Discord stats bot" value="${typedName}">
<button type="submit">Create token</button></form></div>
<div class="card"><h2>Your tokens</h2>${items.length ? html`<ul class="tokens">${items}</ul>` : html`<p>No bot tokens yet.</p>`}</div>`;
  }
}
