// Turns measurements into the printed table, the summary against the targets, and the JSON file.
import { cpus, totalmem, platform, arch } from 'node:os';
import type { Surface } from './cases.ts';
import type { Load, Measurement } from './measure.ts';

/** Read throughput must reach this fraction of the bare node:http ceiling. */
export const THROUGHPUT_TARGET = 1 / 3;
/** The long-history athlete's latency may be at most this multiple of the short one's. */
export const LATENCY_RATIO_TARGET = 1.3;

export interface CaseResult {
  operation: string;
  surface: Surface;
  athlete: string;
  measurement: Measurement;
  /** Requests/s as a fraction of the ceiling's for the same operation and surface. */
  ofCeiling: number;
}

export interface OperationResult {
  operation: string;
  surface: Surface;
  ceiling: Measurement;
  cases: CaseResult[];
  /** Latency of the last athlete (the longest history) over the first's. */
  p50Ratio: number;
  p99Ratio: number;
}

export interface Summary {
  minOfCeiling: { value: number; operation: string; athlete: string; met: boolean };
  maxP50Ratio: { value: number; operation: string; met: boolean };
  maxP99Ratio: { value: number; operation: string; met: boolean };
}

export interface BenchResults {
  at: string;
  machine: ReturnType<typeof machineInfo>;
  load: Load;
  seedingSeconds: Record<string, number>;
  operations: OperationResult[];
  summary: Summary;
}

export function operationResult(operation: string, surface: Surface, ceiling: Measurement, measured: Array<{ athlete: string; measurement: Measurement }>): OperationResult {
  const cases = measured.map(({ athlete, measurement }) => ({ operation, surface, athlete, measurement, ofCeiling: measurement.requestsPerSecond / ceiling.requestsPerSecond }));
  const first = cases[0]!.measurement;
  const last = cases[cases.length - 1]!.measurement;
  return { operation, surface, ceiling, cases, p50Ratio: last.p50Ms / first.p50Ms, p99Ratio: last.p99Ms / first.p99Ms };
}

export function summarise(operations: OperationResult[]): Summary {
  const cases = operations.flatMap((o) => o.cases);
  const slowest = cases.reduce((a, b) => (b.ofCeiling < a.ofCeiling ? b : a));
  const worst = (ratio: (o: OperationResult) => number) => operations.reduce((a, b) => (ratio(b) > ratio(a) ? b : a));
  const p50 = worst((o) => o.p50Ratio);
  const p99 = worst((o) => o.p99Ratio);
  return {
    minOfCeiling: { value: slowest.ofCeiling, operation: `${slowest.surface} ${slowest.operation}`, athlete: slowest.athlete, met: slowest.ofCeiling >= THROUGHPUT_TARGET },
    maxP50Ratio: { value: p50.p50Ratio, operation: `${p50.surface} ${p50.operation}`, met: p50.p50Ratio <= LATENCY_RATIO_TARGET },
    maxP99Ratio: { value: p99.p99Ratio, operation: `${p99.surface} ${p99.operation}`, met: p99.p99Ratio <= LATENCY_RATIO_TARGET },
  };
}

export function machineInfo() {
  const cpu = cpus();
  return { cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${platform()} ${arch()}` };
}

// ---- Printing

const HEADINGS = ['operation', 'athlete', 'bytes', 'req/s', 'p50 ms', 'p99 ms', 'of ceiling', 'p50 x', 'p99 x'];
const MISSED = ' !';

export function formatTable(operations: OperationResult[]): string {
  const rows: string[][] = [];
  for (const o of operations) {
    rows.push([`${o.surface} ${o.operation}`, 'ceiling', ...numbers(o.ceiling), '', '', '']);
    o.cases.forEach((c, i) => {
      const last = i === o.cases.length - 1;
      rows.push([
        '',
        c.athlete,
        ...numbers(c.measurement),
        fixed(c.ofCeiling, 2) + (c.ofCeiling < THROUGHPUT_TARGET ? MISSED : ''),
        last ? ratio(o.p50Ratio) : '',
        last ? ratio(o.p99Ratio) : '',
      ]);
    });
  }
  const widths = HEADINGS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Names left-aligned, numbers right-aligned.
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(HEADINGS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function numbers(m: Measurement): string[] {
  return [String(m.bytesPerResponse), fixed(m.requestsPerSecond, 0), fixed(m.p50Ms, 2), fixed(m.p99Ms, 2)];
}

function ratio(value: number): string {
  return fixed(value, 2) + (value > LATENCY_RATIO_TARGET ? MISSED : '');
}

function fixed(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

export function formatSummary(results: BenchResults, athletes: string[], resultsFile: string): string {
  const { summary: s, machine: m, load } = results;
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
  const [first, last] = [athletes[0], athletes[athletes.length - 1]];
  return [
    `throughput / ceiling, lowest: ${fixed(s.minOfCeiling.value, 3)} (${s.minOfCeiling.operation}, athlete ${s.minOfCeiling.athlete})  target >= ${fixed(THROUGHPUT_TARGET, 3)}: ${verdict(s.minOfCeiling.met)}`,
    `p50 ${last}/${first}, highest:      ${fixed(s.maxP50Ratio.value, 2)} (${s.maxP50Ratio.operation})  target <= ${LATENCY_RATIO_TARGET}: ${verdict(s.maxP50Ratio.met)}`,
    `p99 ${last}/${first}, highest:      ${fixed(s.maxP99Ratio.value, 2)} (${s.maxP99Ratio.operation})  target <= ${LATENCY_RATIO_TARGET}: ${verdict(s.maxP99Ratio.met)}`,
    `machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}`,
    `load: ${load.connections} connections, ${load.seconds} s per case after a ${load.warmupSeconds} s warm-up; server, ceiling and load generator in separate processes`,
    `seeding: ${Object.entries(results.seedingSeconds).map(([label, s]) => `${label} workouts ${fixed(s, 1)} s`).join(', ')}`,
    `results: ${resultsFile}`,
  ].join('\n');
}
