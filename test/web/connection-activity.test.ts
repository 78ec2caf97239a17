// The athlete's access history end to end: an MCP SDK client, connected through the real OAuth
// flow, makes a known set of tool calls (reads, a refused one, two proposals that the athlete then
// saves and rejects); the connection's activity page in Chromium, at 390 and 1280 px, shows each
// read with exactly the calls made and the items answered, and the proposals' outcomes; and
// `repledger connections activity --json`, another process on the same store, gives the same figures.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import { signInInBrowser } from '../support/web-record.ts';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { localDateOf } from '../../services/domain/time.ts';
import { seriousViolations } from '../support/axe.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { cli, cliJson } from '../support/cli.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { proposalBody, seedRecord } from '../support/writes.ts';
import { envelopeOf, mcpClient, toolErrorOf } from '../mcp/support.ts';

const noBrowser = whyNoBrowser();

interface Expected {
  calls: number;
  items: number;
}

interface CliActivity {
  connections: Array<{
    grant_id: string;
    client_name: string;
    reads: {
      operations: Array<{ operation: string; scope: string | null; calls: number; items: number }>;
      days: Array<{ date: string; operation: string; calls: number; items: number }>;
    };
    proposals: { total: number; counts: Record<string, number> };
  }>;
}

if (noBrowser) {
  console.log(`skipped: access history in Chromium — ${noBrowser}`);
  test.skip('access history in Chromium', () => {});
} else {
  test("an MCP session's reads and proposals, on the activity page (390 and 1280 px) and in `connections activity`, equal what the client did", async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      const seeded = await seedRecord(s.app, athleteId);
      // Three meals, so that a list's items differ from its calls.
      await s.app.records.change(
        athleteId,
        ['Eggs', 'Rice'].map((name, i) => ({
          op: 'create',
          kind: 'meal',
          item: {
            id: randomUUID(),
            eaten_at: new Date(Date.now() - (i + 2) * 3_600_000).toISOString(),
            name,
            calories_kcal: 300,
            protein_g: 20,
            carbohydrate_g: 30,
            fat_g: 10,
          },
        })),
        { type: 'athlete', id: 'test' },
      );
      const before = new Set((await s.app.connections.list(athleteId)).map((c) => c.id));
      const token = (await connect(s.base, `${s.base}/mcp`, ['training', 'recovery', 'nutrition'])).tokens.access_token;
      const grantId = (await s.app.connections.list(athleteId)).find((c) => !before.has(c.id))!.id;
      await s.app.connections.setWritePermissions(athleteId, grantId, ['nutrition:write'], { onlyRemove: false });
      // A second app that never reads: its page is the empty one.
      await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
      const idle = (await s.app.connections.list(athleteId)).find((c) => !before.has(c.id) && c.id !== grantId)!.id;

      const client = await mcpClient(s.base, token);
      const expected = new Map<string, Expected>();
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const data = envelopeOf(name as never, (await client.callTool({ name, arguments: args })) as CallToolResult).data as { items?: unknown[] };
        const e = expected.get(name) ?? { calls: 0, items: 0 };
        expected.set(name, { calls: e.calls + 1, items: e.items + (data.items ? data.items.length : 1) });
        return data;
      };
      await call('get_access_context');
      await call('list_completed_workouts', { limit: 10 });
      await call('list_completed_workouts', { limit: 1 });
      await call('get_completed_workout', { workout_id: seeded.workoutId });
      await call('list_recovery_checkins');
      await call('list_meals', { limit: 10 });
      await call('list_saved_routines');
      await call('get_write_context');
      // Refused reads are not counted: an id not in the record is a tool error.
      assert.is(
        toolErrorOf((await client.callTool({ name: 'get_completed_workout', arguments: { workout_id: randomUUID() } })) as CallToolResult).code,
        'not_found',
      );
      const meal = (name: string) => ({
        op: 'create',
        kind: 'meal',
        record: { eaten_at: new Date(Date.now() - 3_600_000).toISOString(), name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
      });
      const saved = proposalBody([meal('Lentil soup')]);
      const rejected = proposalBody([meal('Chips')]);
      for (const body of [saved, rejected])
        assert.not.ok(((await client.callTool({ name: 'prepare_write_proposal', arguments: body })) as CallToolResult).isError);
      await s.app.proposals.approve(athleteId, saved.command_id);
      await s.app.proposals.reject(athleteId, rejected.command_id);
      await client.close();
      assert.equal([expected.get('list_meals')?.items, expected.get('list_saved_routines')?.items], [3, 0], 'a list of several items and an empty one');

      const lines: Record<string, string> = {
        get_access_context: `Checked what it may read — ${times(expected.get('get_access_context')!)}`,
        list_completed_workouts: `Listed your completed workouts — ${times(expected.get('list_completed_workouts')!)}, ${count(expected.get('list_completed_workouts')!.items, 'workout', 'workouts')}`,
        get_completed_workout: `Opened a completed workout with its exercises and sets — ${times(expected.get('get_completed_workout')!)}`,
        list_recovery_checkins: `Listed your recovery check-ins — ${times(expected.get('list_recovery_checkins')!)}, ${count(expected.get('list_recovery_checkins')!.items, 'check-in', 'check-ins')}`,
        list_meals: `Listed your meals — ${times(expected.get('list_meals')!)}, ${count(expected.get('list_meals')!.items, 'meal', 'meals')}`,
        list_saved_routines: `Listed your saved routines — once, 0 routines`,
        get_write_context: `Checked what it may suggest — ${times(expected.get('get_write_context')!)}`,
      };
      const today = localDateOf(Date.now(), 'Europe/London');

      for (const [width, height] of [
        [390, 844],
        [1280, 900],
      ] as const) {
        const page = await signIn(await browser.newContext({ viewport: { width, height }, bypassCSP: true }).then((c) => c.newPage()), s.base);
        await page.goto(`${s.base}/connections`);
        await page.click(`a[href="/connections/${grantId}/activity"]`);
        await page.waitForURL(`${s.base}/connections/${grantId}/activity`);
        const read = await listItems(page, 'What it read');
        assert.equal(read.map((l) => l.replace(/, last on .*$/, '')).sort(), Object.values(lines).sort(), 'one line per operation, with its calls and items');
        const days = await page.locator('section.day').allInnerTexts();
        assert.is(days.length, 1, 'every call today');
        assert.ok(
          days[0]!.includes(
            new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
              new Date(`${today}T12:00:00Z`),
            ),
          ),
        );
        for (const line of Object.values(lines)) assert.ok(days[0]!.includes(line), `today: ${line}`);
        const suggested = await page.locator('.card', { hasText: 'What it suggested' }).innerText();
        assert.match(suggested, '2 suggestions: 1 saved, 1 rejected.');
        assert.is(await page.locator(`a[href="/proposals/${saved.command_id}"]`).count(), 1);
        assert.equal(await seriousViolations(page), [], `activity at ${width}px`);
        assert.ok((await overflow(page)) <= 0, `activity at ${width}px fits the screen`);
        await screenshot(page, `connection-activity-${width}`);

        if (width === 390) {
          await page.goto(`${s.base}/connections/${idle}/activity`);
          assert.match(await page.locator('main').innerText(), 'has not read anything from your record in the last 90 days');
          assert.match(await page.locator('main').innerText(), 'has not suggested any changes in the last 90 days');
          assert.equal(await seriousViolations(page), [], 'empty activity');
          await screenshot(page, 'connection-activity-empty-390');
        }
        await page.context().close();
      }

      // Another process reads the same store: the figures the page showed (written when it was read).
      const env = { DATA_DIR: s.app.config.dataDir };
      const activity = await cliJson<CliActivity>(['connections', 'activity', '--athlete', 'ada@example.com', '--connection', grantId], env);
      const [mcp] = activity.connections;
      assert.equal(Object.fromEntries(mcp!.reads.operations.map((o) => [o.operation, { calls: o.calls, items: o.items }])), Object.fromEntries(expected));
      assert.equal(
        mcp!.reads.days.map((d) => d.date),
        [...expected.keys()].map(() => today),
      );
      assert.is(mcp!.proposals.total, 2);
      assert.equal([mcp!.proposals.counts.committed, mcp!.proposals.counts.rejected], [1, 1]);

      const tableRun = await cli(['connections', 'activity', '--athlete', athleteId], env);
      assert.is(tableRun.code, 0, tableRun.stderr);
      const listed = expected.get('list_completed_workouts')!;
      assert.match(tableRun.stdout, new RegExp(`list_completed_workouts\\s+training\\s+${listed.calls}\\s+${listed.items}\\s`));
      assert.match(tableRun.stdout, /proposals: 2 \(1 committed, 1 rejected\)/);
      assert.match(tableRun.stdout, /read nothing/, 'the idle connection');

      const unknown = await cli(['connections', 'activity', '--athlete', 'ada@example.com', '--connection', randomUUID(), '--json'], env);
      assert.is(unknown.code, 2);
      assert.match(JSON.parse(unknown.stdout).error.message, 'has no connection');
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

function times(e: Expected): string {
  return e.calls === 1 ? 'once' : `${e.calls} times`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

async function signIn(page: Page, base: string): Promise<Page> {
  await signInInBrowser(page, base);
  return page;
}

/** The lines of the list in the card headed `heading`, each without its area hint. */
async function listItems(page: Page, heading: string): Promise<string[]> {
  const items = page.locator('.card', { has: page.locator('h2', { hasText: heading }) }).locator('ul.activity > li');
  const texts = await items.evaluateAll((lis) =>
    lis.map((li) =>
      [...(li as unknown as { childNodes: Iterable<{ className?: string; textContent: string | null }> }).childNodes]
        .filter((n) => n.className !== 'hint')
        .map((n) => n.textContent)
        .join(''),
    ),
  );
  return texts.map((t) => t.trim());
}

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

test.run();
