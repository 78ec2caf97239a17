// The floor under prepare_write_proposal: the batch the HTTP cases send, prepared through the
// service in a process of its own with no HTTP at all. What is left is the command itself: load and
// fold the athlete's record stream, decide the batch, seal its details and append the proposal.
// What the surfaces add on top (the request, the token's lookup, the quota, tRPC and validation,
// the envelope and serialising it) is the difference. Started by bench/prepare-floor.ts, which
// sends one message and gets one reply.
import { randomUUID } from 'node:crypto';
import { READ_SCOPES } from '../contracts/common.ts';
import { writeProposalBody, type WriteProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/identity/caller.ts';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { FRESH_UUID } from './http.ts';
import { BENCH_PROPOSAL_LIMITS } from './server.ts';
import type { Load, Measurement } from './measure.ts';

export interface PrepareFloorMessage {
  dataDir: string;
  athleteId: string;
  /** The REST connection the HTTP cases prepared with: the same permissions and scopes. */
  grantId: string;
  /** The HTTP case's request body, with FRESH_UUID for its command id. */
  body: string;
  /** Concurrent callers stand in for connections; seconds and warm-up as for the HTTP cases. */
  load: Load;
}

/** The record stream as the floor found it, and how long loading it (reading and folding) took once. */
export interface StreamFacts {
  events: number;
  proposals: number;
  loadMs: number;
}

export type PrepareFloorReply = { kind: 'measured'; measurement: Measurement; stream: StreamFacts } | { kind: 'failed'; error: string };

/** The caller the server builds for this connection (services/api/auth.ts), without a token to look up. */
async function callerOf(app: App, athleteId: string, grantId: string): Promise<Caller> {
  const [connection, athlete] = await Promise.all([app.connections.get(athleteId, grantId), app.athletes.get(athleteId)]);
  if (connection?.status !== 'connected' || !athlete) throw new Error(`no connected grant ${grantId} of athlete ${athleteId}`);
  const { password_hash: _hash, ...account } = athlete;
  return {
    athlete: account,
    grantId,
    clientId: connection.client_id,
    clientName: connection.client_name,
    scopes: READ_SCOPES.filter((s) => connection.scopes.includes(s)),
    writePermissions: connection.write_permissions ?? [],
  };
}

/**
 * `concurrency` callers preparing back to back for `seconds`; like autocannon, only calls that
 * finish within the window count, and the ones still running at its end are waited for.
 */
async function drive(prepare: () => Promise<unknown>, concurrency: number, seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      await prepare();
      const done = performance.now();
      if (done <= end) latencies.push(done - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]! : NaN);
  return {
    responses: latencies.length,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: at(50),
    p99Ms: at(99),
    bytesPerResponse: 0,
    cpuUsPerResponse: latencies.length ? (cpu.user + cpu.system) / latencies.length : null,
  };
}

async function streamFacts(app: App, athleteId: string): Promise<StreamFacts> {
  const started = performance.now();
  // Once, cold: on the 10,000-workout record a load takes seconds, and the floor's p50 shows the rest.
  const { revision, proposals } = await app.records.load(athleteId);
  const loadMs = performance.now() - started;
  return { events: revision === 'no_stream' ? 0 : Number(revision) + 1, proposals: proposals.size, loadMs };
}

async function measureFloor(message: PrepareFloorMessage): Promise<PrepareFloorReply> {
  const app = await openApp(loadConfig({ DATA_DIR: message.dataDir, LOG_LEVEL: 'silent', ...BENCH_PROPOSAL_LIMITS }));
  try {
    const caller = await callerOf(app, message.athleteId, message.grantId);
    // Validated once, as tRPC does for every request: the floor keeps only the service's work.
    const body: WriteProposalBody = writeProposalBody.parse(JSON.parse(message.body.replaceAll(FRESH_UUID, randomUUID())));
    const prepare = async () => {
      const proposal = await app.proposals.prepare(caller, { ...body, command_id: randomUUID() });
      if (proposal.status !== 'prepared') throw new Error(`the floor's prepare answered a proposal ${proposal.status}`);
    };
    const stream = await streamFacts(app, message.athleteId);
    const { connections, seconds, warmupSeconds } = message.load;
    if (warmupSeconds > 0) await drive(prepare, connections, warmupSeconds);
    return { kind: 'measured', measurement: await drive(prepare, connections, seconds), stream };
  } finally {
    await app.close();
  }
}

process.once('message', (message: PrepareFloorMessage) => {
  void measureFloor(message)
    .catch((error: unknown): PrepareFloorReply => ({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
    .then((reply) => process.send?.(reply, () => process.disconnect()));
});
