// Turns measurements into the printed table, the summary against the targets, and the JSON file.
import { CLI_TARGETS, type CliMeasured } from './cli.ts';
import { cpus, totalmem, platform, arch } from 'node:os';
import type { AccessKind } from '../contracts/common.ts';
import type { Surface } from './cases.ts';
import { REVIEW_TARGET, type ReviewMeasured } from './review.ts';
import { median, type Load, type Measurement, type TurnFigures } from './measure.ts';
import type { PrepareFloorMeasured } from './prepare-floor.ts';
import type { StreamFacts } from './prepare-floor-process.ts';
import type { ColdCommandMeasured } from './cold-command.ts';
import type { ImportStall } from './import-stall.ts';
import type { ProjectionThroughput, RebuildLag } from './projection.ts';

/** The paged lists: every `list_` operation, an exercise's history and the personal records. */
const PAGED_LISTS = new Set(['get_exercise_history', 'get_personal_records']);

/**
 * Issue 18: a REST read's throughput as a fraction of its floor (Fastify making the service's own
 * store reads for the request, then answering the same bytes), on the long-history athlete: every
 * list at least 0.5, the snapshot and the workout detail at least 0.4. The issue sets none for the
 * other reads (the access and write contexts, a routine, the write record and proposal), nor for
 * MCP over its own floor: their fraction is printed without one.
 */
export function ofFloorTarget(operation: string, surface: Surface): number | null {
  if (surface !== 'rest') return null;
  if (operation === 'get_training_snapshot' || operation === 'get_completed_workout') return 0.4;
  return operation.startsWith('list_') || PAGED_LISTS.has(operation) ? 0.5 : null;
}
/** The long-history athlete's latency may be at most this multiple of the short one's. */
export const LATENCY_RATIO_TARGET = 1.1;
/** MCP tool calls must reach this fraction of REST's throughput for the same operation and athlete. */
export const OF_REST_TARGET = 0.6;
/** A prepare over HTTP reaches this fraction of the same prepare in-process. */
export const OF_PREPARE_FLOOR_TARGET = 0.5;
export const PREPARE = 'prepare_write_proposal';

export interface CaseResult {
  operation: string;
  surface: Surface;
  athlete: string;
  measurement: Measurement;
  /** Requests/s as a fraction of the ceiling's for the same operation and surface; null without a ceiling. */
  ofCeiling: number | null;
  /** Requests/s as a fraction of the operation's floor; null without one (or for another athlete than the floor's). */
  ofFloor: number | null;
  /** The floor's server CPU time per response over the service's: the same ratio, unmoved by other work on the machine. */
  ofFloorCpu: number | null;
  /** Requests/s as a fraction of the floor that also signs the answer's cursor (FloorMeasurement's `signing`); null without one. */
  ofSigningFloor: number | null;
  /**
   * Requests/s as a fraction of REST's for the same operation and athlete (for a Read API route,
   * its Agent Access twin's); null on REST itself.
   */
  ofRest: number | null;
  /**
   * For an MCP case: the fraction of REST's throughput it would reach if the service's MCP cost
   * nothing beyond what the MCP floor costs over the REST floor (`mcpFloorAllows`); null elsewhere.
   */
  ofRestFloorAllows: number | null;
}

export interface OperationResult {
  operation: string;
  /** The Agent Access operation a Read API route is compared with; null otherwise. */
  twin: string | null;
  surface: Surface;
  /** Depth of history is meant not to slow reads; a write's ratio is shown, not judged. */
  access: AccessKind;
  /** Null for a surface measured against REST instead (MCP). */
  ceiling: Measurement | null;
  /**
   * Null where no floor was measured (the Read API, a write, or no floor server). MCP's is the
   * MCP floor: the same reads, the SDK's Server dispatching the tool call, the answer written.
   */
  floor: FloorMeasurement | null;
  cases: CaseResult[];
  /** Latency of the last athlete (the longest history) over the first's; null for a single athlete. */
  p50Ratio: number | null;
  p99Ratio: number | null;
  /**
   * CPU per response of the last athlete over the first's: no target, but where a latency ratio
   * misses, this tells the reads' own cost from a burst of other work on the machine.
   */
  cpuRatio: number | null;
}

/** The worst case or operation for one target; null when no case has the value (e.g. no MCP cases). */
export type Extreme = { value: number; operation: string; athlete?: string; met: boolean } | null;

/** Fastify making the store reads the service made for one athlete's request, then replaying its bytes. */
export interface FloorMeasurement {
  athlete: string;
  /** The reads repeated for every request, as `store.method`. */
  storeCalls: string[];
  measurement: Measurement;
  /**
   * The same floor signing the answer's cursor again for each request, with the service's own
   * encodeCursor, measured in the same turns: where the answer is a page with a `next_cursor`
   * (signed, decisions.md "Cursors"); null for other answers.
   */
  signing: Measurement | null;
}

export interface Summary {
  /** Information: the bare ceiling moves with the machine, the floor with it. */
  minOfCeiling: Extreme;
  minOfFloor: Extreme;
  /** The same by server CPU time per response, as information. */
  minOfFloorCpu: Extreme;
  /** Over reads only. */
  maxP50Ratio: Extreme;
  maxP99Ratio: Extreme;
  /** Information: CPU per response, long history over short, over reads. */
  maxCpuRatio: Extreme;
  /** MCP tool calls against REST. */
  minOfRest: Extreme;
  /** The same where the MCP floor allows the target: a miss there is the service's own. */
  minOfRestWhereFloorAllows: Extreme;
  /**
   * Lists against the floor that signs their cursor, on the target lists have against the floor
   * (0.5): not issue 18's target, what it would be were the signing part of the floor.
   */
  minOfSigningFloor: Extreme;
  /** What the MCP floor allows where `minOfRest` is. */
  ofRestFloorAllowsAtLowest: number | null;
  minOfPrepareFloor: Extreme;
  /** Read API routes against their Agent Access twins over REST: no target, both ends shown. */
  minReadApiOfTwin: Extreme;
  maxReadApiOfTwin: Extreme;
}

/** Reference servers that make one operation's store read and then answer the ceiling's bytes. */
export interface FloorResult {
  operation: string;
  athlete: string;
  ceiling: Measurement;
  service: Measurement;
  /** `signs`: the floor that also signs the answer's cursor for each request. */
  floors: Array<{ framework: string; read: boolean; signs?: boolean; measurement: Measurement; ofCeiling: number }>;
}

/**
 * One athlete's prepare: the batch prepared in-process with no HTTP, just before and just after the
 * HTTP cases (each with the record stream as it then was), and each surface as a fraction of the
 * two's mean.
 */
export interface PrepareFloorResult {
  athlete: string;
  before: PrepareFloorMeasured;
  after: PrepareFloorMeasured;
  requestsPerSecond: number;
  surfaces: Array<{ surface: Surface; measurement: Measurement; ofFloor: number }>;
}

export interface BenchResults {
  at: string;
  machine: ReturnType<typeof machineInfo>;
  load: Load;
  writeLoad: Load;
  seedingSeconds: Record<string, number>;
  operations: OperationResult[];
  floors: FloorResult | null;
  prepareFloors: PrepareFloorResult[];
  review: ReviewMeasured[];
  cli: CliMeasured;
  /** Distributed mode's measures (issue 37): each a ratio within its own measurement. */
  distributed: { coldCommand: ColdCommandMeasured; importStalls: ImportStall[]; projection: ProjectionThroughput; rebuildLag: RebuildLag };
  summary: Summary;
}

export function operationResult(
  operation: string,
  surface: Surface,
  access: AccessKind,
  ceiling: Measurement | null,
  measured: Array<{ athlete: string; measurement: Measurement }>,
  twin: string | null = null,
  floor: FloorMeasurement | null = null,
): OperationResult {
  const cases = measured.map(({ athlete, measurement }) => ({
    operation,
    surface,
    athlete,
    measurement,
    // The ceiling is measured on its own, before the passes: its fraction is information.
    ofCeiling: ceiling ? measurement.requestsPerSecond / ceiling.requestsPerSecond : null,
    ofFloor: floor?.athlete === athlete ? pairedRatio(floor.measurement, measurement, (t) => t.requestsPerSecond) : null,
    ofFloorCpu: floor?.athlete === athlete ? pairedRatio(measurement, floor.measurement, (t) => t.cpuUsPerResponse) : null,
    ofSigningFloor: floor?.athlete === athlete && floor.signing ? pairedRatio(floor.signing, measurement, (t) => t.requestsPerSecond) : null,
    ofRest: null,
    ofRestFloorAllows: null,
  }));
  const first = cases[0]!.measurement;
  const last = cases[cases.length - 1]!.measurement;
  const single = cases.length === 1;
  return {
    operation,
    twin,
    surface,
    access,
    ceiling,
    floor,
    cases,
    p50Ratio: single ? null : pairedRatio(first, last, (t) => t.p50Ms),
    p99Ratio: single ? null : pairedRatio(first, last, (t) => t.p99Ms),
    cpuRatio: single ? null : pairedRatio(first, last, (t) => t.cpuUsPerResponse),
  };
}

/**
 * `of`'s figure over `base`'s. Of runs measured in turns together: the median, over their turns,
 * of the ratio within a turn. Other work on the machine still strikes a turn now and then (a
 * read's CPU per response up by half for one turn and not the next), on either side of a ratio
 * alike; the median of 8–12 paired turns is not moved by a few struck ones, where a ratio of two
 * pooled or best-of figures is moved by each. Otherwise, the ratio of the two figures.
 */
export function pairedRatio(base: Measurement, of: Measurement, figure: (t: TurnFigures) => number | null): number | null {
  return pairedMedian([base, of], ([b, o]) => {
    const [x, y] = [figure(b!), figure(o!)];
    return x !== null && x > 0 && y !== null ? y / x : null;
  });
}

/**
 * What the MCP floor allows an MCP call, as a fraction of REST's throughput: were the service's
 * MCP to add nothing beyond what the MCP floor adds to the REST floor (reading the JSON-RPC message,
 * the SDK's Server dispatching it, the text block, the larger answer), each response would take
 * REST's time plus that difference. Times per response are 1/throughput, each turn's; the median
 * over paired turns (`pairedRatio`). An estimate, not a bound: a call can measure a few hundredths
 * above it (the two medians are of different turns' ratios).
 */
export function mcpFloorAllows(rest: Measurement, restFloor: Measurement, mcpFloor: Measurement): number | null {
  return pairedMedian([rest, restFloor, mcpFloor], ([r, f, m]) => {
    if (!(r!.requestsPerSecond > 0 && f!.requestsPerSecond > 0 && m!.requestsPerSecond > 0)) return null;
    const time = 1 / r!.requestsPerSecond;
    return time / (time + 1 / m!.requestsPerSecond - 1 / f!.requestsPerSecond);
  });
}

/** `value` of the measurements' k-th turns, the median over k; of their pooled figures where they were not measured in the same turns. */
function pairedMedian(measurements: Measurement[], value: (figures: TurnFigures[]) => number | null): number | null {
  const turns = measurements.map((m) => m.turns);
  const count = turns[0]?.length ?? 0;
  const inTurns = count > 0 && turns.every((t) => t?.length === count);
  const values = inTurns ? Array.from({ length: count }, (_, k) => value(turns.map((t) => t![k]!))) : [value(measurements)];
  return values.every((v) => v !== null) ? median(values as number[]) : null;
}

/**
 * Fills in each non-REST case's throughput as a fraction of REST's for the same operation (a Read
 * API route's twin) and athlete, and for an MCP case what its floor allows (`mcpFloorAllows`).
 */
export function relateToRest(operations: OperationResult[]): OperationResult[] {
  const restOperations = operations.filter((o) => o.surface === 'rest');
  const keyOf = (operation: string, athlete: string) => `${operation} ${athlete}`;
  const rest = new Map(restOperations.flatMap((o) => o.cases.map((c) => [keyOf(c.operation, c.athlete), c.measurement])));
  const restFloors = new Map(restOperations.flatMap((o) => (o.floor ? [[keyOf(o.operation, o.floor.athlete), o.floor.measurement]] : [])));
  return operations.map((o) => {
    if (o.surface === 'rest') return o;
    const cases = o.cases.map((c) => {
      const key = keyOf(o.twin ?? c.operation, c.athlete);
      const baseline = rest.get(key);
      const restFloor = restFloors.get(key);
      const mcpFloor = o.surface === 'mcp' && o.floor?.athlete === c.athlete ? o.floor.measurement : null;
      return {
        ...c,
        ofRest: baseline ? pairedRatio(baseline, c.measurement, (t) => t.requestsPerSecond) : null,
        ofRestFloorAllows: baseline && restFloor && mcpFloor ? mcpFloorAllows(baseline, restFloor, mcpFloor) : null,
      };
    });
    return { ...o, cases };
  });
}

export function summarise(operations: OperationResult[], prepareFloors: PrepareFloorResult[]): Summary {
  const cases = operations.flatMap((o) => o.cases);
  const reads = operations.filter((o) => o.access === 'read');
  const name = (o: { surface: Surface; operation: string }) => `${o.surface} ${o.operation}`;
  const atLeast = (found: { item: CaseResult; value: number } | null, target: (c: CaseResult) => number): Extreme =>
    found && { value: found.value, operation: name(found.item), athlete: found.item.athlete, met: found.value >= target(found.item) };
  const lowestCase = (value: (c: CaseResult) => number | null, target: (c: CaseResult) => number, among = cases): Extreme =>
    atLeast(
      extreme(among, value, (a, b) => a < b),
      target,
    );
  // Against each case's own target: the worst miss, or the closest to its target when all are met.
  const ofFloorMargin = extreme(
    cases,
    (c) => {
      const target = ofFloorTarget(c.operation, c.surface);
      return c.ofFloor === null || target === null ? null : c.ofFloor / target;
    },
    (a, b) => a < b,
  );
  const readApi = cases.filter((c) => c.surface === 'read_api');
  const mcp = cases.filter((c) => c.surface === 'mcp');
  const lowestMcp = extreme(
    mcp,
    (c) => c.ofRest,
    (a, b) => a < b,
  );
  const highestReadApi = extreme(
    readApi,
    (c) => c.ofRest,
    (a, b) => a > b,
  );
  // The highest ratio over reads; `target` null for one shown as information.
  const highestRatio = (value: (o: OperationResult) => number | null, target: number | null = LATENCY_RATIO_TARGET): Extreme => {
    const found = extreme(reads, value, (a, b) => a > b);
    return found && { value: found.value, operation: name(found.item), met: target === null || found.value <= target };
  };
  return {
    minOfCeiling: lowestCase(
      (c) => c.ofCeiling,
      () => 0,
    ),
    minOfFloor: ofFloorMargin && {
      value: ofFloorMargin.item.ofFloor!,
      operation: name(ofFloorMargin.item),
      athlete: ofFloorMargin.item.athlete,
      met: ofFloorMargin.value >= 1,
    },
    minOfFloorCpu: lowestCase(
      (c) => (ofFloorTarget(c.operation, c.surface) === null ? null : c.ofFloorCpu),
      () => 0,
    ),
    maxP50Ratio: highestRatio((o) => o.p50Ratio),
    maxP99Ratio: highestRatio((o) => o.p99Ratio),
    maxCpuRatio: highestRatio((o) => o.cpuRatio, null),
    minOfSigningFloor: lowestCase(
      (c) => c.ofSigningFloor,
      (c) => ofFloorTarget(c.operation, c.surface) ?? 0,
    ),
    minOfRest: atLeast(lowestMcp, () => OF_REST_TARGET),
    minOfRestWhereFloorAllows: lowestCase(
      (c) => c.ofRest,
      () => OF_REST_TARGET,
      mcp.filter((c) => c.ofRestFloorAllows !== null && c.ofRestFloorAllows >= OF_REST_TARGET),
    ),
    ofRestFloorAllowsAtLowest: lowestMcp?.item.ofRestFloorAllows ?? null,
    minOfPrepareFloor: lowestOfFloor(prepareFloors),
    // No target: how the two APIs compare is information, not a goal either must meet.
    minReadApiOfTwin: lowestCase(
      (c) => c.ofRest,
      () => 0,
      readApi,
    ),
    maxReadApiOfTwin: highestReadApi && { value: highestReadApi.value, operation: name(highestReadApi.item), athlete: highestReadApi.item.athlete, met: true },
  };
}

export function prepareFloorResult(
  athlete: string,
  before: PrepareFloorMeasured,
  after: PrepareFloorMeasured,
  operations: OperationResult[],
): PrepareFloorResult {
  const requestsPerSecond = (before.measurement.requestsPerSecond + after.measurement.requestsPerSecond) / 2;
  const surfaces = operations
    .filter((o) => o.operation === PREPARE)
    .flatMap((o) =>
      o.cases
        .filter((c) => c.athlete === athlete)
        .map((c) => ({ surface: o.surface, measurement: c.measurement, ofFloor: c.measurement.requestsPerSecond / requestsPerSecond })),
    );
  return { athlete, before, after, requestsPerSecond, surfaces };
}

function lowestOfFloor(prepareFloors: PrepareFloorResult[]): Extreme {
  const found = extreme(
    prepareFloors.flatMap((f) => f.surfaces.map((s) => ({ ...s, athlete: f.athlete }))),
    (s) => s.ofFloor,
    (a, b) => a < b,
  );
  return (
    found && { value: found.value, operation: `${found.item.surface} ${PREPARE}`, athlete: found.item.athlete, met: found.value >= OF_PREPARE_FLOOR_TARGET }
  );
}

/** The item whose value beats every other's, ignoring items without one. */
function extreme<T>(items: T[], value: (item: T) => number | null, beats: (a: number, b: number) => boolean): { item: T; value: number } | null {
  let best: { item: T; value: number } | null = null;
  for (const item of items) {
    const v = value(item);
    if (v !== null && (best === null || beats(v, best.value))) best = { item, value: v };
  }
  return best;
}

export function machineInfo() {
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${platform()} ${arch()}`,
  };
}

// ---- Printing

const HEADINGS = [
  'operation',
  'athlete',
  'bytes',
  'req/s',
  'p50 ms',
  'p99 ms',
  'cpu µs',
  'of ceiling',
  'of floor (target)',
  'of signing floor',
  'by cpu',
  `p50 x (<= ${LATENCY_RATIO_TARGET})`,
  `p99 x (<= ${LATENCY_RATIO_TARGET})`,
  'cpu x',
  `of REST (>= ${OF_REST_TARGET}) / twin`,
  'floor allows',
];
const MISSED = ' !';

/** One block per operation and surface; a surface without a ceiling has no ceiling row. */
export function formatTable(operations: OperationResult[]): string {
  const rows: string[][] = [];
  for (const o of operations) {
    const blank = (n: number) => Array<string>(n).fill('');
    if (o.ceiling) rows.push([`${o.surface} ${o.operation}`, 'ceiling', ...numbers(o.ceiling), ...blank(9)]);
    if (o.floor) {
      const ofCeiling = (m: Measurement) => (o.ceiling ? fixed(m.requestsPerSecond / o.ceiling.requestsPerSecond, 2) : '');
      // MCP has no ceiling row: its floor row names the operation.
      rows.push([
        o.ceiling ? '' : `${o.surface} ${o.operation}`,
        `${o.surface === 'mcp' ? 'mcp floor' : 'floor'} (${o.floor.storeCalls.length} store reads)`,
        ...numbers(o.floor.measurement),
        ofCeiling(o.floor.measurement),
        ...blank(8),
      ]);
      // Its fraction of the floor in the floor's column: what signing the cursor, and nothing else, costs it.
      const signing = o.floor.signing;
      const ofFloor = signing && pairedRatio(o.floor.measurement, signing, (t) => t.requestsPerSecond);
      if (signing) rows.push(['', 'floor signing its cursor', ...numbers(signing), ofCeiling(signing), ofFloor === null ? '' : fixed(ofFloor, 2), ...blank(7)]);
    }
    o.cases.forEach((c, i) => {
      const last = i === o.cases.length - 1;
      rows.push([
        i === 0 && !o.ceiling && !o.floor ? `${o.surface} ${o.operation}${o.twin ? ` (twin ${o.twin})` : ''}` : '',
        c.athlete,
        ...numbers(c.measurement),
        c.ofCeiling === null ? '' : fixed(c.ofCeiling, 2),
        c.ofFloor === null ? '' : ofFloorCell(c.ofFloor, ofFloorTarget(c.operation, c.surface)),
        c.ofSigningFloor === null ? '' : fixed(c.ofSigningFloor, 2),
        c.ofFloorCpu === null ? '' : fixed(c.ofFloorCpu, 2),
        last ? atMost(o.p50Ratio, LATENCY_RATIO_TARGET) : '',
        last ? atMost(o.p99Ratio, LATENCY_RATIO_TARGET) : '',
        last && o.cpuRatio !== null ? fixed(o.cpuRatio, 2) : '',
        c.surface === 'read_api' ? fixed(c.ofRest ?? NaN, 2) : atLeast(c.ofRest, OF_REST_TARGET),
        c.ofRestFloorAllows === null ? '' : fixed(c.ofRestFloorAllows, 2),
      ]);
    });
  }
  const widths = HEADINGS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Names left-aligned, numbers right-aligned.
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(HEADINGS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function numbers(m: Measurement): string[] {
  // A tenth where whole requests/s would round a slow write to 0.
  return [
    String(m.bytesPerResponse),
    fixed(m.requestsPerSecond, m.requestsPerSecond < 100 ? 1 : 0),
    fixed(m.p50Ms, 2),
    fixed(m.p99Ms, 2),
    m.cpuUsPerResponse === null ? '' : fixed(m.cpuUsPerResponse, 0),
  ];
}

/** A fraction of the floor with its target in brackets (none: a dash), flagged when it misses it. */
function ofFloorCell(value: number, target: number | null): string {
  return `${fixed(value, 2)} (${target === null ? '-' : fixed(target, 2)})${target !== null && value < target ? MISSED : ''}`;
}

/** A fraction that must reach `target`, flagged when it does not; blank when there is none. */
function atLeast(value: number | null, target: number): string {
  return value === null ? '' : fixed(value, 2) + (value < target ? MISSED : '');
}

/** A ratio that may not exceed `target`, flagged when it does; blank when there is none. */
function atMost(value: number | null, target: number): string {
  return value === null ? '' : fixed(value, 2) + (value > target ? MISSED : '');
}

function fixed(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

/** Where the ceiling's throughput goes: the framework, the store read, and the service's own work. */
export function formatFloors(f: FloorResult): string {
  const of = (m: Measurement, base: Measurement) => fixed(m.requestsPerSecond / base.requestsPerSecond, 2);
  const rows: Array<[string, Measurement]> = [
    ['node:http, replaying the bytes (the ceiling)', f.ceiling],
    ...f.floors.map((x): [string, Measurement] => [
      `${x.framework}, ${x.read ? `making the same read, ${x.signs ? 'signing the cursor, ' : ''}then` : ''} replaying the bytes`.replace(',  ', ', '),
      x.measurement,
    ]),
    ['the service', f.service],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const readOverFastify = f.floors.find((x) => x.framework === 'fastify' && x.read && !x.signs);
  return [
    `floor under rest ${f.operation}, athlete ${f.athlete}: the framework and the store read it makes (one keyset page), without the service's own work`,
    ...rows.map(([label, m]) => `  ${label.padEnd(width)}  ${fixed(m.requestsPerSecond, 0).padStart(6)} req/s  ${of(m, f.ceiling)} of ceiling`),
    ...(readOverFastify ? [`  the service reaches ${of(f.service, readOverFastify.measurement)} of Fastify making the same read`] : []),
  ].join('\n');
}

/**
 * Each athlete's prepare in-process (the floor) and each surface's as a fraction of it, with what
 * loading the record stream takes: every command reads and folds the whole stream.
 */
export function formatPrepareFloors(floors: PrepareFloorResult[]): string {
  const lines = [
    `floor under ${PREPARE}: the same 10-change batch decided and appended in-process (app.proposals.prepare), no HTTP, just before and just after the HTTP cases`,
  ];
  // The count too: on the 10,000-workout record a run prepares a handful, and ±1 moves the rate far.
  const count = (m: Measurement) => `${fixed(m.requestsPerSecond, 1)} req/s (${m.responses} prepared`;
  const rate = (m: Measurement) => `${count(m)}, p50 ${fixed(m.p50Ms, 0)} ms)`;
  const stream = (s: StreamFacts) => `${s.events} events, ${s.proposals} of them proposals, loaded in ${fixed(s.loadMs, 0)} ms`;
  for (const f of floors) {
    const surfaces = f.surfaces.map((s) => `${s.surface} ${count(s.measurement)}) = ${atLeast(s.ofFloor, OF_PREPARE_FLOOR_TARGET)}`);
    lines.push(
      `  athlete ${f.athlete}: floor ${rate(f.before.measurement)} before, ${rate(f.after.measurement)} after, mean ${fixed(f.requestsPerSecond, 1)} req/s`,
      `    of floor: ${surfaces.join('; ')}  (issue 18's target >= ${OF_PREPARE_FLOOR_TARGET})`,
      `    record stream before: ${stream(f.before.stream)}; after: ${stream(f.after.stream)}`,
    );
  }
  return lines.join('\n');
}

export function formatSummary(results: BenchResults, athletes: string[], resultsFile: string): string {
  const { summary: s, machine: m, load, writeLoad } = results;
  const [first, last] = [athletes[0], athletes[athletes.length - 1]];
  return [
    target(`reads / floor, nearest its target:`, s.minOfFloor, 3, `>= 0.5 for lists, >= 0.4 for the snapshot and the workout detail`),
    target(`  lists / floor that signs, lowest:`, s.minOfSigningFloor, 3, `>= 0.5 (not issue 18's floor: that floor signing the cursor as the design asks)`),
    information(`reads with a target / floor by CPU, lowest:`, s.minOfFloorCpu, 3),
    information(`reads / ceiling, lowest:`, s.minOfCeiling, 3),
    target(`mcp / rest throughput, lowest:`, s.minOfRest, 3, `>= ${fixed(OF_REST_TARGET, 3)}`) +
      (s.ofRestFloorAllowsAtLowest === null ? '' : `; its MCP floor allows ${fixed(s.ofRestFloorAllowsAtLowest, 3)}`),
    target(`  where the MCP floor allows ${OF_REST_TARGET}:`, s.minOfRestWhereFloorAllows, 3, `>= ${fixed(OF_REST_TARGET, 3)}`),
    information(`read api / twin, lowest:`, s.minReadApiOfTwin, 3),
    information(`read api / twin, highest:`, s.maxReadApiOfTwin, 3),
    target(`p50 ${last}/${first} (reads), highest:`, s.maxP50Ratio, 2, `<= ${LATENCY_RATIO_TARGET}`),
    target(`p99 ${last}/${first} (reads), highest:`, s.maxP99Ratio, 2, `<= ${LATENCY_RATIO_TARGET}`),
    information(`cpu µs ${last}/${first} (reads), highest:`, s.maxCpuRatio, 2),
    target(`prepare / floor, lowest:`, s.minOfPrepareFloor, 3, `>= ${fixed(OF_PREPARE_FLOOR_TARGET, 3)}`),
    target(`approve, undo / floor, highest:`, highestReview(results.review), 2, `<= ${REVIEW_TARGET}`),
    target(`cli start, slowest:`, slowestStart(results.cli), 3, `<= ${CLI_TARGETS.startSeconds} s`),
    target(`import, beyond the start:`, importBeyondStart(results.cli), 3, `< ${CLI_TARGETS.importBeyondStartSeconds} s`),
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}`,
    `load: ${load.connections} connections, ${load.seconds} s per case and pass after a ${load.warmupSeconds} s warm-up, in turns with the operation's other cases and floor; ${PREPARE}: ${writeLoad.connections} connections, ${writeLoad.seconds} s after ${writeLoad.warmupSeconds} s; server, ceiling and load generator in separate processes`,
    `seeding: ${Object.entries(results.seedingSeconds)
      .map(([label, s]) => `${label} workouts ${fixed(s, 1)} s`)
      .join(', ')}`,
    `results: ${resultsFile}`,
  ].join('\n');
}

const LABEL_WIDTH = 38;

function slowestStart(cli: CliMeasured): Extreme {
  const [operation, value] =
    cli.helpSeconds >= cli.athletesListSeconds ? ['repledger --help', cli.helpSeconds] : ['repledger athletes list', cli.athletesListSeconds];
  return { value, operation, met: value <= CLI_TARGETS.startSeconds };
}

function importBeyondStart(cli: CliMeasured): Extreme {
  const value = cli.importSeconds - cli.athletesListSeconds;
  return { value, operation: `import hevy, ${cli.importWorkouts} workouts`, met: value < CLI_TARGETS.importBeyondStartSeconds };
}

function highestReview(review: ReviewMeasured[]): Extreme {
  const found = extreme(
    review.flatMap((r) => [
      { athlete: r.athlete, operation: 'approve', value: r.approveOverFloor },
      { athlete: r.athlete, operation: 'undo', value: r.undoOverFloor },
    ]),
    (x) => x.value,
    (a, b) => a > b,
  );
  return found && { value: found.value, operation: found.item.operation, athlete: found.item.athlete, met: found.value <= REVIEW_TARGET };
}

/** One summary line without a target: the value and where it was. */
function information(label: string, value: Extreme, digits: number): string {
  if (value === null) return `${label.padEnd(LABEL_WIDTH)} - (nothing measured)`;
  return `${label.padEnd(LABEL_WIDTH)} ${fixed(value.value, digits)} (${value.operation}${value.athlete ? `, athlete ${value.athlete}` : ''})`;
}

/** One summary line: the worst value, where it was, and whether it meets the target. */
function target(label: string, worst: Extreme, digits: number, goal: string): string {
  if (worst === null) return `${label.padEnd(LABEL_WIDTH)} - (nothing measured)  target ${goal}`;
  const where = worst.athlete === undefined ? worst.operation : `${worst.operation}, athlete ${worst.athlete}`;
  return `${label.padEnd(LABEL_WIDTH)} ${fixed(worst.value, digits)} (${where})  target ${goal}: ${worst.met ? 'met' : 'MISSED'}`;
}
