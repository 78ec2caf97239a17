// Beyond tools: the server describes itself (a description, its website, an icon), offers the access
// context and the athlete's week as resources (each the same answer as its tool, under the same
// scope and quota), and prompts that put the tools to work and end in a proposal the athlete
// approves. A connection without the training area sees neither the week nor the training prompts.
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { comparable, envelopeOf, mcpClient } from './support.ts';

test('the server names itself with a description, a website and an icon', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const client = await mcpClient(s.base, (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token);
    const info = client.getServerVersion()!;
    assert.is(info.name, 'repledger');
    assert.match(info.description ?? '', "The athlete's fitness record");
    assert.is(info.websiteUrl, s.app.config.baseUrl);
    assert.match(info.icons?.[0]?.src ?? '', /^data:image\/svg\+xml;base64,/);
    assert.ok(client.getServerCapabilities()?.resources && client.getServerCapabilities()?.prompts);
  } finally {
    await s.close();
  }
});

test("resources: the access context and the athlete's week, each the answer of its tool", async () => {
  // A still clock: an answer carries the time it was computed, and the two must agree.
  const s = await startServer({ clock: fixedClock('2026-06-10T10:00:00.000Z') });
  try {
    await registerPro(s.app);
    const client = await mcpClient(s.base, (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token);
    const { resources } = await client.listResources();
    assert.equal(
      resources.map((r) => r.uri),
      ['repledger://access-context', 'repledger://training/this-week'],
    );
    for (const [uri, tool] of [
      ['repledger://access-context', 'get_access_context'],
      ['repledger://training/this-week', 'get_training_snapshot'],
    ] as const) {
      const read = await client.readResource({ uri });
      const content = read.contents[0] as { uri: string; mimeType: string; text: string };
      assert.is(content.mimeType, 'application/json');
      const called = envelopeOf(tool, (await client.callTool({ name: tool, arguments: {} })) as never);
      assert.equal(comparable(JSON.parse(content.text)), comparable(called), uri);
    }
    const missing = await client.readResource({ uri: 'repledger://nothing' }).catch((e: unknown) => e);
    assert.instance(missing, McpError);
    assert.is((missing as McpError).code, -32002);
  } finally {
    await s.close();
  }
});

test('prompts: review my last week and plan next week, using the tools and ending in a proposal; none for a connection without training', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const client = await mcpClient(s.base, (await connect(s.base, `${s.base}/mcp`, ['training', 'recovery'])).tokens.access_token);
    const { prompts } = await client.listPrompts();
    assert.equal(
      prompts.map((p) => p.name),
      ['review-my-last-week', 'plan-next-weeks-routine'],
    );
    const review = await client.getPrompt({ name: 'review-my-last-week', arguments: { focus: 'squat volume' } });
    const text = (review.messages[0]!.content as { text: string }).text;
    for (const tool of ['get_training_snapshot', 'list_completed_workouts', 'get_write_context', 'prepare_write_proposal']) assert.match(text, tool);
    assert.match(text, 'Focus on: squat volume.');
    assert.match(text, 'nothing changes until I approve it');
    const plan = await client.getPrompt({ name: 'plan-next-weeks-routine', arguments: { days: '4' } });
    assert.match((plan.messages[0]!.content as { text: string }).text, 'I can train 4 days next week.');
    const unknown = await client.getPrompt({ name: 'nope' }).catch((e: unknown) => e);
    assert.instance(unknown, McpError);

    const nutritionOnly = await mcpClient(s.base, (await connect(s.base, `${s.base}/mcp`, ['nutrition'])).tokens.access_token);
    assert.equal((await nutritionOnly.listPrompts()).prompts, []);
    assert.equal(
      (await nutritionOnly.listResources()).resources.map((r) => r.uri),
      ['repledger://access-context'],
    );
  } finally {
    await s.close();
  }
});

test.run();
