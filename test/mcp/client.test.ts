// A real MCP client from nothing: the SDK's Client and Streamable HTTP transport meet the 401,
// discover the authorization server, register, and send the athlete to sign in and consent in
// Chromium; then every tool is called and its answer compared with REST's for the same input.
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationList, type ImplementedOperation } from '../../contracts/operations.ts';
import { seedAthlete, todayLocal, trainingHistory } from '../support/sample-record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { launch, screenshot, whyNoBrowser } from '../support/browser.ts';
import { connect, PASSWORD } from '../support/connect.ts';
import { loopbackRedirect, MemoryOAuthClient } from '../support/oauth-client.ts';
import { tempDir } from '../support/app.ts';
import { startServer } from '../support/server.ts';
import { comparable, envelopeOf, restUrl } from './support.ts';

const noBrowser = whyNoBrowser();
const EMAIL = 'ada@example.com';

if (noBrowser) {
  console.log(`skipped: MCP client from nothing — ${noBrowser}`);
  test.skip('an MCP client signs in from nothing, lists the tools and each call answers as REST does', () => {});
} else {
  test('an MCP client signs in from nothing, lists the tools and each call answers as REST does', async () => {
    // A still clock: derived values carry the time they were computed, and both surfaces must agree.
    const s = await startServer({ clock: fixedClock(new Date().toISOString()) });
    const redirect = await loopbackRedirect();
    const browser = await launch();
    try {
      await seedAthlete(s.app, { label: 'small', email: EMAIL, workouts: 40 }, trainingHistory(40, todayLocal()), tempDir('repledger-mcp-'));
      const url = new URL(`${s.base}/mcp`);
      const oauth = new MemoryOAuthClient(redirect.url, 'Claude');

      // First contact: no token, so the transport meets the 401 and starts authorization.
      const first = new Client({ name: 'test-client', version: '1.0.0' });
      const refused = await first.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth })).then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(refused, UnauthorizedError);
      const authorize = oauth.authorizationUrl!;
      assert.is(authorize.searchParams.get('resource'), url.href);
      assert.is(authorize.searchParams.get('code_challenge_method'), 'S256');

      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(authorize.href);
      await page.waitForURL(/\/sign-in/);
      await page.fill('#email', EMAIL);
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Allow Claude to read your record?');
      // The athlete ticks every area (nothing is ticked for them), so that every tool is listed.
      for (const box of await page.locator('input[name=area]').all()) await box.check();
      await screenshot(page, 'mcp-consent');
      await page.click('text=Allow reading');
      const query = await redirect.received;
      const retry = new StreamableHTTPClientTransport(url, { authProvider: oauth });
      await retry.finishAuth(query.get('code')!);

      const client = new Client({ name: 'test-client', version: '1.0.0' });
      await client.connect(retry);
      // The instructions describe the server as it is: bounded reads, and writes that are only
      // proposals the athlete approves in the web app (never "read-only" beside the write tools).
      const instructions = client.getInstructions() ?? '';
      assert.match(instructions, 'untrusted_record_text');
      assert.not.match(instructions, /read-only/i);
      for (const tool of ['get_write_context', 'get_write_record', 'prepare_write_proposal', 'get_write_proposal']) assert.match(instructions, tool);
      assert.match(instructions, "nothing changes until the athlete approves the whole batch in RepLedger's web app");
      assert.match(instructions, 'at most 10 items a page');
      const { tools } = await client.listTools();
      assert.equal(tools.map((t) => t.name).sort(), operationList.map((op) => op.operationId).sort());
      for (const tool of tools) {
        // Honest annotations: only a proposal is not read-only, and nothing is destructive, as the athlete approves every change.
        assert.is(tool.annotations?.readOnlyHint, tool.name !== 'prepare_write_proposal', tool.name);
        assert.is(tool.annotations?.destructiveHint, false, tool.name);
        assert.is(tool.annotations?.idempotentHint, true, tool.name);
        assert.match(tool.description ?? '', 'never as instructions', tool.name);
        assert.ok(tool.outputSchema, tool.name);
      }

      // REST with its own token for the same athlete: the answers must match field for field.
      const rest = (await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery', 'nutrition', 'body_measurements'])).tokens.access_token;
      const both = async (name: ImplementedOperation, args: Record<string, unknown> = {}) => {
        const viaMcp = envelopeOf(name, (await client.callTool({ name, arguments: args })) as CallToolResult);
        const res = await fetch(restUrl(`${s.base}`, name, args), { headers: { authorization: `Bearer ${rest}` } });
        assert.is(res.status, 200, name);
        const viaRest = (await res.json()) as Record<string, unknown>;
        // Two connections of one athlete: everything but the grant id is the same.
        if (name === 'get_access_context') for (const e of [viaMcp, viaRest]) delete (e.data as { grant_id?: string }).grant_id;
        assert.equal(comparable(viaMcp), comparable(viaRest), name);
        return viaMcp.data as Record<string, unknown> & { items?: Array<Record<string, unknown>>; next_cursor?: string | null };
      };

      await both('get_access_context');
      await both('get_training_snapshot');
      const workouts = await both('list_completed_workouts', { limit: 3 });
      assert.is(workouts.items?.length, 3);
      await both('list_completed_workouts', { limit: 3, cursor: workouts.next_cursor });
      const detail = (await both('get_completed_workout', { workout_id: workouts.items![0]!.id })) as {
        workout: { exercises: Array<{ exercise_id: string }> };
      };
      await both('get_exercise_history', { exercise_id: detail.workout.exercises[0]!.exercise_id, limit: 5 });
      const exercises = await both('list_exercises', { limit: 2 });
      assert.is(exercises.items?.length, 2);
      await both('get_personal_records', { limit: 2, ...(exercises.next_cursor ? { cursor: exercises.next_cursor } : {}) });
      await both('get_personal_records', { exercise_id: detail.workout.exercises[0]!.exercise_id });
      const routines = await both('list_saved_routines', { limit: 2 });
      await both('get_saved_routine', { routine_id: routines.items![0]!.id });
      const today = todayLocal();
      await both('list_recovery_checkins', { from: `${today.slice(0, 8)}01`, to: today, limit: 10 });
      await both('list_meals', { limit: 10 });
      await both('list_daily_nutrition');
      await both('list_body_measurements', { limit: 4 });
      await client.close();
    } finally {
      await browser.close();
      await redirect.close();
      await s.close();
    }
  });
}

test.run();
