// A connection's activity, for the athlete: what the app read over the last 90 days (each kind of
// read in words, how often, how many items, when last), day by day in the athlete's timezone, and
// what it suggested and what came of it. Spec 1.10: a client cannot be made to forget what it
// read, so the athlete should at least see what that was.
import type { FastifyInstance } from 'fastify';
import type { AgentAccessOperation } from '../../contracts/agent-access.ts';
import { READ_SCOPE_AREAS, type ReadScope } from '../../contracts/common.ts';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../../contracts/write.ts';
import type { ConnectionHistory } from '../operations/access-history.ts';
import type { Services } from '../api/services.ts';
import { connectionName } from '../identity/connections.ts';
import type { OperationTotal } from '../domain/access-history.ts';
import { html, type Html } from './html.ts';
import { ownConnection } from './connections.ts';
import type { Show } from './layout.ts';
import { STATUS_WORDS } from './proposals.ts';

/** Each read in words; lists name what their items are, single-item reads count calls only. */
const READS: Record<Exclude<AgentAccessOperation, 'prepare_write_proposal'>, { does: string; items?: [string, string] }> = {
  get_access_context: { does: 'Checked what it may read' },
  get_training_snapshot: { does: 'Read your training summary (this week, the last 30 days, your streak)' },
  list_completed_workouts: { does: 'Listed your completed workouts', items: ['workout', 'workouts'] },
  get_completed_workout: { does: 'Opened a completed workout with its exercises and sets' },
  get_exercise_history: { does: "Read an exercise's history", items: ['entry', 'entries'] },
  list_exercises: { does: 'Listed your exercises', items: ['exercise', 'exercises'] },
  get_personal_records: { does: 'Read your personal records', items: ['exercise', 'exercises'] },
  list_saved_routines: { does: 'Listed your saved routines', items: ['routine', 'routines'] },
  get_saved_routine: { does: 'Opened a saved routine' },
  list_recovery_checkins: { does: 'Listed your recovery check-ins', items: ['check-in', 'check-ins'] },
  list_meals: { does: 'Listed your meals', items: ['meal', 'meals'] },
  list_daily_nutrition: { does: 'Listed your daily nutrition totals', items: ['day', 'days'] },
  list_body_measurements: { does: 'Listed your body measurements', items: ['measurement', 'measurements'] },
  get_write_context: { does: 'Checked what it may suggest' },
  get_write_record: { does: 'Read an item of your record to suggest a change to it' },
  get_write_proposal: { does: 'Checked on one of its suggestions' },
};

/** Outcomes in a sentence ("3 saved, 1 rejected"). */
const OUTCOMES: Record<ProposalStatus, string> = {
  prepared: 'waiting for your review',
  committed: 'saved',
  rejected: 'rejected',
  expired: 'expired',
  conflicted: 'not saved because your record had changed',
  undone: 'undone',
};

/** What changed the record under a batch that was not saved, as its line says it. */
const CHANGED_BY = {
  athlete: 'you had changed it yourself',
  import: 'an import had changed it',
  operator: 'whoever runs this RepLedger had changed it',
  proposal: 'another batch had changed it',
} as const;

const plural = (n: number, [one, many]: [string, string]) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

function describe(total: OperationTotal): { does: string; counts: string } {
  const words = READS[total.operation as keyof typeof READS] ?? { does: `Used ${total.operation}` };
  const times = total.calls === 1 ? 'once' : `${total.calls.toLocaleString('en-GB')} times`;
  return { does: words.does, counts: words.items ? `${times}, ${plural(total.items, words.items)}` : times };
}

/** The area a read belongs to, as a hint; reads of no area (what the connection may do) have none. */
function area(scope: string | null): Html {
  return scope ? html`<span class="hint">${READ_SCOPE_AREAS[scope as ReadScope].title}</span>` : html``;
}

/** "26 Nov 2026 at 14:02" in the athlete's zone. */
function at(iso: string, timeZone: string): string {
  return `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone }).format(new Date(iso))} at ${timeOfDay(iso, timeZone)}`;
}

function timeOfDay(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeStyle: 'short', timeZone }).format(new Date(iso));
}

/** A local date (YYYY-MM-DD) as a heading: "Thursday 26 November 2026". */
function dayTitle(date: string): string {
  return new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

function readsCard(h: ConnectionHistory, name: string, tz: string): Html {
  if (h.reads.operations.length === 0)
    return html`<div class="card"><h2>What it read</h2><p>${name} has not read anything from your record in the last ${h.days} days.</p></div>`;
  return html`<div class="card"><h2>What it read</h2>
<ul class="plain activity">${h.reads.operations.map((t) => {
    const d = describe(t);
    return html`<li><strong>${d.does}</strong> — ${d.counts}, last on ${at(t.last_at, tz)}${area(t.scope)}</li>`;
  })}</ul></div>`;
}

function daysCard(h: ConnectionHistory, tz: string): Html {
  if (h.reads.days.length === 0) return html``;
  const dates = [...new Set(h.reads.days.map((d) => d.date))];
  return html`<div class="card"><h2>Day by day</h2>
${dates.map(
  (date) =>
    html`<section class="day"><h3>${dayTitle(date)}</h3><ul class="plain activity">${h.reads.days
      .filter((d) => d.date === date)
      .map((t) => {
        const d = describe(t);
        return html`<li>${d.does} — ${d.counts}, last at ${timeOfDay(t.last_at, tz)}</li>`;
      })}</ul></section>`,
)}</div>`;
}

function proposalsCard(h: ConnectionHistory, name: string, tz: string): Html {
  const p = h.proposals;
  if (p.total === 0) return html`<div class="card"><h2>What it suggested</h2><p>${name} has not suggested any changes in the last ${h.days} days.</p></div>`;
  const outcomes = PROPOSAL_STATUSES.filter((s) => p.counts[s] > 0).map((s) => `${p.counts[s]} ${OUTCOMES[s]}`);
  return html`<div class="card"><h2>What it suggested</h2>
<p>${p.total === 1 ? '1 suggestion' : `${p.total} suggestions`}: ${outcomes.join(', ')}.</p>
<h3>Latest</h3>
<ul class="plain activity">${p.latest.map(
    (l) =>
      html`<li><a href="/proposals/${l.command_id}">${l.changes === 1 ? '1 change' : `${l.changes} changes`}, suggested on ${at(l.prepared_at, tz)}</a><span class="hint">${STATUS_WORDS[l.status]}${l.changed_by ? ` (${CHANGED_BY[l.changed_by]})` : ''}${l.decided_at ? ` · ${at(l.decided_at, tz)}` : ''}</span></li>`,
  )}</ul></div>`;
}

export function registerConnectionActivity(web: FastifyInstance, app: Services, show: Show): void {
  web.get('/connections/:grantId/activity', async (request, reply) => {
    const found = await ownConnection(app, request, reply, show, 'activity');
    if (!found) return reply;
    const { session, athlete, connection } = found;
    const tz = athlete.profile.timezone;
    const history = await app.access.connection(athlete.athlete_id, connection.id, tz);
    const name = connectionName(connection);
    return show(
      reply,
      `What ${name} did`,
      session,
      html`<p><a href="/connections">← Connected apps</a></p>
<h1>What ${name} did</h1>
<p class="meta">The last ${history.days} days, times in ${tz}. ${connection.status === 'connected' ? 'Counts can be a few seconds behind.' : 'It is disconnected and can no longer read your record.'}</p>
${readsCard(history, name, tz)}
${daysCard(history, tz)}
${proposalsCard(history, name, tz)}`,
    );
  });
}
