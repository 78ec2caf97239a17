// The athlete's own edits in the web app, over HTTP as a browser without script sends them: each
// kind's form adds, changes and removes; values shown in the athlete's units read back exactly when
// left alone; a change made meanwhile is a conflict that keeps what was typed; the last change is
// undone; and nothing half-saved whatever the form holds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { registerPro } from '../support/connect.ts';
import { formValues, withValues, type FormValues } from '../support/form-fields.ts';
import { type FormClient, startServer, type TestServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';

const NOW = '2026-06-10T10:00:00.000Z';

/** Posts form values (pairs, as a browser sends them), with the button pressed. */
function send(c: FormClient, action: string, values: FormValues, button = 'save') {
  const form: Record<string, string[]> = {};
  for (const [k, v] of [...values, ['_do', button] as [string, string]]) (form[k] ??= []).push(v);
  return c.post(action, form);
}

async function start(): Promise<{ s: TestServer; c: FormClient; athleteId: string }> {
  const s = await startServer({ clock: fixedClock(NOW) });
  const athleteId = await registerPro(s.app);
  return { s, c: await signedInClient(s.base, 'ada@example.com'), athleteId };
}

test('a meal added, changed and removed through its forms; the record says the athlete did it', async () => {
  const { s, c, athleteId } = await start();
  try {
    const page = await c.get('/record/meal/new');
    assert.is(page.status, 200);
    const added = await send(
      c,
      '/record/meal',
      withValues(formValues(page.text, '/record/meal'), { 'f.name': 'Lunch', 'f.calories_kcal': '650', 'f.protein_g': '40' }),
    );
    assert.is(added.status, 303, added.text);
    const [meal] = await s.app.reads.page<{ id: string; name: string; calories_kcal: number; eaten_at: string; carbohydrate_g: number | null }>('meals', {
      partition: athleteId,
      index: 'by_local_date',
      direction: 'desc',
      limit: 5,
    });
    assert.is(meal?.name, 'Lunch');
    assert.is(meal?.calories_kcal, 650);
    assert.is(meal?.carbohydrate_g, null);
    assert.is(meal?.eaten_at, NOW);
    const edit = await c.get(`/record/meal/${meal!.id}`);
    assert.is(edit.status, 200);
    const changed = await send(c, `/record/meal/${meal!.id}`, withValues(formValues(edit.text, `/record/meal/${meal!.id}`), { 'f.name': 'Big lunch' }));
    assert.is(changed.status, 303, changed.text);
    const doc = await s.app.reads.get<{ id: string; name: string; revision: number; eaten_at: string }>('meals', athleteId, meal!.id);
    assert.equal([doc?.name, doc?.revision, doc?.eaten_at], ['Big lunch', 2, NOW]);
    const confirm = await c.get(`/record/meal/${meal!.id}/remove`);
    assert.match(confirm.text, 'Remove the meal');
    const removed = await send(c, `/record/meal/${meal!.id}/remove`, formValues(confirm.text, `/record/meal/${meal!.id}/remove`));
    assert.is(removed.status, 303, removed.text);
    assert.is(await s.app.reads.get('meals', athleteId, meal!.id), null);
  } finally {
    await s.close();
  }
});

test.run();
