// Read-your-writes with projections in a worker (EMBEDDED_PROJECTIONS=worker, the mode distributed
// runs in) and two service instances on one database file: this process serves the agent (its
// OAuth needs its own address) and a `repledger serve` child serves the athlete; a `projections
// run` child projects. The worker is paused (SIGSTOP) to make it lag deterministically: what a
// write's author reads next waits for it, and answers 503 with Retry-After when it stays behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { startCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { startServer, FormClient } from '../support/server.ts';
import { tempDir } from '../support/app.ts';
import { restWrites, seedRecord, validBody } from '../support/writes.ts';
import { connect } from '../support/connect.ts';

const WORKER = { EMBEDDED_PROJECTIONS: 'worker' };

/** A child's stdout or stderr line that says it is ready, or a failure naming what it printed. */
function said(child: ChildProcess, stream: 'stdout' | 'stderr', match: (line: string) => string | null, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} not said within 60 s: ${out}`)), 60_000);
    child[stream]!.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n')) {
        const found = match(line);
        if (found !== null) {
          clearTimeout(timer);
          resolve(found);
        }
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before ${what}: ${out}`));
    });
  });
}

const servingAt = (line: string) => {
  if (!line.startsWith('{')) return null;
  const entry = JSON.parse(line) as { msg?: string; address?: string };
  return entry.msg === 'RepLedger is serving' ? entry.address! : null;
};

test('with projections in a worker that lags: the agent reads its proposal at once, the athlete opens approval_url on another instance at once, and after approving sees it saved', async () => {
  const dataDir = tempDir();
  const agentSide = await startServer({ dataDir, env: WORKER });
  const worker = startCli(['projections', 'run'], { DATA_DIR: dataDir, ...WORKER });
  // Behind one public address, as instances behind a load balancer are: the first's.
  const athleteSide = startCli(['serve', '--no-projector'], {
    DATA_DIR: dataDir,
    ...WORKER,
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: agentSide.base,
    LOG_LEVEL: 'info',
  });
  const paused = () => worker.child.kill('SIGSTOP');
  const resumed = () => worker.child.kill('SIGCONT');
  try {
    await said(worker.child, 'stderr', (l) => (l.includes('following the event log') ? l : null), 'the worker following');
    const other = await said(athleteSide.child, 'stdout', servingAt, 'the second instance serving');
    const app = agentSide.app;
    assert.is(app.projectionMode, 'worker');

    const athleteId = await registerPro(app);
    const seeded = await seedRecord(app, athleteId);
    await eventually(async () => ({ done: (await app.reads.get('meals', athleteId, seeded.mealId)) !== null, value: null }), {
      what: 'the seeded record projected',
    });
    // Connected while the worker stays paused: the client's first call waits for its connection and,
    // as the worker stays behind, is told to come back (503, Retry-After), never refused (401).
    paused();
    const { tokens } = await connect(agentSide.base, `${agentSide.base}/v1/agent-access`, ['nutrition'], 'nutrition');
    assert.equal(await app.connections.list(athleteId), [], 'the read models do not show the connection yet');
    const context = () => fetch(`${agentSide.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const early = await context();
    assert.is(early.status, 503, await early.clone().text());
    assert.is(early.headers.get('retry-after'), '2');
    resumed();
    assert.is((await context()).status, 200);
    const grant = await eventually(
      async () => {
        const [connection] = await app.connections.list(athleteId);
        return { done: connection !== undefined, value: connection! };
      },
      { what: 'the connection projected' },
    );
    await app.connections.setWritePermissions(athleteId, grant.id, ['nutrition:write', 'nutrition:delete'], { onlyRemove: false });
    await eventually(async () => ({ done: ((await app.connections.get(athleteId, grant.id))?.write_permissions?.length ?? 0) === 2, value: null }), {
      what: 'the permissions projected',
    });
    const agent = restWrites(agentSide.base, tokens.access_token);
    const athlete = new FormClient(other, agentSide.base);
    const signIn = await athlete.get('/sign-in');
    assert.is((await athlete.post('/sign-in', { email: 'ada@example.com', password: PASSWORD, _csrf: FormClient.csrf(signIn.text) })).status, 303);

    // Prepared while the worker is paused: nothing of it is in the read models.
    paused();
    const body = validBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
    const prepared = await agent.prepare(body);
    assert.is(prepared.status, 201, JSON.stringify(prepared.body));
    assert.is(await app.reads.get('proposals', athleteId, body.command_id), null, 'the read models do not show it yet');
    const path = new URL(prepared.body.data.proposal.approval_url).pathname;
    // The agent asks at once, the athlete opens the link at once on the other instance: both wait.
    const asked = agent.proposal(body.command_id);
    const opened = athlete.get(path);
    resumed();
    const answer = await asked;
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.data.proposal.status, 'prepared');
    const review = await opened;
    assert.is(review.status, 200, review.text.slice(0, 500));
    assert.match(review.text, 'Waiting for your review');

    // Approved on the other instance while the worker is paused: the page the 303 leads to waits for it.
    paused();
    const approved = await athlete.post(`${path}/approve`, { _csrf: FormClient.csrf(review.text), confirm_removals: '1' });
    assert.is(approved.status, 303);
    const after = athlete.get(approved.headers.get('location')!);
    resumed();
    const saved = await after;
    assert.is(saved.status, 200);
    assert.match(saved.text, 'Receipt');
    assert.not.match(saved.text, 'Waiting for your review');

    // A worker that stays behind: the page says "one moment" with Retry-After, never the page before the change.
    paused();
    const second = validBody([
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: new Date(Date.now() - 60_000).toISOString(), name: 'Oats again', calories_kcal: 300, protein_g: 10, carbohydrate_g: 50, fat_g: 5 },
      },
    ]);
    assert.is((await agent.prepare(second)).status, 201);
    const page = await athlete.get(`/proposals/${second.command_id}`);
    assert.is(page.status, 503);
    assert.is(page.headers.get('retry-after'), '2');
    const late = await agent.proposal(second.command_id);
    assert.is(late.status, 503);
    assert.is(late.body.error.code, 'unavailable');
    resumed();
    assert.is((await athlete.get(`/proposals/${second.command_id}`)).status, 200);
  } finally {
    resumed();
    worker.child.kill('SIGTERM');
    athleteSide.child.kill('SIGTERM');
    await Promise.all([worker.done, athleteSide.done]);
    await agentSide.close();
  }
});

test.run();
