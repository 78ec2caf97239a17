// Settings: the athlete's name, timezone and units (saved as an athlete.profile_updated event,
// which the projections follow: a new timezone re-buckets every local date), the way to the
// password change, and the plan with what Pro gives.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { timeZoneChoices } from '../../contracts/common.ts';
import type { Profile } from '../../contracts/record.ts';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { DELETE_ACCOUNT_PATH } from './delete-account.ts';
import { EXPORT_PATH } from './export.ts';
import { HEVY_PATH } from './hevy.ts';
import { readForm, requiredText } from './forms.ts';
import { PRO_GIVES } from './home.ts';
import { html, type Html } from './html.ts';
import type { Show } from './layout.ts';
import { signedInAthlete } from './record-pages.ts';

const TIME_ZONES = timeZoneChoices();
const ZONE_NAMES = new Set(TIME_ZONES.map((z) => z.name));

const fields = z.object({
  display_name: requiredText('Name', 100),
  timezone: requiredText('Timezone', 100).refine((tz) => ZONE_NAMES.has(tz), 'Timezone: choose one from the list'),
  unit_preference: z.enum(['kg', 'lbs'], { error: 'Weights lifted in: choose kilograms or pounds' }),
  height_unit_preference: z.enum(['cm', 'ft_in'], { error: 'Heights and lengths in: choose centimetres or feet and inches' }),
  bodyweight_unit_preference: z.enum(['kg', 'lbs', 'stone'], { error: 'Bodyweight in: choose kilograms, pounds or stones' }),
});

export function registerSettings(web: FastifyInstance, app: Services, show: Show): void {
  web.get('/settings', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const saved = (request.query as Record<string, unknown>).saved !== undefined;
    return show(reply, 'Settings', who.session, settingsPage(who.athlete, who.athlete.profile, who.session.csrf, saved ? 'saved' : null));
  });

  web.post('/settings', async (request, reply) => {
    const session = request.session;
    const athlete = session ? await app.athletes.get(session.athlete_id) : null;
    if (!session || !athlete) return reply.redirect('/sign-in', 303);
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const shownAgain = { ...athlete.profile, ...Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string')) } as Profile;
    const form = readForm(fields, body);
    if (!form.ok) return show(reply, 'Settings', session, settingsPage(athlete, shownAgain, session.csrf, form.message), 400);
    const next: Profile = { ...form.data, display_name: form.data.display_name.trim() };
    try {
      await app.athletes.updateProfile(athlete.email, next, { type: 'athlete', id: athlete.athlete_id });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return show(reply, 'Settings', session, settingsPage(athlete, shownAgain, session.csrf, error.message), 400);
    }
    return reply.redirect('/settings?saved=1', 303);
  });
}

function options<T extends string>(name: string, current: string, choices: ReadonlyArray<[T, string]>): Html {
  return html`<select id="${name}" name="${name}">${choices.map(([value, label]) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`)}</select>`;
}

function settingsPage(athlete: AthleteState, p: Profile, csrf: string, message: 'saved' | string | null): Html {
  return html`<h1>Settings</h1>
${message === 'saved' ? html`<p class="notice" role="status">Saved. Your record is shown with these settings from now on.</p>` : message ? html`<p class="error" role="alert">${message}</p>` : ''}
<section class="card" aria-labelledby="profile-title"><h2 id="profile-title">You and your units</h2>
<form method="post" action="/settings"><input type="hidden" name="_csrf" value="${csrf}">
<label for="display_name">Name</label>
<input type="text" id="display_name" name="display_name" value="${p.display_name}" required maxlength="100" autocomplete="name">
<label for="timezone">Timezone</label>
<select id="timezone" name="timezone">${TIME_ZONES.map((z) => html`<option value="${z.name}"${z.name === p.timezone ? html` selected` : ''}>${z.name.replaceAll('_', ' ')}</option>`)}</select>
<p class="hint">Days and weeks in your record (this week, the streak, daily totals) follow this timezone. Changing it moves every workout, meal and measurement to its date there.</p>
<label for="unit_preference">Weights lifted in</label>
${options('unit_preference', p.unit_preference, [
  ['kg', 'kilograms (kg)'],
  ['lbs', 'pounds (lb)'],
])}
<label for="bodyweight_unit_preference">Bodyweight in</label>
${options('bodyweight_unit_preference', p.bodyweight_unit_preference, [
  ['kg', 'kilograms (kg)'],
  ['lbs', 'pounds (lb)'],
  ['stone', 'stones and pounds (st lb)'],
])}
<label for="height_unit_preference">Height and body lengths in</label>
${options('height_unit_preference', p.height_unit_preference, [
  ['cm', 'centimetres (cm)'],
  ['ft_in', 'feet and inches'],
])}
<p class="hint">Your record is kept in kilograms and metres; units change only how it is shown, and what AI clients are told you prefer.</p>
<button type="submit">Save settings</button>
</form></section>
<section class="card" aria-labelledby="security-title"><h2 id="security-title">Password</h2>
<p>Signed in as <strong>${athlete.email}</strong>.</p>
<p><a href="/account/password">Change your password</a> (it signs you out on every other device).</p></section>
<section class="card" id="plan" aria-labelledby="plan-title"><h2 id="plan-title">Your plan: ${athlete.tier === 'pro' ? 'Pro' : 'Free'}</h2>
<p>${PRO_GIVES}</p>
${
  athlete.tier === 'pro'
    ? html`<p>You are on Pro. Review or disconnect AI clients under <a href="/connections">Connected apps</a>.</p>`
    : html`<p>You are on Free: your record, import, export and bot tokens work as they are; AI clients cannot connect. To move to Pro, ask whoever runs this RepLedger (an operator runs <code>repledger subscriptions set</code>).</p>`
}
</section>
<section class="card" aria-labelledby="data-title"><h2 id="data-title">Your data</h2>
<p><a href="/import">Import your data</a>: workouts from Hevy or Strong (CSV), a Garmin watch or scale (FIT files), or the Health app on your iPhone.</p>
<p><a href="${HEVY_PATH}">Sync with Hevy</a>: with a Hevy Pro API key, your Hevy workouts, and your changes to them there, come over by themselves.</p>
<p><a href="${EXPORT_PATH}" download>Download my record</a>: every workout, routine, goal, check-in, meal and measurement, with these settings, in one JSON file (weights in kilograms, distances in metres), to keep or to move to a new RepLedger account.</p>
<p><a class="danger" href="${DELETE_ACCOUNT_PATH}">Delete my account</a>: your record and everything else of yours, for good. You can download your record first.</p></section>`;
}
