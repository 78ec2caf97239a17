// The athlete's fitness preferences and equipment setups: what an AI client may propose to change,
// shown as the athlete set them, with the forms to set them here too.
import type { FastifyInstance } from 'fastify';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import type { Services } from '../api/services.ts';
import { RECORD_FIELDS, valueText } from '../words/record-fields.ts';
import { html } from './html.ts';
import type { Show } from './layout.ts';
import { addButton, changeLink, editPath, lastChangeOn } from './record-links.ts';
import { signedInAthlete, trainingNav } from './record-pages.ts';

/** Equipment setups listed; an athlete has a handful. */
const SETUPS_SHOWN = 100;

export function registerPreferencesPage(web: FastifyInstance, app: Services, show: Show): void {
  web.get('/preferences', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const athleteId = who.athlete.athlete_id;
    const [preferences, setups] = await Promise.all([
      app.reads.get<ItemDoc & RecordItem<'fitness_preferences'>>(ITEM_COLLECTIONS.fitness_preferences, athleteId, athleteId),
      app.reads.page<ItemDoc & RecordItem<'equipment_setup'>>(ITEM_COLLECTIONS.equipment_setup, {
        partition: athleteId,
        index: 'by_name',
        direction: 'asc',
        limit: SETUPS_SHOWN,
      }),
    ]);
    const ctx = { profile: who.athlete.profile, exerciseName: () => null };
    const rows = RECORD_FIELDS.fitness_preferences;
    const shown = (field: keyof typeof rows) => {
      const value = preferences?.[field];
      if (Array.isArray(value)) return value.length ? value.join(', ') : '—';
      return valueText(rows[field].format, value, preferences ?? {}, ctx);
    };
    return show(
      reply,
      'Training preferences',
      who.session,
      html`${trainingNav('/preferences')}<h1>Training preferences</h1>
${await lastChangeOn(app, who.athlete, ['fitness_preferences', 'equipment_setup'])}
<section class="card" aria-labelledby="preferences-title"><h2 id="preferences-title">Fitness preferences</h2>
${
  preferences
    ? html`<dl class="fields">${(Object.keys(rows) as Array<keyof typeof rows>).map((f) => html`<dt>${rows[f].label}</dt><dd>${shown(f)}</dd>`)}</dl>
<p><a href="${editPath('fitness_preferences', athleteId)}">Change your fitness preferences</a></p>`
    : html`<p>Not set yet. They tell an AI app you connect how you like to train.</p>${addButton('fitness_preferences', 'Set your fitness preferences')}`
}</section>
<section class="card" aria-labelledby="setups-title"><h2 id="setups-title">Equipment setups</h2>
${
  setups.length
    ? html`<ul class="plain">${setups.map(
        (e) =>
          html`<li><strong>${e.name}</strong><br><span class="meta">${e.equipment.length ? e.equipment.join(', ') : 'No equipment listed'}</span><br>${changeLink('equipment_setup', e.id, `the equipment setup “${e.name}”`)}</li>`,
      )}</ul>`
    : html`<p>None yet: the equipment you have at home, at the gym or when travelling.</p>`
}
${addButton('equipment_setup', 'Add an equipment setup')}</section>`,
    );
  });
}
