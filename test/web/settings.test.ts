// Settings: name, timezone and units saved as a profile event; a new timezone moves local dates
// (and Home keeps agreeing with Agent Access); a zone outside the IANA list is refused and
// nothing is saved; the plan says what Pro gives.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { FormClient, startServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';

const form = (csrf: string, overrides: Record<string, string> = {}) => ({
  _csrf: csrf,
  display_name: 'Ada L.',
  timezone: 'Europe/London',
  unit_preference: 'kg',
  height_unit_preference: 'cm',
  bodyweight_unit_preference: 'kg',
  ...overrides,
});

test('a change of name, timezone and units is one profile event; the timezone moves local dates', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-10T10:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const workoutId = randomUUID();
    // 05:30 UTC on Monday 8 June: Monday in London, Sunday 7 June in Los Angeles (last week).
    await s.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'workout',
          item: {
            id: workoutId,
            title: 'Early lift',
            started_at: '2026-06-08T05:30:00.000Z',
            ended_at: '2026-06-08T06:30:00.000Z',
            notes: null,
            source: null,
            exercises: [],
          },
        },
      ],
      { type: 'athlete', id: athleteId },
    );
    const ada = await signedInClient(s.base, 'ada@example.com');
    const token = (await connect(s.base, `${s.base}/v1/agent-access`, ['training'])).tokens.access_token;
    const snapshot = async () => {
      const res = await fetch(`${s.base}/v1/agent-access/training/snapshot`, { headers: { authorization: `Bearer ${token}` } });
      return agentAccessResponses.get_training_snapshot.parse(await res.json()).data.summary;
    };
    const homeNumbers = async () => [...(await ada.get('/account')).text.matchAll(/<span class="value">(\d+)<\/span>/g)].map((m) => Number(m[1]));

    assert.match((await ada.get(`/workouts/${workoutId}`)).text, 'Mon, 8 Jun 2026');
    assert.equal(await homeNumbers(), [1, 1, 1]);

    const page = await ada.get('/settings');
    assert.match(page.text, 'Your plan: Pro');
    const saved = await ada.post(
      '/settings',
      form(FormClient.csrf(page.text), {
        timezone: 'America/Los_Angeles',
        unit_preference: 'lbs',
        bodyweight_unit_preference: 'stone',
        height_unit_preference: 'ft_in',
      }),
    );
    assert.is(saved.status, 303);
    assert.is(saved.headers.get('location'), '/settings?saved=1');
    const events = await s.app.events.readStream(`athlete-${athleteId}`);
    assert.equal(events.at(-1)!.type, 'athlete.profile_updated');
    assert.equal(events.at(-1)!.data, {
      athlete_id: athleteId,
      profile: {
        display_name: 'Ada L.',
        timezone: 'America/Los_Angeles',
        unit_preference: 'lbs',
        height_unit_preference: 'ft_in',
        bodyweight_unit_preference: 'stone',
      },
    });
    assert.match((await ada.get('/settings?saved=1')).text, 'Saved.');
    assert.match((await ada.get(`/workouts/${workoutId}`)).text, 'Sun, 7 Jun 2026');
    const summary = await snapshot();
    assert.equal(await homeNumbers(), [summary.workouts_this_week.value, summary.workouts_last_30_days.value, summary.consecutive_active_weeks.value]);
    assert.equal(await homeNumbers(), [0, 1, 1], 'the workout moved to last week');
    // Saving the same again writes nothing.
    await ada.post(
      '/settings',
      form(FormClient.csrf(page.text), {
        timezone: 'America/Los_Angeles',
        unit_preference: 'lbs',
        bodyweight_unit_preference: 'stone',
        height_unit_preference: 'ft_in',
      }),
    );
    assert.is((await s.app.events.readStream(`athlete-${athleteId}`)).length, events.length);
  } finally {
    await s.close();
  }
});

test('a timezone outside the list, an older name, an empty name or an unknown unit: refused, nothing saved', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app, 'ada@example.com', 'free');
    const ada = await signedInClient(s.base, 'ada@example.com');
    const page = await ada.get('/settings');
    assert.match(page.text, 'Your plan: Free');
    // What Pro gives, as the product is: reading what is ticked, suggestions only if allowed, and approved here.
    assert.match(page.text, 'Pro lets AI clients you connect');
    assert.match(page.text, 'if you also allow it, suggest changes: nothing in your record changes until you approve them here.');
    const csrf = FormClient.csrf(page.text);
    const before = (await s.app.events.readStream(`athlete-${athleteId}`)).length;
    for (const [overrides, message] of [
      [{ timezone: 'Mars/Olympus' }, 'Timezone: choose one from the list'],
      [{ timezone: 'Europe/Kiev' }, 'Timezone: choose one from the list'],
      [{ timezone: 'europe/london' }, 'Timezone: choose one from the list'],
      [{ display_name: '   ' }, 'Name: this field is required'],
      [{ unit_preference: 'grams' }, 'Weights lifted in: choose kilograms or pounds'],
      [{ bodyweight_unit_preference: 'st' }, 'Bodyweight in: choose'],
    ] as const) {
      const res = await ada.post('/settings', form(csrf, overrides));
      assert.is(res.status, 400, JSON.stringify(overrides));
      assert.match(res.text, message);
    }
    // A field sent twice is refused the same way, never a 500.
    assert.is((await ada.post('/settings', { ...form(csrf), timezone: ['UTC', 'Europe/Paris'] })).status, 400);
    assert.is((await s.app.events.readStream(`athlete-${athleteId}`)).length, before);
    // Without the session's token nothing changes.
    assert.is((await new FormClient(s.base).post('/settings', form(csrf, { display_name: 'Mallory' }))).status, 403);
    assert.is((await s.app.athletes.get(athleteId))!.profile.display_name, 'Ada');
  } finally {
    await s.close();
  }
});

test.run();
