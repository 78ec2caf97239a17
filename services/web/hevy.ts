// Settings > Hevy (issue 41): the athlete pastes their Hevy API key (Hevy Pro); RepLedger checks it
// with Hevy, keeps it encrypted and never shows it again. Then the page shows the last sync, its
// result or error, where the next one reads from and when it runs, and offers Sync now, Pause or
// Resume, and Disconnect (the key is deleted). Every form is a POST with the session's CSRF token;
// each answers with a redirect to the page (post/redirect/get), so a reload sends nothing again.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { HevySyncError, type HevySyncStatus } from '../sync/hevy-sync.ts';
import { count, dateTime } from '../words/units.ts';
import { readForm, requiredText } from './forms.ts';
import { html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { signedInAthlete } from './record-pages.ts';

export const HEVY_PATH = '/settings/hevy';

const connectFields = z.object({ api_key: requiredText('API key', 200) });

/** What a redirect back to the page says happened (display only). */
const NOTICES = {
  connected: 'Hevy is connected. The first sync has started: your workouts come over in the background.',
  started: 'The sync has started. Reload this page to see how far it has got.',
  paused: 'The Hevy sync is paused. Nothing is synced until you resume it.',
  resumed: 'The Hevy sync is resumed.',
  disconnected: 'Hevy is disconnected and your API key is deleted. The workouts already synced stay in your record.',
} as const;
type Notice = keyof typeof NOTICES;

export function registerHevy(web: FastifyInstance, app: Services, show: Show): void {
  const render = async (athlete: AthleteState, csrf: string, message: { notice?: Notice; error?: string }) =>
    page(athlete, await app.hevy.status(athlete.athlete_id), csrf, message, app.config.hevy.everyMs);

  web.get(HEVY_PATH, async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const done = (request.query as Record<string, unknown>).done;
    const notice = typeof done === 'string' && done in NOTICES ? (done as Notice) : undefined;
    return show(reply, 'Hevy', who.session, await render(who.athlete, who.session.csrf, { notice }));
  });

  /** A POST of the page: signed in, else to sign in; a refusal shows the page again with it. */
  const action = (path: string, work: (athlete: AthleteState, body: unknown) => Promise<Notice>) =>
    web.post(`${HEVY_PATH}/${path}`, async (request, reply) => {
      const session = request.session;
      const athlete = session ? await app.athletes.get(session.athlete_id) : null;
      if (!session || !athlete) return reply.redirect('/sign-in', 303);
      try {
        return reply.redirect(`${HEVY_PATH}?done=${await work(athlete, request.body)}`, 303);
      } catch (error) {
        if (!(error instanceof HevySyncError) && !(error instanceof DomainError)) throw error;
        return show(reply, 'Hevy', session, await render(athlete, session.csrf, { error: refusalWords(error) }), 400);
      }
    });

  const actor = (athlete: AthleteState) => ({ type: 'athlete' as const, id: athlete.athlete_id });
  // Started, not waited for: the page shows the progress, and the result or error when it ends.
  const start = async (athleteId: string) => {
    const { done } = await app.hevy.begin(athleteId);
    done.catch(() => undefined);
  };

  action('connect', async (athlete, body) => {
    const form = readForm(connectFields, body);
    if (!form.ok) throw new DomainError('invalid_input', form.message);
    await app.hevy.connect(athlete.athlete_id, form.data.api_key, actor(athlete));
    await start(athlete.athlete_id).catch(() => undefined);
    return 'connected';
  });
  action('run', async (athlete) => {
    await start(athlete.athlete_id);
    return 'started';
  });
  action('pause', async (athlete) => {
    await app.hevy.setPaused(athlete.athlete_id, true, actor(athlete));
    return 'paused';
  });
  action('resume', async (athlete) => {
    await app.hevy.setPaused(athlete.athlete_id, false, actor(athlete));
    return 'resumed';
  });
  action('disconnect', async (athlete) => {
    await app.hevy.disconnect(athlete.athlete_id, actor(athlete));
    return 'disconnected';
  });
}

function refusalWords(error: HevySyncError | DomainError): string {
  if (error instanceof DomainError) return error.message;
  switch (error.code) {
    case 'key_rejected':
      return 'Hevy did not accept this API key. Copy it again from Hevy (Settings > Developer); the API needs Hevy Pro.';
    case 'hevy_unavailable':
      return `Hevy is not answering just now, so nothing was changed. Try again in a few minutes. (${error.message})`;
    case 'running':
      return 'A sync is running already. Reload this page to see how far it has got.';
    case 'paused':
      return 'The sync is paused: resume it first.';
    case 'not_connected':
      return 'Hevy is not connected.';
    default:
      return error.message;
  }
}

function page(athlete: AthleteState, s: HevySyncStatus, csrf: string, message: { notice?: Notice; error?: string }, everyMs: number): Html {
  const tz = athlete.profile.timezone;
  const when = (instant: string) => dateTime(instant, tz);
  const form = (path: string, label: string, kind = '') =>
    html`<form method="post" action="${HEVY_PATH}/${path}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit"${kind ? html` class="${kind}"` : ''}>${label}</button></form>`;
  const banner = message.error
    ? html`<p class="error" role="alert">${message.error}</p>`
    : message.notice
      ? html`<p class="notice" role="status">${NOTICES[message.notice]}</p>`
      : '';
  if (!s.connected) {
    return html`<h1>Hevy</h1>
${banner}
<section class="card" aria-labelledby="connect-title"><h2 id="connect-title">Connect your Hevy account</h2>
<p>RepLedger brings your Hevy workouts over ${everyMs > 0 ? `by itself, every ${count(Math.round(everyMs / 60_000), 'minute')}, and ` : ''}when you ask: new workouts, and changes and deletions you make in Hevy. A workout you imported from a Hevy export before is recognised, not added twice.</p>
<p>You need Hevy Pro. In Hevy, open <strong>Settings &gt; Developer</strong>, create an API key, and paste it here. RepLedger checks it with Hevy and keeps it encrypted; it is never shown again.</p>
<form method="post" action="${HEVY_PATH}/connect"><input type="hidden" name="_csrf" value="${csrf}">
<label for="api_key">Hevy API key</label>
<input type="password" id="api_key" name="api_key" required maxlength="200" autocomplete="off" spellcheck="false">
<button type="submit">Connect Hevy</button>
</form>
${s.position ? html`<p class="hint">You were connected before: a new connection goes on from the last sync (${when(s.position)}).</p>` : ''}</section>
<p><a href="/settings">Back to settings</a></p>`;
  }
  const run = s.last_run;
  const result = run?.summary;
  return html`<h1>Hevy</h1>
${banner}
<section class="card" aria-labelledby="state-title"><h2 id="state-title">Connected${s.hevy_user_name ? html` as ${s.hevy_user_name}` : ''}${s.paused ? ' (paused)' : ''}</h2>
<p>Since ${when(s.connected_at!)}. Your API key is kept encrypted and is not shown again.</p>
<dl class="fields">
<dt>Last sync</dt><dd>${
    run
      ? run.state === 'running'
        ? html`running since ${when(run.started_at)}${run.progress ? html`: page ${run.progress.page} of ${run.progress.page_count} of Hevy's changes` : ''}`
        : html`${run.state === 'ok' ? 'finished' : 'failed'} ${when(run.finished_at ?? run.started_at)}`
      : 'none yet'
  }</dd>
${
  result
    ? html`<dt>Result</dt><dd>${count(result.workouts_created, 'workout')} added, ${result.workouts_updated} updated, ${result.workouts_deleted} deleted, ${count(result.exercises_added, 'new exercise')}${
        result.skipped_count ? html`; ${count(result.skipped_count, 'workout')} left out` : ''
      }</dd>${result.skipped.length ? html`<dd><ul>${result.skipped.map((x) => html`<li>Hevy workout ${x.hevy_id}: ${x.reason}</li>`)}</ul></dd>` : ''}`
    : ''
}
${run?.error ? html`<dt>Error</dt><dd class="error" role="alert">${errorWords(run.error.code, run.error.message)}</dd>` : ''}
<dt>Next sync</dt><dd>${s.next_run_at ? when(s.next_run_at) : s.paused ? 'none while paused' : 'only when you ask'}</dd>
<dt>Next reads</dt><dd>${s.position ? html`Hevy's changes since ${when(s.position)}` : 'all of your Hevy history'}</dd>
</dl>
<div class="actions">
${s.paused ? form('resume', 'Resume') : html`${form('run', 'Sync now')} ${form('pause', 'Pause', 'secondary')}`}
</div></section>
${history(s, when)}
<section class="card" aria-labelledby="disconnect-title"><h2 id="disconnect-title">Disconnect</h2>
<p>Deletes your API key from RepLedger and stops syncing. The workouts already synced stay in your record.</p>
${form('disconnect', 'Disconnect Hevy', 'danger')}</section>
<p><a href="/settings">Back to settings</a></p>`;
}

/** The latest syncs that changed the record: each is one change to it, by the Hevy sync. */
function history(s: HevySyncStatus, when: (instant: string) => string): Html | '' {
  if (s.history.length === 0) return '';
  return html`<section class="card" aria-labelledby="history-title"><h2 id="history-title">Recent syncs</h2>
<p class="hint">Each sync that changed your record is one change to it, made by the Hevy sync.</p>
<table class="diff"><thead><tr><th scope="col">When</th><th scope="col">Added</th><th scope="col">Updated</th><th scope="col">Deleted</th><th scope="col">Left out</th></tr></thead>
<tbody>${s.history.map(
    (h) =>
      html`<tr><td>${when(h.at)}</td><td>${h.summary.workouts_created}</td><td>${h.summary.workouts_updated}</td><td>${h.summary.workouts_deleted}</td><td>${h.summary.skipped_count}</td></tr>`,
  )}</tbody></table></section>`;
}

function errorWords(code: string, message: string): string {
  if (code === 'key_rejected') return 'Hevy refused your API key: it was revoked, or Hevy Pro ended. Disconnect, then connect again with a new key.';
  if (code === 'key_unreadable') return 'Your saved API key can no longer be read. Disconnect, then connect again.';
  if (code === 'hevy_unavailable') return `Hevy was not answering; the sync tries again by itself. (${message})`;
  return message;
}
