// The athlete changes their own password: the current one first, then the new one twice. Wrong
// current passwords are counted like sign-in attempts, so the form is no faster way to guess.
// A change signs the athlete out everywhere else.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import type { Show } from './layout.ts';
import { readForm, text } from './forms.ts';
import { html, type Html } from './html.ts';
import type { AttemptLimiter } from './limiter.ts';
import type { Sessions } from '../identity/sessions.ts';

const fields = z
  .object({
    current_password: text('Current password', 200),
    new_password: text('New password', 200),
    confirm_password: text('New password again', 200),
  })
  .refine((f) => f.new_password === f.confirm_password, { message: 'New password again: the two new passwords differ' });

export function registerPasswordChange(web: FastifyInstance, app: Services, sessions: Sessions, attempts: AttemptLimiter, show: Show): void {
  web.get('/account/password', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/account/password')}`);
    return show(reply, 'Change your password', session, form(session.csrf, null));
  });

  web.post('/account/password', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect('/sign-in', 303);
    const again = (message: string, status: number) => show(reply, 'Change your password', session, form(session.csrf, message), status);
    const wait = attempts.retryAfter(session.athlete_id);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return again(`Too many wrong passwords. Try again in ${Math.ceil(wait / 60)} minutes.`, 429);
    }
    const parsed = readForm(fields, request.body);
    if (!parsed.ok) return again(parsed.message, 400);
    // Counted before the current password is checked, so attempts sent together cannot all pass.
    attempts.record(session.athlete_id);
    try {
      await app.athletes.changePassword(session.athlete_id, parsed.data.current_password, parsed.data.new_password, {
        type: 'athlete',
        id: session.athlete_id,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid_input') throw error;
      const wrongCurrent = error.issues.some((i) => i.path === 'current_password');
      if (!wrongCurrent) attempts.forgetLast(session.athlete_id);
      return again(wrongCurrent ? 'Your current password is not right.' : `New password: ${error.issues[0]?.message ?? error.message}.`, 400);
    }
    attempts.reset(session.athlete_id);
    // Every other browser signed in with the old password is signed out; this one starts afresh.
    await sessions.endAllOf(session.athlete_id);
    await sessions.start(reply, session.athlete_id);
    return reply.redirect('/account?password_changed=1', 303);
  });
}

function form(csrf: string, error: string | null): Html {
  return html`<div class="card"><h1>Change your password</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/account/password">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="current_password">Current password</label>
<input type="password" id="current_password" name="current_password" required autocomplete="current-password">
<label for="new_password">New password</label>
<input type="password" id="new_password" name="new_password" required minlength="12" maxlength="200" autocomplete="new-password">
<p class="hint">At least 12 characters. Changing it signs you out on every other device.</p>
<label for="confirm_password">New password again</label>
<input type="password" id="confirm_password" name="confirm_password" required minlength="12" maxlength="200" autocomplete="new-password">
<button type="submit">Change password</button>
</form></div>
<p><a href="/account">Back to your account</a></p>`;
}
