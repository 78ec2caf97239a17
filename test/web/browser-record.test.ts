// Every page of the athlete's web app in headless Chromium, on a phone (390 px) and a desktop
// (1280 px), for an empty record and a year of imported training (with a connected client, its
// proposal waiting and a bot token): no serious or critical axe violation, nothing wider than the
// screen, and a screenshot of each for a person to look at.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { startWebRecord, TODAY, type WebRecord, signInInBrowser } from '../support/web-record.ts';
import { proposalBody, writer } from '../support/writes.ts';

const noBrowser = whyNoBrowser();
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
] as const;

interface Extras {
  exerciseId: string;
  /** A workout of the imported year with the most sets: its tables are the widest. */
  fullWorkoutId: string;
  proposalPath: string;
  grantId: string;
}

/** The pages of the web app, by the name their screenshots get; the large record has more to show. */
function pagesOf(r: WebRecord, extras: Extras | null): Array<[string, string]> {
  return [
    ['home', '/account'],
    ['workouts', '/workouts'],
    ...(extras
      ? ([
          ['workout', `/workouts/${r.hostileWorkoutId}`],
          ['workout-full', `/workouts/${extras.fullWorkoutId}`],
        ] as Array<[string, string]>)
      : []),
    ['routines', '/routines'],
    ['goals', '/goals'],
    ['progress', '/progress'],
    ...(extras ? ([['progress-exercise', `/progress/exercises/${extras.exerciseId}`]] as Array<[string, string]>) : []),
    ['recovery', '/recovery'],
    ['nutrition', '/nutrition'],
    ['body', '/body'],
    ['proposals', '/proposals'],
    ...(extras ? ([['proposal', extras.proposalPath]] as Array<[string, string]>) : []),
    ['connections', '/connections'],
    ...(extras
      ? ([['write-permissions', `/connections/${extras.grantId}/write-permissions/request?permissions=training:write,nutrition:delete`]] as Array<
          [string, string]
        >)
      : []),
    ['settings', '/settings'],
    // Pages whose content does not depend on the record: once, where they have most to show.
    ...(extras
      ? ([
          ['bot-tokens', '/bot-tokens'],
          ['password', '/account/password'],
          ['import', '/import'],
        ] as Array<[string, string]>)
      : []),
    ['not-found', '/workouts/00000000-0000-4000-8000-000000000000'],
  ];
}

/** For the large record: a connected AI client that has proposed a meal, and a bot token. */
async function extrasOf(r: WebRecord): Promise<Extras> {
  const { api, grantId } = await writer(r.s, r.largeId, ['training', 'nutrition'], ['nutrition:write']);
  const prepared = await api.prepare(
    proposalBody([
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: `${TODAY}T07:30:00.000Z`, name: 'Porridge', calories_kcal: 350, protein_g: 12, carbohydrate_g: 60, fat_g: 6 },
      },
    ]),
  );
  assert.is(prepared.status, 201, JSON.stringify(prepared.body));
  // A long name (the limit is 100 characters): its Revoke button must wrap inside the card on a phone.
  await r.s.app.botTokens.create(r.largeId, 'Discord stats bot for the Thursday-night lifting club, posting weekly volumes', {
    type: 'athlete',
    id: r.largeId,
  });
  const exercises = await r.s.app.reads.page<{ id: string; name: string }>('exercises', {
    partition: r.largeId,
    index: 'by_name',
    direction: 'asc',
    limit: 100,
  });
  const recent = await r.s.app.reads.page<{ id: string; achieved_set_count: number }>('workouts', {
    partition: r.largeId,
    index: 'by_ended',
    direction: 'desc',
    limit: 20,
  });
  const fullWorkoutId = recent.reduce((a, b) => (b.achieved_set_count > a.achieved_set_count ? b : a)).id;
  return {
    exerciseId: exercises.find((e) => e.name === 'Bench Press (Barbell)')!.id,
    fullWorkoutId,
    proposalPath: new URL(prepared.body.data.proposal.approval_url as string).pathname,
    grantId,
  };
}

async function signIn(browser: Browser, base: string, email: string, width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true });
  const page = await context.newPage();
  await signInInBrowser(page, base, email);
  return page;
}

if (noBrowser) {
  console.log(`skipped: web app browser tests — ${noBrowser}`);
  test.skip('every page in Chromium', () => {});
} else {
  test('every page, empty and large, at 390 and 1280 px: axe finds nothing serious, nothing overflows', async () => {
    const r = await startWebRecord();
    const browser = await launch();
    try {
      const extras = await extrasOf(r);
      for (const v of VIEWPORTS) {
        // Before signing in.
        const visitor = await (await browser.newContext({ viewport: { width: v.width, height: v.height }, bypassCSP: true })).newPage();
        for (const [name, path] of [
          ['sign-in', '/sign-in'],
          ['sign-up', '/sign-up'],
        ]) {
          assert.is((await visitor.goto(`${r.s.base}${path}`))?.status(), 200);
          assert.equal(await seriousViolations(visitor), [], `${path} at ${v.width}px`);
          await screenshot(visitor, `web-${name}-${v.width}`);
        }
        await visitor.context().close();
      }
      for (const [who, email, large] of [
        ['empty', 'empty@example.com', false],
        ['large', 'ada@example.com', true],
      ] as const) {
        for (const v of VIEWPORTS) {
          const page = await signIn(browser, r.s.base, email, v.width, v.height);
          for (const [name, path] of pagesOf(r, large ? extras : null)) {
            const res = await page.goto(`${r.s.base}${path}`);
            assert.is(res?.status(), name === 'not-found' ? 404 : 200, `${who} ${path}`);
            assert.equal(await seriousViolations(page), [], `${who} ${path} at ${v.width}px`);
            const overflow = await page.evaluate(() => {
              const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
              return root.scrollWidth - root.clientWidth;
            });
            assert.ok(overflow <= 0, `${who} ${path} at ${v.width}px is ${overflow}px wider than the screen`);
            // A workout's set tables fit the card on a phone: scrolling inside their box hid the
            // Records column from a person who would not know it was there. (Wider tables, of
            // many numbers, scroll by design.)
            const hidden = !name.startsWith('workout')
              ? []
              : await page.evaluate(() =>
                  [
                    ...(
                      globalThis as unknown as { document: { querySelectorAll: (s: string) => Iterable<{ scrollWidth: number; clientWidth: number }> } }
                    ).document.querySelectorAll('.table-wrap'),
                  ]
                    .map((w) => w.scrollWidth - w.clientWidth)
                    .filter((d) => d > 0),
                );
            assert.equal(hidden, [], `${who} ${path} at ${v.width}px: tables scroll sideways by ${hidden.join(', ')}px`);
            assert.ok(await page.locator('nav.main a[href="/proposals"]').count(), `${path} has the navigation`);
            await screenshot(page, `web-${who}-${name}-${v.width}`);
          }
          await page.context().close();
        }
      }
    } finally {
      await browser.close();
      await r.s.close();
    }
  });

  test('the copy button runs under the real CSP (its script allowed by hash) and copies the MCP address', async () => {
    const r = await startWebRecord();
    const browser = await launch();
    try {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const blocked: string[] = [];
      const page = await context.newPage();
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
      });
      await signInInBrowser(page, r.s.base, 'empty@example.com');
      const button = page.locator('button[data-copy="mcp-address"]');
      assert.ok(await button.isVisible(), 'the script showed the button');
      await button.click();
      await page.waitForSelector('#mcp-address-status:has-text("Copied.")');
      const selected = await page.evaluate(() => {
        const g = globalThis as unknown as {
          getSelection(): { toString(): string } | null;
          document: { activeElement: { value?: string; selectionStart?: number; selectionEnd?: number } | null };
        };
        const el = g.document.activeElement;
        return el?.value?.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0) ?? '';
      });
      assert.is(selected, `${r.s.base}/mcp`);
      assert.equal(blocked, [], 'no script or style was blocked');
      await screenshot(page, 'web-home-copied-390');
    } finally {
      await browser.close();
      await r.s.close();
    }
  });
}

test.run();
