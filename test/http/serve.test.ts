// `repledger serve` (what `npm start` runs) as a user meets it: health, headers, errors, shutdown.
import type { ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cliJson, startCli } from '../support/cli.ts';

/**
 * The address `serve` listens on, from its "RepLedger is serving" log line: it is started on port
 * 0, so the system picks a free port and no other process can take it first.
 */
function servingAddress(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not say it was serving within ${timeoutMs / 1000} s; it printed: ${out}`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n').slice(0, -1)) {
        const entry = /^\{/.test(line) ? (JSON.parse(line) as { msg?: string; address?: string }) : {};
        if (entry.msg === 'RepLedger is serving') {
          clearTimeout(timer);
          resolve(entry.address!);
        }
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before serving; it printed: ${out}`));
    });
  });
}

test('serve answers /health with the stores it uses, then shuts down cleanly on SIGTERM', async () => {
  const dataDir = tempDir();
  const { child, done } = startCli(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  try {
    const base = await servingAddress(child);
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${base}/health`);
    assert.is(health.status, 200);
    assert.is(health.headers.get('cache-control'), 'private, no-store');
    assert.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const body = (await health.json()) as { status: string; stores: { events: { engine: string }; reads: { engine: string } }; projections: string };
    // Status and engine names, and nothing of where the data lives (issue 10.11).
    assert.equal(body, { status: 'ok', stores: { events: { engine: 'sqlite' }, reads: { engine: 'sqlite' } }, projections: 'inline' });
    // Where the data lives is the operator's to see, from the CLI.
    const status = await cliJson<{ stores: { events: { engine: string; path: string } }; projections: string }>(['status'], { DATA_DIR: dataDir });
    assert.is(status.stores.events.engine, 'sqlite');
    assert.ok(status.stores.events.path.startsWith(dataDir), status.stores.events.path);

    const missing = await fetch(`${base}/v1/nothing-here?x=1`);
    assert.is(missing.status, 404);
    const error = (await missing.json()) as { error: { code: string; message: string; request_id: string } };
    assert.is(error.error.code, 'not_found');
    assert.is(error.error.request_id, missing.headers.get('x-request-id'));
    assert.not.match(error.error.message, /x=1/);
  } finally {
    child.kill('SIGTERM');
  }
  const result = await done;
  assert.is(result.code, 0, result.stderr);
  const logs = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string });
  assert.ok(
    logs.some((l) => l.msg === 'shutting down'),
    'logs are structured JSON (pino) and say the service shut down',
  );
});

test('bad configuration is refused with what was wrong', async () => {
  const { done } = startCli(['serve'], { DATA_DIR: tempDir(), PORT: 'eighty' });
  const result = await done;
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /PORT/);
});

test.run();
