// The agent's half of writing, with the MCP SDK client from a real OAuth connection: the agent
// asks for write permissions with the link get_write_context gives, the athlete grants them in the
// permission form in Chromium, and the agent reads a record, prepares the batch and reads
// the proposal back, prepared, while the record reads exactly as before.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seriousViolations } from '../support/axe.ts';
import { recordModels } from '../support/app.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, PASSWORD, registerPro } from '../support/connect.ts';
import { workoutSet } from '../support/sets.ts';
import { startServer } from '../support/server.ts';
import { proposalBody, seedRecord } from '../support/writes.ts';
import { envelopeOf, mcpClient, toolErrorOf } from './support.ts';

const noBrowser = whyNoBrowser();

if (noBrowser) {
  test.skip(`MCP writes with the permission form in Chromium (${noBrowser})`, () => {});
} else {
  test('over MCP: permission asked and granted in the form, a record read, the batch prepared and read back; nothing in the record changed', async () => {
    const s = await startServer();
    const browser = await launch();
    try {
      const athleteId = await registerPro(s.app);
      const seeded = await seedRecord(s.app, athleteId);
      const token = (await connect(s.base, `${s.base}/mcp`, ['training', 'recovery', 'nutrition'])).tokens.access_token;
      const client = await mcpClient(s.base, token);
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

      const { tools } = await client.listTools();
      const prepareTool = tools.find((t) => t.name === 'prepare_write_proposal')!;
      assert.equal(prepareTool.annotations, {
        title: prepareTool.title,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      assert.match(prepareTool.description ?? '', 'athlete approves the proposal in their browser');
      assert.match(prepareTool.description ?? '', 'get_write_proposal');

      // A read-only connection: the refusal is a tool error carrying the permission form's link.
      const body = (actions: unknown[]) => proposalBody(actions);
      const refused = toolErrorOf(await call('prepare_write_proposal', body([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]))) as {
        code: string;
        permissions_url?: string;
      };
      assert.is(refused.code, 'write_permission_required');
      assert.match(refused.permissions_url ?? '', 'permissions=nutrition%3Adelete');

      const context = envelopeOf('get_write_context', await call('get_write_context', {})).data as { permissions: string[]; permissions_url: string };
      assert.equal(context.permissions, []);

      // The athlete opens the link, signs in, sees who asks and ticks what to allow.
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true })).newPage();
      await page.goto(context.permissions_url);
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=suggest changes?');
      assert.equal(await seriousViolations(page), []);
      await screenshot(page, 'mcp-write-permission-form');
      for (const p of ['training:write', 'recovery:write', 'nutrition:delete']) await page.check(`input[value="${p}"]`);
      await page.click('text=Allow what I ticked');
      await page.waitForSelector('text=Saved.');
      await screenshot(page, 'mcp-write-permissions-granted');

      const granted = envelopeOf('get_write_context', await call('get_write_context', {})).data as { permissions: string[] };
      assert.equal(granted.permissions, ['training:write', 'recovery:write', 'nutrition:delete']);

      const checkin = (
        envelopeOf('get_write_record', await call('get_write_record', { kind: 'recovery_checkin', id: seeded.checkinId })).data as {
          item: { revision: number; record: Record<string, unknown> };
        }
      ).item;
      const before = await recordModels(s.app);
      const batch = body([
        { op: 'create', kind: 'exercise', ref: 'landmine', record: { name: 'Landmine Press', muscle_group: 'shoulders', tracking_type: 'weight_reps' } },
        {
          op: 'create',
          kind: 'completed_workout',
          record: {
            title: 'Push day',
            started_at: new Date(Date.now() - 7_200_000).toISOString(),
            ended_at: new Date(Date.now() - 3_600_000).toISOString(),
            notes: null,
            exercises: [
              { exercise_id: { ref: 'landmine' }, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 30, reps: 10 })] },
            ],
          },
        },
        { op: 'update', kind: 'recovery_checkin', id: seeded.checkinId, base_revision: checkin.revision, record: { ...checkin.record, energy: 5 } },
        { op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 },
      ]);
      const prepared = envelopeOf('prepare_write_proposal', await call('prepare_write_proposal', batch)).data as { proposal: Record<string, unknown> };
      assert.is(prepared.proposal.status, 'prepared');
      assert.is(prepared.proposal.approval_url, `${s.base}/proposals/${batch.command_id}`);
      // A lost response: the agent asks for the command's status, and a resend is the same proposal.
      const read = envelopeOf('get_write_proposal', await call('get_write_proposal', { command_id: batch.command_id })).data as { proposal: unknown };
      assert.equal(read.proposal, prepared.proposal);
      const resent = envelopeOf('prepare_write_proposal', await call('prepare_write_proposal', batch)).data as { proposal: unknown };
      assert.equal(resent.proposal, prepared.proposal);
      assert.equal(await recordModels(s.app), before, 'the record reads exactly as before');
      await client.close();
    } finally {
      await browser.close();
      await s.close();
    }
  });
}

test.run();
