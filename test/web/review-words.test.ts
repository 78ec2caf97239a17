// The review's sentences over HTTP, as the athlete and the agent read them: a removed workout's
// exercises by their names, an undo refused in words, the client's reason as its words (and
// refused when it is no text), and get_write_proposal's summaries in the athlete's units.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';
import { agentCaller, seedRecord, validBody, writer } from '../support/writes.ts';

const signedIn = (s: TestServer) => signedInClient(s.base, 'ada@example.com');

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
/** What a person reads of a page: its text, without markup or the ids kept in attributes. */
const text = (page: string) =>
  page
    .replace(/<details class="ids">[\s\S]*?<\/details>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&#39;', "'");

test('removing a workout names its exercises from the record as it is, on the review and on the undo page', async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const seeded = await seedRecord(s.app, ada);
    const body = validBody([{ op: 'delete', kind: 'completed_workout', id: seeded.workoutId, base_revision: 1 }]);
    await s.app.proposals.prepare(await agentCaller(s.app, ada), body);
    const browser = await signedIn(s);
    const path = `/proposals/${body.command_id}`;
    const review = await browser.get(path);
    assert.match(text(review.text), /Remove the workout “Leg day” of \w+, \d+ \w+ \d{4}/);
    assert.match(text(review.text), /1\.\s*Back Squat/, 'the exercise by its name');
    assert.not.match(review.text, 'not in your catalog');
    assert.match(review.text, 'class="card change change-delete"', 'styled as a removal');
    assert.is((await browser.post(`${path}/approve`, { _csrf: FormClient.csrf(review.text), confirm_removals: '1' })).status, 303);
    const undo = await browser.get(`${path}/undo`);
    assert.match(text(undo.text), /Bring back the workout “Leg day” of .* \(removed by this batch\)/);
    assert.match(text(undo.text), /1\.\s*Back Squat/);
    assert.not.match(undo.text, 'not in your catalog');
  } finally {
    await s.close();
  }
});

test('an undo that a later change blocks says which record in words, with no id, and saves nothing', async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const seeded = await seedRecord(s.app, ada);
    const checkin = (energy: number, revision: number) => ({
      op: 'update',
      kind: 'recovery_checkin',
      id: seeded.checkinId,
      base_revision: revision,
      record: { date: seeded.checkinDate, sleep_quality: 3, energy, soreness: 4, stress: 2 },
    });
    const first = validBody([checkin(4, 1)]);
    await s.app.proposals.prepare(await agentCaller(s.app, ada), first);
    await s.app.proposals.approve(ada, first.command_id);
    const second = validBody([checkin(5, 2)]);
    await s.app.proposals.prepare(await agentCaller(s.app, ada), second);
    await s.app.proposals.approve(ada, second.command_id);

    const browser = await signedIn(s);
    const path = `/proposals/${first.command_id}`;
    const refused = await browser.post(`${path}/undo`, { _csrf: FormClient.csrf((await browser.get(path)).text) });
    assert.is(refused.status, 409);
    const day = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${seeded.checkinDate}T00:00:00Z`),
    );
    assert.match(text(refused.text), `The recovery check-in of ${day} changed after this batch was saved, so nothing was undone.`);
    assert.not.match(text(refused.text), UUID, 'no raw id');
    assert.not.match(text(refused.text), 'checkin');
    assert.is((await s.app.proposals.review(ada, first.command_id))!.status, 'committed');
  } finally {
    await s.close();
  }
});

test("the client's reason: kept as its words, shown boxed on the page, returned by get_write_proposal; refused when it is not text or too long", async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const seeded = await seedRecord(s.app, ada);
    const { api } = await writer(s, ada, ['nutrition'], ['nutrition:delete']);
    const action = { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 };
    const proposal = (reason: unknown) => ({ version: 'agent-access-write.v1', command_id: randomUUID(), actions: [action], reason });

    const tooLong = await api.prepare(proposal('x'.repeat(501)));
    assert.is(tooLong.status, 400);
    assert.match(JSON.stringify(tooLong.body), 'reason');
    assert.match(tooLong.body.error.message, '500');
    assert.is((await api.prepare(proposal(' \u200b '))).status, 400, 'a reason of nothing visible is none');
    assert.is((await api.prepare(proposal(42))).status, 400);

    const reason = 'You logged this meal twice <b>yesterday</b>; this removes the copy.';
    const body = proposal(reason);
    const prepared = await api.prepare(body);
    assert.is(prepared.status, 201, JSON.stringify(prepared.body));
    assert.is(prepared.body.data.proposal.reason, reason);
    assert.is((await api.proposal(body.command_id)).body.data.proposal.reason, reason);
    const page = (await (await signedIn(s)).get(`/proposals/${body.command_id}`)).text;
    assert.match(
      page,
      `<blockquote class="written">You logged this meal twice &lt;b&gt;yesterday&lt;/b&gt;; this removes the copy.</blockquote>`,
      "as text, boxed as the client's words",
    );
    const without = proposal(undefined);
    assert.is((await api.prepare(without)).body.data.proposal.reason, null);
  } finally {
    await s.close();
  }
});

test("get_write_proposal's summaries are made when read, in the athlete's units: pounds for a pounds athlete, never a field name", async () => {
  const s = await startServer();
  try {
    const { athlete_id: sam } = await s.app.athletes.register(
      {
        email: 'sam@example.com',
        password: PASSWORD,
        tier: 'pro',
        profile: {
          display_name: 'Sam',
          timezone: 'America/New_York',
          unit_preference: 'lbs',
          height_unit_preference: 'ft_in',
          bodyweight_unit_preference: 'lbs',
        },
      },
      { type: 'operator', id: 'test' },
    );
    const measurement = randomUUID();
    await s.app.records.change(
      sam,
      [{ op: 'create', kind: 'body_measurement', item: { id: measurement, measured_at: '2026-11-20T12:00:00.000Z', metric: 'waist', value: 0.858 } }],
      { type: 'athlete', id: 'test' },
    );
    const { api } = await writer(s, sam, ['body_measurements'], ['body_measurements:write'], 'sam@example.com');
    const body = validBody([
      {
        op: 'update',
        kind: 'body_measurement',
        id: measurement,
        base_revision: 1,
        record: { measured_at: '2026-11-20T12:00:00.000Z', metric: 'waist', value: 0.84 },
      },
    ]);
    const prepared = await api.prepare(body);
    assert.is(prepared.status, 201, JSON.stringify(prepared.body));
    assert.is(prepared.body.data.proposal.changes[0].summary, 'Change the waist measured on Fri, 20 Nov 2026: value 33.8 in → 33.1 in');
    assert.is(
      (await api.proposal(body.command_id)).body.data.proposal.changes[0].summary,
      'Change the waist measured on Fri, 20 Nov 2026: value 33.8 in → 33.1 in',
    );
  } finally {
    await s.close();
  }
});

test.run();
