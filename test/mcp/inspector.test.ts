// The MCP Inspector's CLI mode against the running server with a bearer token: it lists the tools
// (checking their schemas for portability) and calls them, as a developer would from a shell.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operations } from '../../contracts/operations.ts';
import { tempDir } from '../support/app.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const run = promisify(execFile);
const PACKAGE = join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'inspector');
const BIN = join(PACKAGE, (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']!);

test('the MCP Inspector CLI lists and calls the tools with a bearer token', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    await s.app.records.change(
      athleteId,
      [
        {
          op: 'create',
          kind: 'checkin',
          item: {
            id: '0b9d6f6e-3c1a-4f7e-9a55-2f1d8c7b6a10',
            date: new Date().toISOString().slice(0, 10),
            sleep_quality: 4,
            energy: 3,
            soreness: 2,
            stress: 5,
          },
        },
      ],
      { type: 'athlete', id: athleteId },
    );
    const { tokens } = await connect(s.base, `${s.base}/mcp`, ['training', 'recovery']);
    // The Inspector keeps a catalog under HOME; give it a throwaway one.
    const inspector = (...args: string[]) =>
      run(process.execPath, [BIN, '--cli', `${s.base}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${tokens.access_token}`, ...args], {
        env: { ...process.env, HOME: tempDir('repledger-inspector-') },
      });

    const listed = await inspector('--method', 'tools/list', '--strict');
    const { tools } = JSON.parse(listed.stdout) as { tools: Array<{ name: string; annotations: { readOnlyHint: boolean } }> };
    assert.equal(
      tools.map((t) => t.name).sort(),
      Object.values(operations)
        .filter((op) => op.scope === null || ['training', 'recovery'].includes(op.scope))
        .map((op) => op.operationId)
        .sort(),
    );
    assert.not.match(listed.stderr, /Warning|Error/, `schema portability: ${listed.stderr}`);

    const called = await inspector('--method', 'tools/call', '--tool-name', 'list_recovery_checkins', '--tool-arg', 'limit=2');
    const result = JSON.parse(called.stdout) as { structuredContent: unknown; isError?: boolean };
    assert.not.ok(result.isError);
    const envelope = operations.list_recovery_checkins.response.parse(result.structuredContent) as { data: { items: Array<{ sleep_quality: number }> } };
    assert.equal(
      envelope.data.items.map((c) => c.sleep_quality),
      [4],
    );

    // A tool error makes the Inspector exit non-zero and say so.
    const refused = await inspector('--method', 'tools/call', '--tool-name', 'list_recovery_checkins', '--tool-arg', 'limit=20').then(
      () => null,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    assert.ok(refused && refused.code !== 0);
    assert.match(refused.stdout + refused.stderr, 'tool_is_error');
  } finally {
    await s.close();
  }
});

test.run();
