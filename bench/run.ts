// `npm run bench`: the Agent Access operations and the Read API under load, reads next to a bare
// node:http ceiling, the write proposal next to the same batch prepared in-process (its floor).
//
// Seeds two Pro athletes (100 and 10,000 workouts) into a fresh embedded store, gives each a bot
// token, starts `repledger serve` on it, connects over OAuth and has the athlete allow every write
// permission in the permission form, then drives every operation with autocannon over REST and as
// an MCP tool call, and every Read API route right after its Agent Access twin, and prints
// requests/s and p50/p99 latency per operation, surface and athlete; each REST read's throughput as
// a fraction of the ceiling and the 10,000-workout latency as a multiple of the 100-workout one;
// each MCP call's throughput as a fraction of REST's for the same athlete (MCP runs for the
// 10,000-workout athlete only), beside what its MCP floor allows; each Read API route's as a
// fraction of its twin's over REST; each prepare_write_proposal (a 10-change batch, a new
// command_id per request) as a fraction of its floor; approving and undoing a 50-change batch
// against appending its events. Exits non-zero on errors (any response but the operation's
// success status, a tool call not answering its envelope, a Read API answer outside its contract),
// not on missed targets.
//
// Environment: BENCH_SECONDS (3) and BENCH_WARMUP_SECONDS (0.5) per case, BENCH_CONNECTIONS (32),
// BENCH_WRITE_SECONDS (15) and BENCH_WRITE_CONNECTIONS (2) for writes, BENCH_PASSES (2: runs of each
// read and of its floor, the best of each figure kept), BENCH_OPERATIONS
// (comma-separated operationIds, Agent Access or Read API; naming an Agent Access operation also
// measures its Read API twin; all by default), BENCH_DATA_DIR (seed there and keep it; a later run
// reuses it), BENCH_PROFILE_DIR (run the server with --cpu-prof into it).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { tempDir } from '../test/support/app.ts';
import { SURFACES, type BenchAthlete, type Case, type CaseContext, type Surface } from './cases.ts';
import { startCeiling, startFloor, type Ceiling, type Floor } from './ceiling.ts';
import type { Framework } from './floor-server.ts';
import { send, withBearer, type CapturedResponse } from './http.ts';
import { measure, measureInTurns, type Load, type Measurement, type Run } from './measure.ts';
import { measurePrepareFloor, type PrepareFloorMeasured } from './prepare-floor.ts';
import { formatReview, measureReview } from './review.ts';
import { formatPendingList, measurePendingList } from './pending-list.ts';
import { formatColdCommand, measureColdCommand } from './cold-command.ts';
import { formatCli, measureCli } from './cli.ts';
import { formatBackup, measureBackup } from './backup.ts';
import { formatImportStalls, measureImportStalls } from './import-stall.ts';
import { formatImporters, measureImporters } from './importers.ts';
import { formatProjectionThroughput, formatRebuildLag, measureProjectionThroughput, measureRebuildLag } from './projection.ts';
import {
  formatFloors,
  formatPrepareFloors,
  formatSummary,
  formatTable,
  machineInfo,
  operationResult,
  PREPARE,
  prepareFloorResult,
  relateToRest,
  summarise,
  type BenchResults,
  type FloorMeasurement,
  type FloorResult,
  type OperationResult,
} from './report.ts';
import { seedAthlete, todayLocal, trainingHistory, type AthleteSpec, type SeededAthlete } from '../test/support/sample-record.ts';
import { startServer, type RunningServer } from './server.ts';
import { Tokens } from './tokens.ts';

/** The short history first: latency ratios are of the last athlete over the first. */
const ATHLETES: AthleteSpec[] = [
  { label: '100', email: 'athlete-100@bench.example', workouts: 100 },
  { label: '10000', email: 'athlete-10000@bench.example', workouts: 10_000 },
];
const MANIFEST = 'bench-seed.json';
const RESULTS_FILE = join(tmpdir(), 'repledger-bench-latest.json');
/** Outside the data directory, which is removed at the end: the log outlives a failed run. */
const SERVER_LOG = join(tmpdir(), 'repledger-bench-server.log');
/** autocannon itself runs cold at first; one discarded run against the ceiling warms it. */
const LOAD_GENERATOR_WARMUP_SECONDS = 2;

interface Settings {
  load: Load;
  /**
   * For writes. Commands on one athlete's record run one at a time, so more connections only queue
   * (throughput stays, latency grows with the queue): two keep the next command waiting, while 32
   * queued prepares of 1-2 s each on the 10,000-workout record would wait a minute and none would
   * finish within a run. Longer than a read's, so that even that record's one prepare a second or
   * less gives a count worth dividing.
   */
  writeLoad: Load;
  operations: string[] | null;
  /** How many runs of each read (and of its floor) are made; the best of each figure is kept. */
  passes: number;
  dataDir: string | null;
  profileDir: string | null;
}

interface Manifest {
  athletes: SeededAthlete[];
  seedingSeconds: Record<string, number>;
}

function settingsFromEnv(env: NodeJS.ProcessEnv): Settings {
  const positive = (name: string, fallback: number, min = 0) => {
    const value = env[name] === undefined ? fallback : Number(env[name]);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}`);
    return value;
  };
  const warmupSeconds = positive('BENCH_WARMUP_SECONDS', 0.5);
  return {
    load: { connections: positive('BENCH_CONNECTIONS', 32, 1), seconds: positive('BENCH_SECONDS', 3, 1), warmupSeconds },
    writeLoad: { connections: positive('BENCH_WRITE_CONNECTIONS', 2, 1), seconds: positive('BENCH_WRITE_SECONDS', 15, 1), warmupSeconds },
    operations: env.BENCH_OPERATIONS ? env.BENCH_OPERATIONS.split(',').map((s) => s.trim()) : null,
    passes: positive('BENCH_PASSES', 2, 1),
    dataDir: env.BENCH_DATA_DIR ? resolve(env.BENCH_DATA_DIR) : null,
    profileDir: env.BENCH_PROFILE_DIR ? resolve(env.BENCH_PROFILE_DIR) : null,
  };
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

/** Seeds a data directory, or reuses one a previous run seeded (BENCH_DATA_DIR). */
async function seeded(dataDir: string): Promise<Manifest> {
  const manifestFile = join(dataDir, MANIFEST);
  if (existsSync(manifestFile)) {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
    const same =
      manifest.athletes.length === ATHLETES.length && manifest.athletes.every((a, i) => a.label === ATHLETES[i]!.label && a.workouts === ATHLETES[i]!.workouts);
    if (!same) throw new Error(`${dataDir} was seeded for other athletes; remove it or choose another BENCH_DATA_DIR`);
    progress(`reusing the athletes seeded in ${dataDir} (last workouts on ${manifest.athletes[0]!.lastWorkoutDate})`);
    return manifest;
  }
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const history = trainingHistory(Math.max(...ATHLETES.map((a) => a.workouts)), todayLocal());
    const manifest: Manifest = { athletes: [], seedingSeconds: {} };
    for (const spec of ATHLETES) {
      const started = performance.now();
      manifest.athletes.push(await seedAthlete(app, spec, history, dataDir));
      manifest.seedingSeconds[spec.label] = (performance.now() - started) / 1000;
      progress(`seeded ${spec.workouts} workouts and the rest of the record in ${manifest.seedingSeconds[spec.label]!.toFixed(1)} s`);
    }
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    return manifest;
  } finally {
    await app.close();
  }
}

/**
 * A bot token per athlete, made before the server starts (on a reused store too: tokens are shown
 * only once, so a run makes its own), as `repledger bot-tokens create` makes them.
 */
async function createBotTokens(dataDir: string, athletes: SeededAthlete[]): Promise<Map<string, string>> {
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const tokens = new Map<string, string>();
    for (const a of athletes)
      tokens.set(a.email, (await app.botTokens.create(a.athleteId, `Bench ${new Date().toISOString()}`, { type: 'operator', id: 'bench' })).token);
    return tokens;
  } finally {
    await app.close();
  }
}

/** Every case's response as the server gives it: checked to be its success, and what the ceiling replays. */
async function capture(server: RunningServer, cases: Case[], authorize: (c: Case) => Promise<Case['request']>): Promise<Map<Case, CapturedResponse>> {
  const captured = new Map<Case, CapturedResponse>();
  for (const c of cases) {
    const response = await send(server.base, await authorize(c));
    if (response.status !== c.request.expectedStatus)
      throw new Error(
        `${c.surface} ${c.operation} for athlete ${c.athlete.label} answered ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`,
      );
    captured.set(c, response);
  }
  return captured;
}

/**
 * Per operation, its cases by surface in SURFACES order (REST first), athletes in ATHLETES order;
 * a Read API route goes with its twin, after it. An operation's surfaces are measured in the same
 * passes (REST, MCP, Read API, then back), so that MCP and the Read API are compared with runs of
 * REST made under the same conditions as theirs, and printed right after it.
 */
function byOperation(cases: Case[]): Case[][][] {
  const groups = new Map<string, Map<Surface, Case[]>>();
  for (const c of cases) {
    const key = c.twin ?? c.operation;
    const surfaces = groups.get(key) ?? new Map<Surface, Case[]>();
    surfaces.set(c.surface, [...(surfaces.get(c.surface) ?? []), c]);
    groups.set(key, surfaces);
  }
  return [...groups.values()].map((surfaces) => [...surfaces.values()]);
}

/**
 * The best of two runs, figure by figure: the most requests/s, the lowest p50, p99 and CPU per
 * response. Other work on the machine only ever worsens a figure, and it does not strike each figure
 * in the same run: a p99 of 32 connections over 3 s is set by the few pauses in that window, and
 * moved by half from one run to the next where requests/s moved by a few percent. Every case (both
 * athletes alike) keeps its best of each. The ratios the targets ask for are taken from the turns,
 * all of which are kept (report.ts, `pairedRatio`).
 */
function best(a: Measurement | null, b: Measurement): Measurement {
  if (!a) return b;
  const faster = a.requestsPerSecond >= b.requestsPerSecond ? a : b;
  const cpu = a.cpuUsPerResponse === null || b.cpuUsPerResponse === null ? null : Math.min(a.cpuUsPerResponse, b.cpuUsPerResponse);
  const merged: Measurement = { ...faster, p50Ms: Math.min(a.p50Ms, b.p50Ms), p99Ms: Math.min(a.p99Ms, b.p99Ms), cpuUsPerResponse: cpu };
  if (a.turns && b.turns) merged.turns = [...a.turns, ...b.turns];
  else delete merged.turns;
  return merged;
}

/** Reads are compared with the ceiling; a write with its floor (see measureWrites). */
const hasCeiling = (c: Case) => (SURFACES[c.surface]?.ceiling ?? false) && c.access === 'read';
const loadOf = (settings: Settings, c: Case) => (c.access === 'write' ? settings.writeLoad : settings.load);

/** A read group's ceiling, on its long-history athlete's answer; null where its surface has none. */
async function measureCeiling(
  settings: Settings,
  ceiling: Ceiling,
  captured: Map<Case, CapturedResponse>,
  authorize: (c: Case) => Promise<Case['request']>,
  group: Case[],
): Promise<Measurement | null> {
  const reference = group[group.length - 1]!;
  if (!hasCeiling(reference)) return null;
  // One ceiling per operation, answering with the long-history athlete's bytes: the athletes'
  // answers differ by a few bytes at most (the same recent workouts, ids of the same length),
  // and a ceiling per case would add a third to the run for no information.
  progress(`${reference.surface} ${reference.operation}: ceiling`);
  await ceiling.serve(captured.get(reference)!);
  return measure(ceiling.base, await authorize(reference), settings.load, ceiling.pid);
}

/** The floor process each operation is measured against, and one that also signs a list's cursor (see floorRun). */
interface FloorServers {
  floor: Floor;
  signing: Floor;
}

/**
 * A read group's floor made ready to be measured: the floor process answering the group's
 * long-history request with its bytes, after the store reads the service made for it; and, given
 * the operation's MCP case (of the same athlete), its tool call through the SDK's Server after the
 * same reads, the answer written as the service writes it (`mcpRun`). Where the answer carries a
 * `next_cursor`, the signing floor answers the same after the same reads, signing the cursor
 * again for each request (`signingRun`).
 */
async function floorRun(
  floors: FloorServers,
  captured: Map<Case, CapturedResponse>,
  authorize: (c: Case) => Promise<Case['request']>,
  group: Case[],
  mcp: Case | null,
  load: Load,
): Promise<{ athlete: string; storeCalls: string[]; run: Run; mcpRun: Run | null; signingRun: Run | null }> {
  // The floor is the long-history athlete's: issue 18's targets are stated on it.
  const reference = group[group.length - 1]!;
  if (mcp && mcp.athlete !== reference.athlete)
    throw new Error(`the MCP floor of ${mcp.operation} is measured for athlete ${reference.athlete.label}, not ${mcp.athlete.label}`);
  const request = await authorize(reference);
  const response = captured.get(reference)!;
  const storeCalls = await floors.floor.serve(response, request, mcp && captured.get(mcp)!);
  const signing = hasNextCursor(response) ? floors.signing : null;
  if (signing) await signing.serve(response, request, null, true);
  const run = (floor: Floor, request: Case['request']): Run => ({ base: floor.base, request, load, serverPid: floor.pid });
  return {
    athlete: reference.athlete.label,
    storeCalls,
    run: run(floors.floor, request),
    mcpRun: mcp && run(floors.floor, await authorize(mcp)),
    signingRun: signing && run(signing, request),
  };
}

/** Whether a read's answer is a page with another after it: one whose cursor the service signed. */
function hasNextCursor(response: CapturedResponse): boolean {
  const { data } = JSON.parse(response.body.toString('utf8')) as { data?: { next_cursor?: unknown } };
  return typeof data?.next_cursor === 'string';
}

async function measureAll(
  settings: Settings,
  server: RunningServer,
  ceiling: Ceiling,
  floorServers: FloorServers | null,
  tokens: Tokens,
  cases: Case[],
): Promise<OperationResult[]> {
  if (cases.length === 0) return [];
  const authorize = async (c: Case) => withBearer(c.request, await tokens.bearer(c.athlete.email, c.resource));
  const captured = await capture(server, cases, authorize);
  const first = cases[0]!;
  await ceiling.serve(captured.get(first)!);
  await measure(ceiling.base, await authorize(first), { ...settings.load, seconds: LOAD_GENERATOR_WARMUP_SECONDS, warmupSeconds: 0 });
  const operations = byOperation(cases);
  const ceilings: Array<Array<Measurement | null>> = [];
  for (const groups of operations) {
    const measured: Array<Measurement | null> = [];
    for (const group of groups) measured.push(await measureCeiling(settings, ceiling, captured, authorize, group));
    ceilings.push(measured);
  }
  // Reads are measured in passes over every operation. In each pass an operation's floors (REST's,
  // a list's signing floor, MCP's) and its surfaces and athletes (REST 100, REST 10,000, MCP
  // 10,000, the Read API) are measured in turns
  // (measureInTurns), so that the figures each ratio divides come from the same stretch of time,
  // and each case keeps the best of each figure over the passes (`best`), minutes apart. A write
  // runs once, under its long load, on its own.
  const readsOf = (groups: Case[][]) => groups[0]![0]!.access === 'read';
  const passesOf = (groups: Case[][]) => (readsOf(groups) ? settings.passes : 1);
  const floors: Array<Array<FloorMeasurement | null>> = operations.map((groups) => groups.map(() => null));
  const kept = new Map<Case, Measurement>();
  for (let pass = 0; pass < Math.max(...operations.map(passesOf)); pass++) {
    for (const [i, groups] of operations.entries()) {
      const passes = passesOf(groups);
      if (pass >= passes) continue;
      const reads = readsOf(groups);
      const runs: Array<{ label: string; run: Run; keep: (m: Measurement) => void }> = [];
      // An operation's floor (REST's), with its MCP floor where it has an MCP case: the floor
      // process is made ready for one operation at a time.
      const j = floorServers ? groups.findIndex((group) => hasCeiling(group[group.length - 1]!)) : -1;
      if (floorServers && j >= 0) {
        const m = groups.findIndex((group) => group[0]!.surface === 'mcp');
        const f = await floorRun(floorServers, captured, authorize, groups[j]!, m >= 0 ? groups[m]![groups[m]!.length - 1]! : null, settings.load);
        const floorAt = (k: number) => floors[i]![k] ?? null;
        const keepFloor = (k: number) => (x: Measurement) =>
          (floors[i]![k] = {
            athlete: f.athlete,
            storeCalls: f.storeCalls,
            measurement: best(floorAt(k)?.measurement ?? null, x),
            signing: floorAt(k)?.signing ?? null,
          });
        // Measured in the same turns as the floor, whose keep comes first.
        const keepSigning = (x: Measurement) => (floors[i]![j] = { ...floorAt(j)!, signing: best(floorAt(j)!.signing, x) });
        const name = groups[j]![0]!.operation;
        runs.push({ label: `${groups[j]![0]!.surface} ${name}: floor (Fastify, the service's store reads, the bytes)`, run: f.run, keep: keepFloor(j) });
        if (f.signingRun)
          runs.push({
            label: `${groups[j]![0]!.surface} ${name}: floor signing its cursor (the same, and encodeCursor)`,
            run: f.signingRun,
            keep: keepSigning,
          });
        if (f.mcpRun)
          runs.push({ label: `mcp ${name}: floor (Fastify, the same reads, the SDK's Server, the answer written)`, run: f.mcpRun, keep: keepFloor(m) });
      }
      for (const c of groups.flat()) {
        runs.push({
          label: `${c.surface} ${c.operation}: athlete ${c.athlete.label}`,
          run: { base: server.base, request: await authorize(c), load: loadOf(settings, c), serverPid: server.pid },
          keep: (m) => kept.set(c, best(kept.get(c) ?? null, m)),
        });
      }
      const round = passes > 1 ? `, pass ${pass + 1} of ${passes}` : '';
      for (const batch of reads ? [runs] : runs.map((r) => [r])) {
        progress(`${batch.map((r) => r.label).join('; ')}${batch.length > 1 ? ', in turns' : ''}${round}`);
        server.checkAlive();
        const measured = await measureInTurns(batch.map((r) => r.run));
        batch.forEach((r, k) => {
          const m = measured[k]!;
          progress(
            `  ${r.label}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, ${m.cpuUsPerResponse?.toFixed(0) ?? '-'} µs CPU`,
          );
          r.keep(m);
        });
      }
    }
  }
  const results: OperationResult[] = [];
  for (const [i, groups] of operations.entries()) {
    groups.forEach((group, j) => {
      const reference = group[group.length - 1]!;
      const measured = group.map((c) => ({ athlete: c.athlete.label, measurement: kept.get(c)! }));
      results.push(
        operationResult(
          reference.operation,
          reference.surface,
          reference.access,
          ceilings[i]![j] ?? null,
          measured,
          reference.twin ?? null,
          floors[i]![j] ?? null,
        ),
      );
    });
  }
  return relateToRest(results);
}

/** Each reference server of the breakdown: a framework, replaying the bytes after the store reads or without them. */
const FLOORS: Array<{ framework: Framework; read: boolean }> = [
  { framework: 'node:http', read: false },
  { framework: 'fastify', read: false },
  { framework: 'node:http', read: true },
];

/** The operation whose floor is broken down into the framework and the reads. */
const BREAKDOWN_OPERATION = 'list_recovery_checkins';

/**
 * Where the ceiling's throughput goes under one list operation: reference servers that answer the
 * ceiling's bytes over node:http and Fastify, and after the service's store reads over node:http,
 * beside the Fastify floor each operation is measured against. Null when that operation was not
 * measured.
 */
async function measureBreakdown(
  settings: Settings,
  dataDir: string,
  server: RunningServer,
  tokens: Tokens,
  cases: Case[],
  operations: OperationResult[],
): Promise<FloorResult | null> {
  const measured = operations.find((o) => o.surface === 'rest' && o.operation === BREAKDOWN_OPERATION);
  const c = cases.filter((x) => x.surface === 'rest' && x.operation === BREAKDOWN_OPERATION).at(-1);
  if (!measured?.ceiling || !measured.floor || !c) return null;
  const request = withBearer(c.request, await tokens.bearer(c.athlete.email, c.resource));
  const response = await send(server.base, request);
  const floors: FloorResult['floors'] = [];
  for (const { framework, read } of FLOORS) {
    const floor = await startFloor(framework, dataDir, server.base);
    try {
      await floor.serve(response, read ? request : null);
      progress(`rest ${c.operation}: over ${framework}${read ? ', with the store reads' : ''}`);
      const measurement = await measure(floor.base, request, settings.load, floor.pid);
      floors.push({ framework, read, measurement, ofCeiling: measurement.requestsPerSecond / measured.ceiling.requestsPerSecond });
    } finally {
      floor.stop();
    }
  }
  const ofCeiling = (m: Measurement) => m.requestsPerSecond / measured.ceiling!.requestsPerSecond;
  floors.push({ framework: 'fastify', read: true, measurement: measured.floor.measurement, ofCeiling: ofCeiling(measured.floor.measurement) });
  const signing = measured.floor.signing;
  if (signing) floors.push({ framework: 'fastify', read: true, signs: true, measurement: signing, ofCeiling: ofCeiling(signing) });
  const service = measured.cases.find((x) => x.athlete === c.athlete.label)!;
  return { operation: c.operation, athlete: c.athlete.label, ceiling: measured.ceiling, service: service.measurement, floors };
}

/**
 * The writes, between two measurements of their floor. Every prepare appends its proposal to the
 * athlete's record stream (~19 KB a proposal), so the stream grows while the writes are measured;
 * each surface is compared with the mean of the floor just before and just after.
 */
async function measureWrites(settings: Settings, dataDir: string, manifest: Manifest, server: RunningServer, ceiling: Ceiling, tokens: Tokens, cases: Case[]) {
  const prepares = cases.filter((c) => c.surface === 'rest' && c.operation === PREPARE);
  const before = await prepareFloors(settings, dataDir, manifest, tokens, prepares, 'before');
  const operations = await measureAll(settings, server, ceiling, null, tokens, cases);
  const after = await prepareFloors(settings, dataDir, manifest, tokens, prepares, 'after');
  return { operations, prepareFloors: prepares.map((c, i) => prepareFloorResult(c.athlete.label, before[i]!, after[i]!, operations)) };
}

/**
 * The floor under each REST prepare case: its batch prepared in a process of its own through the
 * service, for the same connection, under the same concurrency.
 */
async function prepareFloors(
  settings: Settings,
  dataDir: string,
  manifest: Manifest,
  tokens: Tokens,
  prepares: Case[],
  when: string,
): Promise<PrepareFloorMeasured[]> {
  const floors: PrepareFloorMeasured[] = [];
  for (const c of prepares) {
    const athlete = manifest.athletes.find((a) => a.label === c.athlete.label)!;
    const { grantId } = await tokens.connection(c.athlete.email, c.resource);
    progress(`${PREPARE}: floor ${when}, athlete ${athlete.label}`);
    floors.push(await measurePrepareFloor({ dataDir, athleteId: athlete.athleteId, grantId, body: c.request.body!, load: settings.writeLoad }));
  }
  return floors;
}

async function buildCases(ctx: CaseContext, only: string[] | null): Promise<Case[]> {
  const cases: Case[] = [];
  for (const surface of Object.values(SURFACES)) if (surface) cases.push(...(await surface.build(ctx)));
  const unknown = (only ?? []).filter((op) => !cases.some((c) => c.operation === op));
  if (unknown.length) throw new Error(`BENCH_OPERATIONS names no operation ${unknown.join(', ')}`);
  return only ? cases.filter((c) => only.includes(c.operation) || (c.twin !== undefined && only.includes(c.twin))) : cases;
}

async function main(): Promise<void> {
  const settings = settingsFromEnv(process.env);
  const started = performance.now();
  const dataDir = settings.dataDir ?? tempDir('repledger-bench-');
  mkdirSync(dataDir, { recursive: true });
  let server: RunningServer | null = null;
  let ceiling: Ceiling | null = null;
  // Each floor process as it starts, so that every one started is stopped, whatever fails after.
  const floorProcesses: Floor[] = [];
  const startedFloor = async (serviceBase: string) => {
    const floor = await startFloor('fastify', dataDir, serviceBase);
    floorProcesses.push(floor);
    return floor;
  };
  try {
    const manifest = await seeded(dataDir);
    const botTokens = await createBotTokens(dataDir, manifest.athletes);
    const nodeFlags = settings.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`] : [];
    server = await startServer({ dataDir, logFile: SERVER_LOG, nodeFlags });
    ceiling = await startCeiling();
    const floorServers: FloorServers = { floor: await startedFloor(server.base), signing: await startedFloor(server.base) };
    progress(`server ${server.base} (log ${SERVER_LOG}), ceiling ${ceiling.base}`);

    const tokens = new Tokens(server.base, botTokens);
    const athletes: BenchAthlete[] = manifest.athletes.map((a) => ({ label: a.label, email: a.email }));
    const cases = await buildCases({ base: server.base, athletes, bearer: (a, resource) => tokens.bearer(a.email, resource) }, settings.operations);
    const reads = await measureAll(
      settings,
      server,
      ceiling,
      floorServers,
      tokens,
      cases.filter((c) => c.access === 'read'),
    );
    const writes = await measureWrites(
      settings,
      dataDir,
      manifest,
      server,
      ceiling,
      tokens,
      cases.filter((c) => c.access === 'write'),
    );
    const operations = [...reads, ...writes.operations];
    const floors = await measureBreakdown(settings, dataDir, server, tokens, cases, operations);
    const { prepareFloors } = writes;
    progress('approving and undoing 50-change batches, and their floor');
    const review = await measureReview(
      dataDir,
      manifest.athletes.map((a) => ({ label: a.label, athleteId: a.athleteId })),
    );
    progress('the CLI: --help, athletes list, a three-year Hevy import');
    const cli = await measureCli();
    progress('distributed mode: a cold command, requests during an import, projection throughput and a rebuild');
    const distributed = {
      coldCommand: await measureColdCommand(progress),
      importStalls: await measureImportStalls(),
      projection: await measureProjectionThroughput(),
      rebuildLag: await measureRebuildLag(),
    };

    const results: BenchResults = {
      at: new Date().toISOString(),
      machine: machineInfo(),
      load: settings.load,
      writeLoad: settings.writeLoad,
      seedingSeconds: manifest.seedingSeconds,
      operations,
      floors,
      prepareFloors,
      review,
      cli,
      distributed,
      summary: summarise(operations, prepareFloors),
    };
    writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2));
    const blocks = [
      formatTable(operations),
      floors ? formatFloors(floors) : null,
      prepareFloors.length ? formatPrepareFloors(prepareFloors) : null,
      formatReview(review),
      formatCli(cli),
      formatColdCommand(distributed.coldCommand),
      formatImportStalls(distributed.importStalls),
      formatProjectionThroughput(distributed.projection),
      formatRebuildLag(distributed.rebuildLag),
      formatSummary(
        results,
        athletes.map((a) => a.label),
        RESULTS_FILE,
      ),
    ];
    console.log(`\n${blocks.filter((b) => b !== null).join('\n\n')}`);
    console.log(
      `whole run: ${((performance.now() - started) / 1000).toFixed(0)} s${settings.profileDir ? `; server CPU profile in ${settings.profileDir}` : ''}`,
    );
  } finally {
    ceiling?.stop();
    for (const floor of floorProcesses) floor.stop();
    await server?.stop();
    if (!settings.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- review` measures approving and undoing alone, on the athletes seeded in
 * BENCH_DATA_DIR (seeded there first if it is new): seconds instead of the whole run.
 */
async function review(): Promise<void> {
  const { dataDir } = settingsFromEnv(process.env);
  const dir = dataDir ?? tempDir('repledger-bench-');
  try {
    console.log(formatReview(await measureReview(dir, (await seeded(dir)).athletes)));
  } finally {
    if (!dataDir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- backup`: a backup of the seeded store while the service answers reads of the
 * 10,000-workout athlete (bench/backup.ts), on the athletes seeded in BENCH_DATA_DIR (seeded there
 * first if it is new).
 */
async function backupCase(): Promise<void> {
  const { dataDir } = settingsFromEnv(process.env);
  const dir = dataDir ?? tempDir('repledger-bench-');
  let server: RunningServer | null = null;
  try {
    const { athletes } = await seeded(dir);
    const largest = athletes.at(-1)!;
    const tokens = await createBotTokens(dir, [largest]);
    server = await startServer({ dataDir: dir, logFile: SERVER_LOG, nodeFlags: [] });
    console.log(formatBackup(await measureBackup(server.base, dir, tokens.get(largest.email)!, progress)));
  } finally {
    await server?.stop();
    if (!dataDir) rmSync(dir, { recursive: true, force: true });
  }
}

try {
  // `npm run bench -- cli` measures the CLI alone: a minute instead of the whole run.
  if (process.argv[2] === 'cli') console.log(formatCli(await measureCli()));
  else if (process.argv[2] === 'review') await review();
  else if (process.argv[2] === 'backup') await backupCase();
  else if (process.argv[2] === 'pending') console.log(formatPendingList(await measurePendingList()));
  else if (process.argv[2] === 'cold') console.log(formatColdCommand(await measureColdCommand(progress)));
  // How long a request waits while the service saves an import (no target: information).
  else if (process.argv[2] === 'import-stall') console.log(formatImportStalls(await measureImportStalls()));
  // Each importer's throughput beside the Hevy CSV import's (information).
  else if (process.argv[2] === 'importers') console.log(formatImporters(await measureImporters(progress)));
  // Projected events per second through the worker, batched against a transaction per event (information).
  else if (process.argv[2] === 'projection') {
    console.log(formatProjectionThroughput(await measureProjectionThroughput()));
    console.log(formatRebuildLag(await measureRebuildLag()));
  } else await main();
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\nserver log: ${SERVER_LOG}`);
  process.exitCode = 1;
}
