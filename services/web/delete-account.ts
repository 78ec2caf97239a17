// "Delete my account" (issue 42): the athlete deletes their account and everything of it, after
// re-entering their password and ticking that they understand it cannot be undone. The page offers
// "Download my record" first. Wrong passwords are counted like sign-in attempts, so the form is no
// faster way to guess. The form is a POST with the session's CSRF token (checked for every POST).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../api/services.ts';
import type { Sessions } from '../identity/sessions.ts';
import { EXPORT_PATH } from './export.ts';
import { readForm, text } from './forms.ts';
import { html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import type { AttemptLimiter } from './limiter.ts';
import { signedInAthlete } from './record-pages.ts';

export const DELETE_ACCOUNT_PATH = '/settings/delete-account';
const DELETED_PATH = '/account-deleted';

const fields = z.object({
  password: text('Password', 200),
  understood: z.literal('yes', { error: 'Tick the box to say you understand that deleting cannot be undone.' }),
});

export function registerDeleteAccount(web: FastifyInstance, app: Services, sessions: Sessions, attempts: AttemptLimiter, show: Show): void {
  web.get(DELETE_ACCOUNT_PATH, async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    return show(reply, 'Delete your account', who.session, page(who.athlete.email, who.session.csrf, null));
  });

  web.post(DELETE_ACCOUNT_PATH, async (request, reply) => {
    const session = request.session;
    const athlete = session ? await app.athletes.get(session.athlete_id) : null;
    if (!session || !athlete) return reply.redirect('/sign-in', 303);
    const again = (message: string, status: number) => show(reply, 'Delete your account', session, page(athlete.email, session.csrf, message), status);
    const wait = attempts.retryAfter(athlete.athlete_id);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return again(`Too many wrong passwords. Nothing was deleted. Try again in ${Math.ceil(wait / 60)} minutes.`, 429);
    }
    const parsed = readForm(fields, request.body);
    if (!parsed.ok) return again(`Nothing was deleted. ${parsed.message}`, 400);
    // Counted before the password is checked, so attempts sent together cannot all pass.
    attempts.record(athlete.athlete_id);
    const checked = await app.athletes.authenticate(athlete.email, parsed.data.password);
    if (checked?.athlete_id !== athlete.athlete_id) return again('Nothing was deleted: that is not your password.', 400);
    attempts.reset(athlete.athlete_id);
    const { erase_problem } = await app.accounts.delete(athlete.athlete_id, { type: 'athlete', id: athlete.athlete_id });
    // The account is deleted: nothing reads what is left in the files, which the operator erases
    // by running the deletion again (README, "Deleting an account").
    if (erase_problem)
      request.log.warn(
        { athlete_id: athlete.athlete_id },
        `account deleted, store files not yet erased (${erase_problem}); run \`repledger athletes delete --athlete ${athlete.athlete_id}\``,
      );
    // The session's row went with the account; the browser's cookie goes now.
    await sessions.end(reply, null);
    return reply.redirect(DELETED_PATH, 303);
  });

  web.get(DELETED_PATH, async (_request, reply) =>
    show(
      reply,
      'Your account is deleted',
      null,
      html`<div class="card"><h1>Your account is deleted</h1>
<p>Your record, your connections to AI clients, your bot tokens and your e-mail address are gone from RepLedger. AI clients and bots you had connected can no longer read anything.</p>
<p>If you downloaded your record, keep the file: it can be brought into a new RepLedger account. You can <a href="/sign-up">create an account</a> again with the same e-mail address.</p></div>`,
    ),
  );
}

function page(email: string, csrf: string, error: string | null): Html {
  return html`<h1>Delete your account</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<section class="card" aria-labelledby="first-title"><h2 id="first-title">First, keep a copy</h2>
<p>Deleting cannot be undone. Download your record first if you may want it later, or want to move it to another RepLedger account.</p>
<p><a class="button secondary" href="${EXPORT_PATH}" download>Download my record</a></p></section>
<section class="card" aria-labelledby="what-title"><h2 id="what-title">What is deleted</h2>
<ul>
<li>Your whole record: workouts, routines, goals, check-ins, meals and measurements.</li>
<li>Changes AI clients proposed, waiting or saved, and their receipts.</li>
<li>Your connections to AI clients (they are signed out and can read nothing more) and your bot tokens.</li>
<li>Your sign-in on every device, your settings, and your e-mail address <strong>${email}</strong>, which can be used to sign up again.</li>
</ul>
<p class="hint">RepLedger keeps only a count of how many accounts were deleted, with nothing that says whose.</p></section>
<section class="card" aria-labelledby="confirm-title"><h2 id="confirm-title">Delete it</h2>
<form method="post" action="${DELETE_ACCOUNT_PATH}">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="password">Your password</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
<label class="confirm"><input type="checkbox" name="understood" value="yes" required> <span>I understand that my account and my record are deleted for good</span></label>
<button type="submit" class="danger">Delete my account</button>
</form></section>
<p><a href="/settings">Back to settings</a></p>`;
}
