// In Chromium at 390 and 1280 px: a workout page with every set field and long exercise notes, the
// Connected apps page with three apps of one name (one named by the athlete, one refused a blank
// name), and the disconnect confirmation, which works without script. No serious axe violation,
// nothing wider than the screen, no set table scrolling sideways, and a screenshot of each.
import { test } from 'uvu';
import { signInInBrowser } from '../support/web-record.ts';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations, WIDTHS } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, registerPro } from '../support/connect.ts';
import { seedFullWorkout } from '../support/full-workout.ts';
import { startServer } from '../support/server.ts';
import { proposalBody, writer } from '../support/writes.ts';

const noBrowser = whyNoBrowser();

/** Notes at the record's 2,000 characters: lines, and an address pasted whole that must wrap. */
const LONG_NOTES =
  `Pause on the chest, elbows tucked.\nDrop 20 kg for the back-off set.\n${'Keep the bar path over the mid-foot. '.repeat(40)}https://example.com/${'a'.repeat(400)}`.slice(
    0,
    2000,
  );

async function signIn(browser: Browser, base: string, width: number, javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true, javaScriptEnabled });
  const page = await context.newPage();
  await signInInBrowser(page, base);
  return page;
}

/** Serious axe violations, sideways overflow of the page, and set tables that scroll sideways. */
async function check(page: Page, what: string, axe = true): Promise<void> {
  // axe runs as a script in the page: not in a context without script.
  if (axe) assert.equal(await seriousViolations(page), [], what);
  const { overflow, scrolling } = await page.evaluate(() => {
    const doc = (
      globalThis as unknown as {
        document: {
          documentElement: { scrollWidth: number; clientWidth: number };
          querySelectorAll: (s: string) => Iterable<{ scrollWidth: number; clientWidth: number }>;
        };
      }
    ).document;
    return {
      overflow: doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
      scrolling: [...doc.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth).filter((d) => d > 0),
    };
  });
  assert.ok(overflow <= 0, `${what} is ${overflow}px wider than the screen`);
  assert.equal(scrolling, [], `${what}: tables scroll sideways by ${scrolling.join(', ')}px`);
}

if (noBrowser) {
  console.log(`skipped: workout and connection pages in Chromium — ${noBrowser}`);
  test.skip('a workout with every field, named connections and the disconnect confirmation in Chromium', () => {});
} else {
  test('a workout with every field, named connections and the disconnect confirmation, at 390 and 1280 px', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      const { workoutId } = await seedFullWorkout(s.app, athleteId, new Date(Date.now() - 86_400_000).toISOString(), LONG_NOTES);
      // Three apps that all call themselves "Coach Bot": one named by the athlete, one that suggested a meal.
      await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
      const { api, grantId: suggesting } = await writer(s, athleteId, ['training', 'nutrition'], ['nutrition:write']);
      const prepared = await api.prepare(
        proposalBody([
          {
            op: 'create',
            kind: 'meal',
            record: { eaten_at: new Date().toISOString(), name: 'Oats', calories_kcal: 350, protein_g: 12, carbohydrate_g: 60, fat_g: 6 },
          },
        ]),
      );
      assert.is(prepared.status, 201);
      await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery']);
      const [newest, , oldest] = (await s.app.connections.list(athleteId)).map((c) => c.id);
      await s.app.connections.rename(athleteId, oldest!, 'Laptop Claude (Thursday-night lifting club coach)');

      for (const width of WIDTHS) {
        const page = await signIn(browser, s.base, width);
        assert.is((await page.goto(`${s.base}/workouts/${workoutId}`))?.status(), 200);
        assert.match((await page.textContent('main')) ?? '', 'Superset A, done with Cable Fly');
        await check(page, `workout at ${width}px`);
        await screenshot(page, `web-workout-fields-${width}`);

        await page.goto(`${s.base}/connections`);
        assert.equal(
          (await page.locator('.connection h2').allTextContents()).map((t) => t.trim()),
          ['Coach Bot', 'Coach Bot', 'Laptop Claude (Thursday-night lifting club coach) (the app calls itself Coach Bot)'],
        );
        await check(page, `connections at ${width}px`);
        await screenshot(page, `web-connections-named-${width}`);

        // A blank name, sent from the form: refused in its card, which stays open.
        const card = page.locator('.connection', { has: page.locator(`a[href="/connections/${newest}/activity"]`) });
        await card.locator('summary').click();
        await card.locator('input[name=name]').fill('   ');
        await card.locator('button', { hasText: 'Save the name' }).click();
        await page.waitForSelector('[role=alert]');
        assert.match((await page.textContent('[role=alert]')) ?? '', 'Give the app a name');
        await check(page, `refused name at ${width}px`);
        await screenshot(page, `web-connections-name-refused-${width}`);

        await page.goto(`${s.base}/connections/${oldest}/disconnect`);
        await check(page, `disconnect confirmation at ${width}px`);
        await screenshot(page, `web-disconnect-confirm-${width}`);
        await page.context().close();
      }

      // The confirmation without script: a link, a page, a form; at one width kept, at the other done.
      for (const width of WIDTHS) {
        const page = await signIn(browser, s.base, width, false);
        await page.goto(`${s.base}/connections`);
        await page.click('text=Disconnect Laptop Claude (Thursday-night lifting club coach)…');
        await page.waitForURL(`${s.base}/connections/${oldest}/disconnect`);
        await check(page, `disconnect confirmation without script at ${width}px`, false);
        if (width === WIDTHS[0]) {
          await page.click('text=Keep it connected');
          await page.waitForURL(`${s.base}/connections`);
          assert.is((await s.app.connections.get(athleteId, oldest!))?.status, 'connected', 'kept');
        } else {
          await page.click('text=Yes, disconnect Laptop Claude (Thursday-night lifting club coach)');
          await page.waitForSelector('[role=status]');
          assert.is((await s.app.connections.get(athleteId, oldest!))?.status, 'disconnected');
          await check(page, `after disconnecting at ${width}px`, false);
          await screenshot(page, `web-connections-after-disconnect-${width}`);
        }
        await page.context().close();
      }
      assert.is((await s.app.connections.get(athleteId, suggesting))?.status, 'connected', 'only the one confirmed');
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
