// Home (`/account`): this week, the last 30 days and the streak, from the same snapshot read as
// Agent Access's get_training_snapshot; the newest workouts; and how to connect an AI client.
import { lastChangeOn } from './record-links.ts';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../api/services.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { WORKOUTS, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import { getTrainingSnapshot } from '../reads/snapshot.ts';
import { COPY_SCRIPT, COUNTDOWN_SCRIPT, html, type Html } from './html.ts';
import { proposalLine } from './proposals.ts';
import type { Show } from './layout.ts';
import { ownerOf } from '../reads/owner.ts';
import { keysetPage } from './record-reads.ts';
import type { Sessions } from '../identity/sessions.ts';
import { count, duration, localDate } from '../words/units.ts';

const RECENT_WORKOUTS = 5;
/** Proposals Home lists of those waiting, soonest to expire first; the proposals page has them all. */
const WAITING_SHOWN = 5;

/** What the Pro plan gives, in the athlete's words; shown on Home and in Settings. */
export const PRO_GIVES =
  'Pro lets AI clients you connect (Claude, ChatGPT, VS Code and other MCP clients) read the areas of your record you tick and, if you also allow it, suggest changes: nothing in your record changes until you approve them here.';

export function registerHome(web: FastifyInstance, app: Services, sessions: Sessions, show: Show): void {
  web.get('/account', async (request, reply) => {
    const session = request.session;
    if (!session) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/account')}`);
    const athlete = await app.athletes.get(session.athlete_id);
    if (!athlete) {
      await sessions.end(reply, session);
      return reply.redirect('/sign-in');
    }
    const query = request.query as Record<string, unknown>;
    const now = app.clock.now();
    const waiting = request.waiting;
    const [snapshot, recent, shown] = await Promise.all([
      getTrainingSnapshot(app.reads, ownerOf(athlete), now),
      keysetPage<WorkoutSummaryDoc>(
        app.reads,
        WORKOUTS,
        { partition: athlete.athlete_id, index: 'by_local_date', keyOf: (w) => [w.local_date, w.ended_at, w.id], limit: RECENT_WORKOUTS },
        null,
      ),
      app.proposals.pending(athlete.athlete_id, waiting.slice(0, WAITING_SHOWN)),
    ]);
    const s = snapshot.summary;
    const streak = s.consecutive_active_weeks.value;
    const streakHint =
      streak === 0
        ? 'Train this week to start a streak of active weeks.'
        : s.streak_is_current.value
          ? `Your streak of active weeks (Monday to Sunday) is still going${s.workouts_this_week.value === 0 ? ': train this week to keep it' : ''}.`
          : 'Your last streak of active weeks has ended: train this week to start again.';
    return show(
      reply,
      'Home',
      session,
      html`${query.password_changed !== undefined ? html`<p class="notice" role="status">Your password was changed. Other devices were signed out.</p>` : ''}
<h1>Hello, ${athlete.profile.display_name}</h1>
<p class="meta">Signed in as ${athlete.email} · ${athlete.tier === 'pro' ? 'Pro plan' : 'Free plan'} · days and weeks in ${athlete.profile.timezone.replaceAll('_', ' ')} time</p>
<section aria-labelledby="stats-title"><h2 id="stats-title" class="visually-hidden">Your training</h2>
<div class="stats">
<div class="stat"><span class="value">${s.workouts_this_week.value}</span><span class="label">${s.workouts_this_week.value === 1 ? 'workout' : 'workouts'} this week (Monday to today)</span></div>
<div class="stat"><span class="value">${s.workouts_last_30_days.value}</span><span class="label">${s.workouts_last_30_days.value === 1 ? 'workout' : 'workouts'} in the last 30 days</span></div>
<div class="stat"><span class="value">${streak}</span><span class="label">${streak === 1 ? 'week' : 'weeks'} in a row with a workout</span></div>
</div><p class="hint">${streakHint}</p></section>
${await lastChangeOn(app, athlete)}
${
  waiting.length
    ? html`<section class="notice" aria-labelledby="waiting-title"><h2 id="waiting-title">${waiting.length === 1 ? '1 proposal waits' : `${waiting.length} proposals wait`} for your review</h2>
<ul class="plain proposals">${shown.map((p) => proposalLine(p, now, athlete.profile.timezone))}</ul>${waiting.length > shown.length ? html`<p><a href="/proposals">${waiting.length - shown.length} more waiting</a></p>` : ''}</section>`
    : ''
}
<section class="card" aria-labelledby="recent-title"><h2 id="recent-title">Recent workouts</h2>
${
  recent.docs.length
    ? html`<ul class="plain">${recent.docs.map((w) => workoutLine(w))}</ul><p><a href="/workouts">All workouts</a></p>`
    : html`<p>No workouts yet. <a href="/import">Import your history from Hevy or Strong</a>, or let an AI client you connect suggest workouts for you to approve.</p>`
}
</section>
${connectCard(app.config.baseUrl, athlete)}
<script>${COPY_SCRIPT}</script>${waiting.length ? html`<script>${COUNTDOWN_SCRIPT}</script>` : ''}`,
    );
  });
}

/** One workout in a list: its title (a link), local date, length and how much was done. */
export function workoutLine(w: WorkoutSummaryDoc): Html {
  const parts = [localDate(w.local_date), duration(w.duration.seconds), count(w.exercise_count, 'exercise'), count(w.achieved_set_count, 'set')].filter(
    (p): p is string => p !== null,
  );
  return html`<li><a href="/workouts/${w.id}"><strong>${w.title}</strong></a><br><span class="meta">${parts.join(' · ')}</span></li>`;
}

function connectCard(baseUrl: string, athlete: AthleteState): Html {
  const address = `${baseUrl}/mcp`;
  const local = /^http:\/\/(localhost|127\.|\[::1\])/.test(baseUrl);
  return html`<section class="card" aria-labelledby="connect-title"><h2 id="connect-title">Connect an AI client</h2>
<p>Give your AI client this address. It opens a RepLedger sign-in where you choose what it may read; it never sees your password.</p>
${athlete.tier === 'pro' ? '' : html`<p class="notice">Connecting needs the Pro plan. ${PRO_GIVES} See <a href="/settings#plan">your plan</a>.</p>`}
<label for="mcp-address">MCP server address</label>
<div class="copy"><input type="text" id="mcp-address" value="${address}" readonly><button type="button" class="secondary" data-copy="mcp-address" hidden>Copy address</button></div>
<p class="hint" id="mcp-address-status" role="status" aria-live="polite"></p>
${local ? html`<p class="hint">This RepLedger runs on your own computer: Claude and ChatGPT connect from their servers and need a public https address, so use VS Code or the MCP Inspector here, or serve RepLedger at a public address (BASE_URL).</p>` : ''}
<details class="client"><summary>Claude</summary><ol class="steps">
<li>In Claude, open Settings → Connectors and choose “Add custom connector”.</li>
<li>Name it RepLedger and paste the address above; add it, then choose Connect.</li>
<li>Sign in to RepLedger in the window that opens and tick the areas Claude may read.</li></ol></details>
<details class="client"><summary>ChatGPT</summary><ol class="steps">
<li>In ChatGPT, open Settings → Apps &amp; Connectors → Advanced settings and turn on developer mode.</li>
<li>Create a connector: name it RepLedger, paste the address above, choose OAuth sign-in.</li>
<li>Sign in to RepLedger when asked and tick the areas ChatGPT may read.</li></ol></details>
<details class="client"><summary>VS Code</summary><ol class="steps">
<li>Open the Command Palette and run “MCP: Add Server…”, then choose HTTP.</li>
<li>Paste the address above and name the server repledger.</li>
<li>Start the server; VS Code opens RepLedger's sign-in in your browser. Tick the areas it may read.</li></ol></details>
<details class="client"><summary>MCP Inspector</summary><ol class="steps">
<li>Run <code>npx @modelcontextprotocol/inspector</code> and open the page it prints.</li>
<li>Choose the Streamable HTTP transport and paste the address above.</li>
<li>Choose Connect (or “Open Auth Settings” → “Quick OAuth Flow”), sign in to RepLedger and tick the areas.</li></ol></details>
<p class="hint">Connected clients appear under <a href="/connections">Connected apps</a>, where you can disconnect them at any time.</p>
</section>`;
}
