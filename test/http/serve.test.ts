// `repledger serve` (what `npm start` runs) as a user meets it: health, headers, errors, shutdown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';
import { cliJson, startCli } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';

async function waitForHealth(base: string, timeoutMs = 20_000): Promise<Response> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(`${base}/health`);
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test('serve answers /health with the stores it uses, then shuts down cleanly on SIGTERM', async () => {
  const port = await freePort();
  const dataDir = tempDir();
  const { child, done } = startCli(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  try {
    const base = `http://127.0.0.1:${port}`;
    const health = await waitForHealth(base);
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
  const logs = result.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string });
  assert.ok(logs.some((l) => l.msg === 'shutting down'), 'logs are structured JSON (pino) and say the service shut down');
});

test('bad configuration is refused with what was wrong', async () => {
  const { done } = startCli(['serve'], { DATA_DIR: tempDir(), PORT: 'eighty' });
  const result = await done;
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /PORT/);
});

test.run();
