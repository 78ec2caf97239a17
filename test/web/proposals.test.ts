// The athlete's review end to end: an agent (MCP SDK client, real OAuth) prepares a batch; the
// athlete opens approval_url in Chromium, signs in, sees the changes, approves; the agent reads the
// receipt and the record shows the changes; the athlete undoes it and the record reads as before.
// Plus the refusals of the review's forms over HTTP.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atBothWidths } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, PASSWORD, registerPro } from '../support/connect.ts';
import { workoutSet } from '../support/sets.ts';
import { FormClient, startServer } from '../support/server.ts';
import { agentCaller, proposalBody, seedRecord, validBody, writer } from '../support/writes.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { envelopeOf, mcpClient } from '../mcp/support.ts';

const noBrowser = whyNoBrowser();

/** A read's data without what any new revision moves (revision, updated_at): undo writes new revisions. */
function bodies(data: unknown): unknown {
  return JSON.parse(JSON.stringify(data, (k, v) => (k === 'revision' || k === 'updated_at' || k === 'computed_at' ? undefined : v)));
}

if (noBrowser) {
  test.skip(`the review in Chromium (${noBrowser})`, () => {});
} else {
  test('an MCP agent prepares, the athlete approves in Chromium, the agent sees the receipt; the athlete undoes and the record reads as before', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      const seeded = await seedRecord(s.app, athleteId);
      const token = (await connect(s.base, `${s.base}/mcp`, ['training', 'recovery', 'nutrition'])).tokens.access_token;
      const grantId = (await s.app.connections.list(athleteId))[0]!.id;
      await s.app.connections.setWritePermissions(athleteId, grantId, ['training:write', 'training:delete', 'recovery:write', 'nutrition:delete'], {
        onlyRemove: false,
      });
      const client = await mcpClient(s.base, token);
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        // biome-ignore lint/suspicious/noExplicitAny: each read's data, asserted field by field
        envelopeOf(name as never, (await client.callTool({ name, arguments: args })) as CallToolResult).data as Record<string, any>;
      const reads = async () => ({
        workouts: bodies(await call('list_completed_workouts', { limit: 10 })),
        checkins: bodies(await call('list_recovery_checkins', { limit: 10 })),
        meals: bodies(await call('list_meals', { limit: 10 })),
      });
      const before = await reads();

      const body = proposalBody([
        { op: 'create', kind: 'exercise', ref: 'lm', record: { name: 'Landmine Press', muscle_group: 'shoulders', tracking_type: 'weight_reps' } },
        {
          op: 'create',
          kind: 'completed_workout',
          record: {
            title: 'Push <b>day</b>',
            started_at: new Date(Date.now() - 7_200_000).toISOString(),
            ended_at: new Date(Date.now() - 3_600_000).toISOString(),
            notes: null,
            exercises: [
              {
                exercise_id: { ref: 'lm' },
                exercise_order: 0,
                superset_id: null,
                notes: null,
                sets: [workoutSet(0, { weight_kg: 30, reps: 10 }), workoutSet(1, { weight_kg: 32.5, reps: 8 })],
              },
            ],
          },
        },
        {
          op: 'update',
          kind: 'recovery_checkin',
          id: seeded.checkinId,
          base_revision: 1,
          record: { date: seeded.checkinDate, sleep_quality: 3, energy: 5, soreness: 4, stress: 2 },
        },
        { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 },
      ]);
      const prepared = (await call('prepare_write_proposal', body)).proposal;
      assert.is(prepared.status, 'prepared');

      // The athlete follows the link: sign in first, then straight back to the proposal.
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(prepared.approval_url);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=4 changes from');
      const text = await page.textContent('main');
      assert.match(text!, 'Waiting for your review');
      assert.match(text!, '2 added, 1 changed, 1 removed (1 exercise, 1 workout, 1 recovery check-in, 1 meal)');
      assert.match((await page.textContent('#change-2'))!, /1\. Landmine Press \(new in this batch\).*30 kg.*10.*32\.5 kg.*8/s);
      assert.match(text!, 'Push <b>day</b>', 'record text is shown as text');
      assert.match(text!, /Energy\s*3 of 5\s*5 of 5/, 'an update shows what changes, now and after');
      assert.not.match(text!, /Sleep quality\s*3 of 5\s*3 of 5/);
      assert.match(text!, 'Will be removed');
      assert.match(text!, 'Oats');
      assert.equal(await atBothWidths(page, 'proposal-review'), []);

      // A batch with a removal asks to confirm it: the button alone does not approve.
      await page.click('text=Approve 4 changes, including 1 removal');
      assert.is(
        await page.$eval('input[name=confirm_removals]', (box) => (box as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
        true,
        'the browser holds the form until the box is ticked',
      );
      await page.check('input[name=confirm_removals]');
      await page.click('text=Approve 4 changes, including 1 removal');
      await page.waitForSelector('text=Receipt');
      assert.equal(await atBothWidths(page, 'proposal-committed'), []);

      const committed = (await call('get_write_proposal', { command_id: body.command_id })).proposal;
      assert.is(committed.status, 'committed');
      assert.equal(
        committed.receipt.changes.map((c: { op: string; kind: string }) => `${c.op} ${c.kind}`),
        ['create exercise', 'create completed_workout', 'update recovery_checkin', 'delete meal'],
      );
      const after = await reads();
      assert.match(JSON.stringify(after.workouts), 'Push <b>day</b>');
      assert.is((after.meals as { items: unknown[] }).items.length, 0);
      assert.not.equal(after.checkins, before.checkins);

      await page.click('text=Undo this batch…');
      await page.waitForSelector('text=Undo this batch?');
      const confirm = await page.textContent('main');
      assert.match(confirm!, /Remove the workout “Push <b>day<\/b>” of \w+, \d+ \w+ \d{4} \(added by this batch\)/);
      assert.match(confirm!, /Bring back the meal “Oats” of .* \(removed by this batch\)/);
      assert.match(confirm!, /Set the recovery check-in of .* back as it was/);
      assert.equal(await atBothWidths(page, 'proposal-undo-confirm'), []);
      await page.click('text=Yes, undo all of it');
      await page.waitForSelector('text=Your record is as it was before this batch');
      await screenshot(page, 'proposal-undone');
      assert.is((await call('get_write_proposal', { command_id: body.command_id })).proposal.status, 'undone');
      assert.equal(await reads(), before, 'every read is as before the batch (revisions aside: undo is new revisions)');

      await page.goto(`${s.base}/proposals`);
      assert.equal(await atBothWidths(page, 'proposals-list'), []);
      await client.close();
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test("the review forms: another athlete's proposal is a 404 page; a cross-site or token-less post is refused and saves nothing; signed out goes to sign-in and back", async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    await registerPro(s.app, 'bob@example.com');
    const seeded = await seedRecord(s.app, ada);
    const { api } = await writer(s, ada, ['nutrition'], ['nutrition:delete']);
    const body = validBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
    assert.is((await api.prepare(body)).status, 201);
    const path = `/proposals/${body.command_id}`;

    const visitor = new FormClient(s.base);
    const redirect = await visitor.get(path);
    assert.is(redirect.status, 303);
    assert.is(redirect.headers.get('location'), `/sign-in?return_to=${encodeURIComponent(path)}`);

    const bob = new FormClient(s.base);
    const signIn = await bob.get('/sign-in');
    await bob.post('/sign-in', { email: 'bob@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    const foreign = await bob.get(path);
    assert.is(foreign.status, 404);
    assert.match(foreign.text, 'No such proposal');
    const list = await bob.get('/proposals');
    assert.match(list.text, 'Nothing is waiting for you.');
    // Bob's own form token does not approve Ada's proposal either.
    assert.is((await bob.post(`${path}/approve`, { _csrf: FormClient.csrf(list.text) })).status, 404);

    const adaBrowser = new FormClient(s.base);
    const adaSignIn = await adaBrowser.get('/sign-in');
    await adaBrowser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(adaSignIn.text) });
    const review = await adaBrowser.get(path);
    assert.is(review.status, 200);
    const csrf = FormClient.csrf(review.text);
    assert.is((await adaBrowser.post(`${path}/approve`, {})).status, 403, 'no form token');
    assert.is((await adaBrowser.post(`${path}/approve`, { _csrf: csrf }, { origin: 'https://evil.example' })).status, 403, 'cross-site');
    assert.is((await adaBrowser.post(`${path}/approve`, { _csrf: csrf }, { 'sec-fetch-site': 'cross-site' })).status, 403, 'cross-site by fetch metadata');
    assert.is((await api.proposal(body.command_id)).body.data.proposal.status, 'prepared', 'nothing was decided');
    assert.is((await adaBrowser.post(`${path}/reject`, { _csrf: csrf })).status, 303);
    assert.is((await api.proposal(body.command_id)).body.data.proposal.status, 'rejected');
    // Nothing was saved, so there are no earlier values to speak of: the page says what was proposed.
    const rejected = (await adaBrowser.get(path)).text;
    assert.match(rejected, 'Proposed to remove it. Nothing was removed.');
    assert.not.match(rejected, 'no longer kept');
    const { api: editor } = await writer(s, ada, ['nutrition'], ['nutrition:write']);
    const edit = validBody([
      {
        op: 'update',
        kind: 'meal',
        id: seeded.mealId,
        base_revision: 1,
        record: {
          eaten_at: new Date(Date.now() - 3_600_000).toISOString(),
          name: 'Overnight oats',
          calories_kcal: 420,
          protein_g: 14,
          carbohydrate_g: 60,
          fat_g: 7,
        },
      },
    ]);
    assert.is((await editor.prepare(edit)).status, 201);
    const editPath = `/proposals/${edit.command_id}`;
    assert.is((await adaBrowser.post(`${editPath}/reject`, { _csrf: FormClient.csrf((await adaBrowser.get(editPath)).text) })).status, 303);
    const rejectedEdit = (await adaBrowser.get(editPath)).text;
    assert.match(rejectedEdit, 'Proposed values (nothing was changed):');
    assert.match(rejectedEdit, 'Overnight oats');
    assert.not.match(rejectedEdit, 'no longer kept');
    assert.is((await adaBrowser.get('/proposals/not-a-uuid')).status, 404);
  } finally {
    await s.close();
  }
});

test('after the app is disconnected and the plan lapses to Free, the athlete still approves, sees the history and undoes', async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const seeded = await seedRecord(s.app, ada);
    const { api, grantId } = await writer(s, ada, ['nutrition'], ['nutrition:delete']);
    const body = validBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
    assert.is((await api.prepare(body)).status, 201);
    await s.app.connections.disconnect(ada, grantId);
    await s.app.athletes.setTier('ada@example.com', 'free', { type: 'operator', id: 'test' });
    assert.is((await api.proposal(body.command_id)).status, 401, 'the app itself is cut off');

    const browser = new FormClient(s.base);
    const signIn = await browser.get('/sign-in');
    await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    const path = `/proposals/${body.command_id}`;
    const page = await browser.get(path);
    assert.is(page.status, 200);
    assert.is((await browser.post(`${path}/approve`, { _csrf: FormClient.csrf(page.text), confirm_removals: '1' })).status, 303);
    const saved = await browser.get(path);
    assert.match(saved.text, 'Receipt');
    assert.match((await browser.get('/proposals')).text, 'Saved');
    assert.is((await browser.post(`${path}/undo`, { _csrf: FormClient.csrf(saved.text) })).status, 303);
    assert.match((await browser.get(path)).text, 'Undone');
  } finally {
    await s.close();
  }
});

test("paused writes pause the athlete's moves too: approve and undo answer 503 with the retry time and save nothing; a removal must be confirmed, or nothing is saved", async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const seeded = await seedRecord(s.app, ada);
    const caller = await agentCaller(s.app, ada);
    const body = validBody([
      { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 },
      {
        op: 'update',
        kind: 'recovery_checkin',
        id: seeded.checkinId,
        base_revision: 1,
        record: { date: seeded.checkinDate, sleep_quality: 5, energy: 5, soreness: 5, stress: 5 },
      },
    ]);
    await s.app.proposals.prepare(caller, body);
    const path = `/proposals/${body.command_id}`;
    const browser = new FormClient(s.base);
    const signIn = await browser.get('/sign-in');
    await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    const csrf = FormClient.csrf((await browser.get(path)).text);
    const record = async () => ({
      meal: await s.app.proposals.record(ada, 'meal', { id: seeded.mealId }),
      checkin: await s.app.proposals.record(ada, 'recovery_checkin', { id: seeded.checkinId }),
    });
    const before = await record();

    const unconfirmed = await browser.post(`${path}/approve`, { _csrf: csrf });
    assert.is(unconfirmed.status, 400, 'a batch with a removal is not approved without its confirmation');
    assert.match(unconfirmed.text, 'This batch removes 1 record from your record. Tick the box that confirms it before approving; nothing was saved.');
    assert.is(
      (await browser.post(`${path}/approve`, { _csrf: csrf, confirm_removals: '2' })).status,
      400,
      'a confirmation of another number of removals is none',
    );
    assert.is((await s.app.proposals.review(ada, body.command_id))!.status, 'prepared');

    await s.app.maintenance.set('write', 120, 'operator:test');
    const paused = await browser.post(`${path}/approve`, { _csrf: csrf, confirm_removals: '1' });
    assert.is(paused.status, 503);
    assert.is(paused.headers.get('retry-after'), '120');
    assert.match(paused.text, 'paused changes to records for maintenance, so nothing was saved');
    assert.is((await browser.post(`${path}/reject`, { _csrf: csrf })).status, 503, 'rejecting appends to the record too');
    assert.is((await s.app.proposals.review(ada, body.command_id))!.status, 'prepared', 'nothing decided');
    assert.equal(await record(), before, 'nothing saved');

    await s.app.maintenance.set('write', null, 'operator:test');
    assert.is((await browser.post(`${path}/approve`, { _csrf: csrf, confirm_removals: '1' })).status, 303);
    assert.is((await s.app.proposals.review(ada, body.command_id))!.status, 'committed');
    const saved = await record();

    await s.app.maintenance.set('write', 60, 'operator:test');
    const undo = await browser.post(`${path}/undo`, { _csrf: csrf });
    assert.is(undo.status, 503);
    assert.is(undo.headers.get('retry-after'), '60');
    assert.is((await s.app.proposals.review(ada, body.command_id))!.status, 'committed', 'not undone');
    assert.equal(await record(), saved, 'nothing restored');
    await s.app.maintenance.set('write', null, 'operator:test');
    assert.is((await browser.post(`${path}/undo`, { _csrf: csrf })).status, 303);
    assert.equal(await record().then((r) => r.meal?.record), before.meal?.record, 'and once resumed, undo brings the meal back');
  } finally {
    await s.close();
  }
});

test('the history pages: 50 a page, newest first, an Older link to the rest and back', async () => {
  const clock = fixedClock('2026-06-01T12:00:00.000Z');
  const s = await startServer({ clock });
  try {
    const ada = await registerPro(s.app);
    // One connection may have 10 awaiting review at once (WRITE_POLICY): six prepare the 60.
    const callers = await Promise.all(Array.from({ length: 6 }, () => agentCaller(s.app, ada)));
    const meal = (name: string) => ({
      op: 'create',
      kind: 'meal',
      record: { eaten_at: '2026-06-01T10:00:00.000Z', name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
    });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      clock.advance(1_000);
      const body = validBody([meal(`Meal ${i}`)]);
      await s.app.proposals.prepare(callers[Math.floor(i / 10)]!, body);
      ids.push(body.command_id);
    }
    clock.advance(31 * 60_000);
    const browser = new FormClient(s.base);
    const signIn = await browser.get('/sign-in');
    await browser.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) });
    const first = (await browser.get('/proposals')).text;
    const linked = (page: string) => [...page.matchAll(/href="\/proposals\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    assert.equal(linked(first), ids.slice(10).reverse(), 'the newest 50');
    const older = /href="(\/proposals\?before=[^"]+)"/.exec(first)?.[1];
    assert.ok(older, 'an Older proposals link');
    const second = (await browser.get(older!.replaceAll('&amp;', '&'))).text;
    assert.equal(linked(second), ids.slice(0, 10).reverse(), 'the 10 before them');
    assert.match(second, 'href="/proposals">Newest proposals');
    assert.not.match(second, 'Older proposals');
    assert.is((await browser.get('/proposals?before=nonsense')).status, 200, 'a cursor that is not one is the first page');
  } finally {
    await s.close();
  }
});

test.run();
