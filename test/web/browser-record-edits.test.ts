// The athlete's own forms in Chromium, driven as a person drives them (links, buttons, typing; no
// posts made by the test): every kind added from its page, changed from its Change link and
// removed after its confirm page; a workout with a superset, a drop set and a new exercise; a
// conflict with a batch approved while the form was open; the last change undone; a long workout
// form on a phone. Each form and confirm page is axe-checked at 390 and 1280 px, nothing on it is
// wider than the screen, and screenshots are saved for a person to look at.
import { join } from 'node:path';
import type { Browser, Locator, Page, Response } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atBothWidths, WIDTHS } from '../support/axe.ts';
import { launch, screenshot, SCREENSHOTS, whyNoBrowser } from '../support/browser.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { agentCaller, validBody } from '../support/writes.ts';

const noBrowser = whyNoBrowser();
const TZ = 'Europe/London';
/** A day some days ahead (a routine is scheduled at most 90 days ahead), and how the pages write it. */
const ahead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const written = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));

interface Shared {
  s: TestServer;
  browser: Browser;
  page: Page;
  athleteId: string;
}
let shared: Shared | null = null;
const the = (): Shared => {
  if (!shared) throw new Error('not started');
  return shared;
};

const mainText = async (page: Page) => ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ');

/**
 * Follows a link or presses a button, and waits for the page it leads to (after any redirect),
 * which must answer `status`: what the page says is in the message when it does not.
 */
async function go(page: Page, target: Locator, status = 200): Promise<Response> {
  // At the middle of its box, as a person aims: a link that starts with words for a screen reader
  // only (the check-in's day, "Change the …") would otherwise be clicked on those hidden words.
  const box = await target.boundingBox();
  assert.ok(box, 'it is on the page');
  const [response] = await Promise.all([page.waitForNavigation(), target.click({ position: { x: box.width / 2, y: box.height / 2 } })]);
  assert.ok(response, 'a page was loaded');
  if (response.status() !== status) assert.unreachable(`${page.url()} answered ${response.status()}: ${(await mainText(page)).slice(0, 1500)}`);
  return response;
}

/** What these checks read of the page's elements (the tests compile without the DOM's types). */
interface Shown {
  id: string;
  tagName: string;
  className: string;
  innerText: string;
  getBoundingClientRect(): { left: number; right: number; top: number; bottom: number; width: number };
  closest(selector: string): Shown | null;
  querySelectorAll(selector: string): Iterable<Shown>;
}
interface ShownDocument {
  documentElement: { clientWidth: number; scrollWidth: number };
  querySelectorAll(selector: string): Iterable<Shown>;
}

/** What on the page reaches past the right edge of the screen: the page itself, or any element in it. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: ShownDocument }).document;
    const width = d.documentElement.clientWidth;
    const found: string[] = [];
    if (d.documentElement.scrollWidth > width) found.push(`the page is ${d.documentElement.scrollWidth - width}px wider`);
    for (const e of d.querySelectorAll('main *')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 0.5 && !e.closest('.visually-hidden, .default-submit'))
        found.push(
          `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).replace(/\s+/g, '.')}` : ''} ends at ${Math.round(r.right)}px`,
        );
    }
    return found.slice(0, 10);
  });
}

/** A set's fields whose label is not right above its box (a grid of labels and boxes puts them apart at some widths). */
async function labelsApart(page: Page): Promise<string[]> {
  return page.$$eval('fieldset.item-set label[for]', (labels) =>
    labels.flatMap((label) => {
      const box = label.ownerDocument.getElementById(label.getAttribute('for')!);
      if (!box || box.getAttribute('type') === 'checkbox') return [];
      const l = label.getBoundingClientRect();
      const b = box.getBoundingClientRect();
      return Math.abs(l.left - b.left) < 2 && l.bottom <= b.top + 1 && b.top - l.bottom < 12 ? [] : [`${label.textContent} (${box.id})`];
    }),
  );
}

/** The page at both widths: nothing past the screen's edge, no serious axe violation; screenshots saved. */
async function looked(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    assert.equal(await overflowing(page), [], `${name} at ${width}px`);
  }
  assert.equal(await atBothWidths(page, `edit-${name}`), [], name);
}

/** The form's Save button (not the hidden default one at its top, which is for Enter only). */
const saveButton = (page: Page) => page.getByRole('button', { name: 'Save', exact: true });

/** Checks the kind's page shows `shown`, and not `gone`, besides in the card of the last change. */
async function shows(page: Page, shown: Array<string | RegExp>, gone: string[] = []): Promise<void> {
  const text = (
    await page.$eval('main', (element) => {
      const main = element as unknown as Shown;
      let shown = main.innerText;
      for (const card of main.querySelectorAll('.last-change')) shown = shown.replace(card.innerText, '');
      return shown;
    })
  ).replace(/\s+/g, ' ');
  for (const s of shown) assert.match(text, s, `${page.url()} shows ${s}`);
  for (const g of gone) assert.not.match(text, g, `${page.url()} no longer shows ${g}`);
}

interface KindCase {
  slug: string;
  /** The kind's page and its button that opens the new form. */
  list: string;
  add: string;
  fill(page: Page): Promise<void>;
  saved: Array<string | RegExp>;
  /** The link to its form on the page a save leads to, before and after the change. */
  changeLink: RegExp;
  change(page: Page): Promise<void>;
  changed: Array<string | RegExp>;
  /** What no longer shows after the change, and after removal. */
  before: string[];
  removed: string[];
  removable: boolean;
}

const KINDS: KindCase[] = [
  {
    slug: 'workout',
    list: '/workouts',
    add: 'Log a workout',
    async fill(page) {
      await page.fill('#f-title', 'Leg day');
      await go(page, page.locator('button[value="add:exercises"]'));
      await page.selectOption('#f-exercises-0-exercise-id', { label: 'Back squat' });
      await page.fill('#f-exercises-0-sets-0-weight-kg', '100');
      await page.fill('#f-exercises-0-sets-0-reps', '5');
    },
    saved: ['Leg day', 'Back squat', '100 kg'],
    changeLink: /^Change this workout/,
    async change(page) {
      await page.fill('#f-title', 'Heavy leg day');
      await page.fill('#f-exercises-0-sets-0-reps', '6');
    },
    changed: ['Heavy leg day'],
    before: [],
    removed: ['Heavy leg day'],
    removable: true,
  },
  {
    slug: 'routine',
    list: '/routines',
    add: 'Add a routine',
    async fill(page) {
      await page.fill('#f-title', 'Push day');
      await go(page, page.locator('button[value="add:exercises"]'));
      // The form came back with the boxes of its dates as they were: two empty ones, no more.
      assert.is(await page.locator('input[name="f.scheduled_dates"]').count(), 2);
      await page.selectOption('#f-exercises-0-exercise-id', { label: 'Back squat' });
      await page.fill('#f-exercises-0-sets', '3');
      await page.fill('#f-exercises-0-reps', '8-10');
      await page.fill('#f-exercises-0-rest-seconds', '2:30');
      await page.fill('#f-scheduled-dates-0', ahead(10));
    },
    saved: ['Push day', 'Back squat', '8-10', '2:30', written(ahead(10))],
    changeLink: /^Change this routine/,
    async change(page) {
      await page.fill('#f-title', 'Push day A');
      await page.fill('#f-scheduled-dates-1', ahead(12));
    },
    changed: ['Push day A', written(ahead(10)), written(ahead(12))],
    before: [],
    removed: ['Push day A'],
    removable: true,
  },
  {
    slug: 'goal',
    list: '/goals',
    add: 'Add a goal',
    async fill(page) {
      await page.selectOption('#f-goal-type', 'target_bodyweight');
      await page.fill('#f-target-value', '75');
    },
    saved: ['Bodyweight of 75 kg'],
    changeLink: /^Change .*bodyweight goal of/,
    async change(page) {
      await page.fill('#f-target-value', '74.5');
    },
    changed: ['Bodyweight of 74.5 kg'],
    before: ['Bodyweight of 75 kg'],
    removed: ['Bodyweight of'],
    removable: true,
  },
  {
    slug: 'checkin',
    list: '/recovery',
    add: 'Add a check-in',
    async fill(page) {
      await page.selectOption('#f-sleep-quality', '4');
      await page.selectOption('#f-energy', '3');
      await page.selectOption('#f-soreness', '5');
      await page.selectOption('#f-stress', '2');
    },
    saved: [/4 \/ 5 3 \/ 5 5 \/ 5 2 \/ 5/],
    changeLink: /^Change the check-in of/,
    async change(page) {
      await page.selectOption('#f-energy', '1');
    },
    changed: [/4 \/ 5 1 \/ 5 5 \/ 5 2 \/ 5/],
    before: ['3 / 5'],
    removed: ['/ 5'],
    removable: true,
  },
  {
    slug: 'meal',
    list: '/nutrition',
    add: 'Add a meal',
    async fill(page) {
      await page.fill('#f-name', 'Lunch');
      await page.fill('#f-calories-kcal', '650');
      await page.fill('#f-protein-g', '40,5');
    },
    saved: ['Lunch', '650 kcal', '40.5 g'],
    changeLink: /^Change the meal “(Late l|L)unch”/,
    async change(page) {
      await page.fill('#f-name', 'Late lunch');
      await page.fill('#f-fat-g', '20');
    },
    changed: ['Late lunch', '650 kcal', '20 g'],
    before: [],
    removed: ['Late lunch'],
    removable: true,
  },
  {
    slug: 'measurement',
    list: '/body',
    add: 'Add a measurement',
    async fill(page) {
      await page.selectOption('#f-metric', 'waist');
      // The box's unit cannot follow the choice without script: every measurement's unit is named.
      assert.is(await page.textContent('#f-value-units'), 'Bodyweight in kg, body fat in %, height and the others in cm.');
      assert.is(await page.getAttribute('#f-value', 'aria-describedby'), 'f-value-units');
      await page.fill('#f-value', '82.5');
    },
    saved: ['Waist', '82.5 cm'],
    changeLink: /^Change the Waist/,
    async change(page) {
      await page.fill('#f-value', '81');
    },
    changed: ['81 cm'],
    before: ['82.5 cm'],
    removed: ['Waist'],
    removable: true,
  },
  {
    slug: 'equipment',
    list: '/preferences',
    add: 'Add an equipment setup',
    async fill(page) {
      await page.fill('#f-name', 'Home gym');
      await page.fill('#f-equipment-0', 'Barbell');
      await page.fill('#f-equipment-1', 'Rack');
    },
    saved: ['Home gym', 'Barbell, Rack'],
    changeLink: /^Change the equipment setup “Home gym”/,
    async change(page) {
      await page.fill('#f-equipment-1', '');
      await page.fill('#f-equipment-2', 'Bench');
    },
    changed: ['Barbell, Bench'],
    before: ['Rack'],
    removed: ['Home gym'],
    removable: true,
  },
  {
    slug: 'preferences',
    list: '/preferences',
    add: 'Set your fitness preferences',
    async fill(page) {
      await page.selectOption('#f-experience-level', 'intermediate');
      await page.fill('#f-training-days-per-week', '4');
      await page.fill('#f-session-minutes', '60');
      await page.fill('#f-focus-0', 'strength');
    },
    saved: [/Experience\s*Intermediate/, /Training days\s*4/, 'strength'],
    changeLink: /^Change your fitness preferences/,
    async change(page) {
      await page.fill('#f-session-minutes', '75');
    },
    changed: [/Session length\s*75 min/],
    before: [],
    removed: [],
    removable: false,
  },
];

if (noBrowser) {
  console.log(`skipped: record edits in Chromium — ${noBrowser}`);
  test.skip('record edits in Chromium', () => {});
} else {
  test.before(async () => {
    const s = await startServer();
    const browser = await launch();
    const athleteId = await registerPro(s.app);
    // An exercise in the catalog, to be picked from the list.
    await s.app.edits.save(athleteId, TZ, [
      { op: 'create', kind: 'exercise', record: { name: 'Back squat', muscle_group: 'legs', tracking_type: 'weight_reps' } },
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${s.base}/sign-in`);
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', PASSWORD);
    await go(page, page.locator('button[type=submit]'));
    assert.is(new URL(page.url()).pathname, '/account');
    shared = { s, browser, page, athleteId };
  });

  test.after(async () => {
    await shared?.browser.close();
    await shared?.s.close();
  });

  for (const k of KINDS) {
    test(`${k.slug}: added from its page, changed from its Change link${k.removable ? ', removed after its confirm page' : ''}`, async () => {
      const { s, page } = the();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${s.base}${k.list}`);
      await go(page, page.getByRole('link', { name: k.add, exact: true }));
      assert.is(new URL(page.url()).pathname, `/record/${k.slug}/new`);
      await looked(page, `${k.slug}-new`);
      await k.fill(page);
      await go(page, saveButton(page));
      await shows(page, k.saved);

      await go(page, page.getByRole('link', { name: k.changeLink }));
      assert.match(new URL(page.url()).pathname, new RegExp(`^/record/${k.slug}/[0-9a-f-]{36}$`));
      await k.change(page);
      await looked(page, `${k.slug}-edit`);
      const editPath = new URL(page.url()).pathname;
      await go(page, saveButton(page));
      await shows(page, k.changed, k.before);
      await go(page, page.getByRole('link', { name: k.changeLink }));
      assert.is(new URL(page.url()).pathname, editPath);
      if (!k.removable) {
        assert.is(await page.getByRole('link', { name: /^Remove/ }).count(), 0, 'fitness preferences are changed, never removed');
        return;
      }
      await go(page, page.getByRole('link', { name: /^Remove this / }));
      assert.is(new URL(page.url()).pathname, `${editPath}/remove`);
      assert.match(await mainText(page), /^Remove the .*\?/);
      await looked(page, `${k.slug}-remove`);
      await go(page, page.getByRole('button', { name: 'Remove it' }));
      assert.is(new URL(page.url()).pathname, k.list);
      await shows(page, [], k.removed);
    });
  }

  test('a workout with a superset and a drop set, one exercise named new in its details: its page shows both', async () => {
    const { s, page } = the();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${s.base}/workouts`);
    await go(page, page.getByRole('link', { name: 'Log a workout' }));
    await page.fill('#f-title', 'Upper and lower');
    await go(page, page.getByRole('button', { name: 'Add an exercise' }));
    await go(page, page.getByRole('button', { name: 'Add an exercise' }));
    await go(page, page.getByRole('button', { name: 'Add a set' }).first());
    assert.equal(await page.locator('fieldset.item-exercise > legend').allTextContents(), ['Exercise 1', 'Exercise 2']);
    assert.equal(await page.locator('fieldset.item-set > legend').allTextContents(), ['Set 1', 'Set 2', 'Set 1']);

    await page.selectOption('#f-exercises-0-exercise-id', { label: 'Back squat' });
    await page.selectOption('#f-exercises-0-superset-id', { label: 'Superset A' });
    await page.fill('#f-exercises-0-sets-0-weight-kg', '100');
    await page.fill('#f-exercises-0-sets-0-reps', '5');
    await page.selectOption('#f-exercises-0-sets-1-set-type', { label: 'Drop set' });
    await page.selectOption('#f-exercises-0-sets-1-parent-position', { label: 'Set 1' });
    await page.fill('#f-exercises-0-sets-1-weight-kg', '80');
    await page.fill('#f-exercises-0-sets-1-reps', '8');
    const details = page.locator('#f-exercises-1-exercise-id-new');
    assert.not.ok(await details.isVisible(), 'the new exercise is folded away until asked for');
    await page.getByText('Not in the list? Name a new exercise').nth(1).click();
    await page.fill('#f-exercises-1-exercise-id-new', 'Chin-up');
    await page.selectOption('#f-exercises-1-exercise-id-tracking', { label: 'Bodyweight reps' });
    await page.selectOption('#f-exercises-1-superset-id', { label: 'Superset A' });
    await page.fill('#f-exercises-1-sets-0-reps', '8');
    await page.fill('#f-exercises-1-notes', 'Slow negatives');
    await looked(page, 'workout-superset');
    for (const width of [390, 700, 1000, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      assert.equal(await labelsApart(page), [], `each label of a set is right above its box at ${width}px`);
    }
    await go(page, saveButton(page));
    assert.match(new URL(page.url()).pathname, /^\/workouts\/[0-9a-f-]{36}$/);
    await shows(page, [
      'Upper and lower',
      /Back squat Muscle group legs Superset Superset A, done with Chin-up/,
      /Chin-up Superset Superset A, done with Back squat/,
      /2 Drop set from set 1\s+80 kg\s+8/,
      'Slow negatives',
    ]);
    await screenshot(page, 'edit-workout-superset-saved-1280');
  });

  test("a meal's form submitted after a batch changed it meanwhile: the conflict names the batch and keeps what was typed; saved again, it is saved", async () => {
    const { s, page, athleteId } = the();
    await page.setViewportSize({ width: 1280, height: 900 });
    const eatenAt = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const meal = { eaten_at: eatenAt, name: 'Dinner', calories_kcal: 600, protein_g: null, carbohydrate_g: null, fat_g: null };
    const id = (await s.app.edits.save(athleteId, TZ, [{ op: 'create', kind: 'meal', record: meal }])).created[0]!;
    await page.goto(`${s.base}/nutrition`);
    await go(page, page.getByRole('link', { name: /^Change the meal “Dinner”/ }));
    await page.fill('#f-name', 'Soup and bread');

    const batch = validBody([{ op: 'update', kind: 'meal', id, base_revision: 1, record: { ...meal, calories_kcal: 720 } }]);
    await s.app.proposals.prepare(await agentCaller(s.app, athleteId), batch);
    assert.is((await s.app.proposals.approve(athleteId, batch.command_id)).outcome, 'committed');

    await go(page, saveButton(page), 409);
    const text = await mainText(page);
    assert.match(text, 'Nothing was saved');
    assert.match(text, 'changed by a batch from Agent that you approved');
    assert.match(text, '720 kcal → 600 kcal');
    assert.is(await page.inputValue('#f-name'), 'Soup and bread', 'what was typed is kept');
    await looked(page, 'meal-conflict');
    await go(page, saveButton(page));
    assert.is(new URL(page.url()).pathname, '/nutrition');
    await shows(page, [/Soup and bread\s+600 kcal/], ['Dinner']);
  });

  test("the last change undone from the kind's page: it says what will be set back, and the page shows the value restored", async () => {
    const { s, page, athleteId } = the();
    await page.setViewportSize({ width: 1280, height: 900 });
    const meal = {
      eaten_at: new Date(Date.now() - 3 * 3_600_000).toISOString(),
      name: 'Breakfast',
      calories_kcal: 450,
      protein_g: 20,
      carbohydrate_g: null,
      fat_g: null,
    };
    await s.app.edits.save(athleteId, TZ, [{ op: 'create', kind: 'meal', record: meal }]);
    await page.goto(`${s.base}/nutrition`);
    await go(page, page.getByRole('link', { name: /^Change the meal “Breakfast”/ }));
    await page.fill('#f-name', 'Brunch');
    await go(page, saveButton(page));
    const card = page.locator('aside.last-change');
    assert.match((await card.innerText()).replace(/\s+/g, ' '), /Your last change, .*: Changed the meal “Brunch” of .* Undo this change…/);
    assert.equal(await atBothWidths(page, 'edit-nutrition-last-change'), []);

    await go(page, card.getByRole('link', { name: 'Undo this change…' }));
    assert.is(new URL(page.url()).pathname, '/record/undo');
    assert.match(await mainText(page), /Undo your last change\? You made it on .*\. Undoing it will: Set the meal “Brunch” .* back/);
    await looked(page, 'undo-confirm');
    assert.is(await page.getAttribute('a:text-is("Keep it")', 'href'), '/nutrition', 'keeping it goes back to the meals');
    await go(page, page.getByRole('button', { name: 'Undo this change' }));
    assert.is(new URL(page.url()).pathname, '/nutrition');
    await shows(page, [/Breakfast\s+450 kcal/], ['Brunch', 'Your last change']);
    assert.is(await card.count(), 0, 'nothing left to undo');
    assert.equal(await atBothWidths(page, 'edit-nutrition-undone'), []);
  });

  test('a long workout form (3 exercises of 4 sets) on a phone: nothing wider than the screen, every control wide enough to use, and it saves', async () => {
    const { s, page } = the();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${s.base}/workouts`);
    await go(page, page.getByRole('link', { name: 'Log a workout' }));
    for (let e = 0; e < 3; e++) await go(page, page.getByRole('button', { name: 'Add an exercise' }));
    for (let e = 0; e < 3; e++) for (let n = 1; n < 4; n++) await go(page, page.locator(`button[value="add:exercises.${e}.sets"]`));
    assert.is(await page.locator('fieldset.item-set').count(), 12);
    await page.fill('#f-title', 'Long lower');
    await page.selectOption('#f-exercises-0-exercise-id', { label: 'Back squat' });
    for (const [e, name] of [
      [1, 'Romanian deadlift'],
      [2, 'Leg press'],
    ] as const) {
      await page.locator(`#f-exercises-${e}-exercise-id ~ details summary`).click();
      await page.fill(`#f-exercises-${e}-exercise-id-new`, name);
    }
    for (let e = 0; e < 3; e++)
      for (let n = 0; n < 4; n++) {
        await page.fill(`#f-exercises-${e}-sets-${n}-weight-kg`, String(60 + 10 * e + 2.5 * n));
        await page.fill(`#f-exercises-${e}-sets-${n}-reps`, String(10 - n));
      }
    assert.equal(await overflowing(page), [], 'nothing reaches past the edge of a phone');
    assert.equal(await labelsApart(page), []);
    const narrow = await page.$$eval('form.record-form input:not([type=hidden]):not([type=checkbox]), form.record-form select', (controls) =>
      controls
        .map((c) => ({ id: c.id, width: c.getBoundingClientRect().width }))
        .filter((c) => c.width > 0 && c.width < 72)
        .map((c) => `${c.id} is ${Math.round(c.width)}px wide`),
    );
    assert.equal(narrow, [], 'each box shows what is typed in it');
    await screenshot(page, 'edit-workout-long-390');
    // The whole form is too tall to read in one picture: its first exercise, as a phone shows it.
    await page
      .locator('fieldset.item-exercise')
      .first()
      .screenshot({ path: join(SCREENSHOTS, 'edit-workout-long-exercise-390.png') });
    await go(page, saveButton(page));
    await shows(page, ['Long lower', 'Back squat', 'Romanian deadlift', 'Leg press', '12 sets']);
    assert.is(await page.locator('section.exercise tbody tr').count(), 12);
  });
}

test.run();
