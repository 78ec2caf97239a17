// Drives one request at a server with many concurrent connections (autocannon) and reports
// throughput and latency. Knows nothing of operations or surfaces: a request and a base URL.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { bodyToSend, send, varies, type BenchRequest } from './http.ts';

export interface Load {
  connections: number;
  seconds: number;
  /** Discarded: lets the server's JIT and caches settle before the measured run. */
  warmupSeconds: number;
}

export interface Measurement {
  responses: number;
  /**
   * The server's CPU time (user and system) per response during the run, in µs, where its
   * process was given and the platform tells (Linux); null otherwise. It moves far less than
   * requests/s when other work shares the machine (contention on a VM's host can still raise it).
   */
  cpuUsPerResponse: number | null;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Bytes of one response, headers included, as autocannon counted them. */
  bytesPerResponse: number;
  /**
   * Where the run was measured in turns with others (measureInTurns), each turn's own figures, in
   * the order taken: the turns of the runs measured together line up, the k-th of each taken
   * within the same stretch of time, next to each other.
   */
  turns?: TurnFigures[];
}

/** One turn's figures. */
export type TurnFigures = Pick<Measurement, 'requestsPerSecond' | 'p50Ms' | 'p99Ms' | 'cpuUsPerResponse'>;

/** How often autocannon samples, and so how finely a run's length can be set. */
const SAMPLE_INTERVAL_MS = 100;

/**
 * autocannon's default is 10 s. A prepare on the 10,000-workout record takes one to two seconds, and
 * commands on one record run one at a time, so a request waits for the ones queued before it.
 */
const REQUEST_TIMEOUT_SECONDS = 30;

/** A run that got anything but the request's success status: the numbers would not be of the operation. */
export class NotAllOk extends Error {}

/** `serverPid`: the process answering at `base`, whose CPU time is counted. */
export async function measure(base: string, request: BenchRequest, load: Load, serverPid?: number): Promise<Measurement> {
  return (await measureInTurns([{ base, request, load, serverPid }]))[0]!;
}

/** One of the runs measureInTurns alternates: a request at a server, under a load. */
export interface Run {
  base: string;
  request: BenchRequest;
  load: Load;
  /** The process answering at `base`, whose CPU time is counted. */
  serverPid?: number;
}

/**
 * Several runs measured in turns: each warmed up, then each driven for its share of its seconds,
 * one after the other, in the orders `balancedOrders` gives, so that their figures come from the
 * same stretch of time. Other work on the machine comes in stretches of seconds to a minute; runs
 * of 3 s back to back could fall one inside a stretch and the next outside it, and a ratio of their
 * figures (the long history's latency over the short one's, a read over its floor, MCP over REST)
 * measured that stretch. Taken in turns of a fraction of a second, a stretch falls on all of them
 * alike. Latencies, responses and CPU are pooled over a run's turns.
 */
export async function measureInTurns(runs: Run[]): Promise<Measurement[]> {
  for (const run of runs) {
    if (run.load.warmupSeconds <= 0) continue;
    // A warm-up shorter than one slow command may see no answer at all; it only has to see no failure.
    await drive(run, run.load.warmupSeconds, false);
    await drain(run);
  }
  const orders = balancedOrders(runs.length);
  const pooled = runs.map((): { latencies: number[]; bytes: number; seconds: number; cpu: number | null; turns: TurnFigures[] } => ({
    latencies: [],
    bytes: 0,
    seconds: 0,
    cpu: 0,
    turns: [],
  }));
  for (const order of orders) {
    for (const i of order) {
      const run = runs[i]!;
      const into = pooled[i]!;
      const cpuBefore = cpuSeconds(run.serverPid);
      const driven = await drive(run, run.load.seconds / orders.length, true);
      // Before the drain: the backlog it waits for was counted in the run's responses' time.
      const cpuAfter = cpuSeconds(run.serverPid);
      await drain(run);
      const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
      into.turns.push(figures(driven.latencies, driven.seconds, cpu));
      for (const ms of driven.latencies) into.latencies.push(ms);
      into.bytes += driven.bytes;
      into.seconds += driven.seconds;
      into.cpu = into.cpu === null || cpu === null ? null : into.cpu + cpu;
    }
  }
  return pooled.map(({ latencies, bytes, seconds, cpu, turns }) => ({
    ...figures(latencies, seconds, cpu),
    responses: latencies.length,
    bytesPerResponse: latencies.length ? Math.round(bytes / latencies.length) : 0,
    ...(runs.length > 1 ? { turns } : {}),
  }));
}

/** Throughput, latency and CPU per response of `latencies` (sorted here) over `seconds`, with `cpu` seconds of the server's CPU. */
function figures(latencies: number[], seconds: number, cpu: number | null): TurnFigures {
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuUsPerResponse: cpu !== null && latencies.length > 0 ? (cpu * 1e6) / latencies.length : null,
  };
}

/**
 * The orders of a balanced Latin square (Williams): every run goes once in each position, and
 * follows every other run equally often (n even: once; n odd: twice, over 2n orders). A run leaves
 * garbage the server collects during the next one, and an MCP call leaves twice a REST call's
 * bytes: in a fixed or merely reversed order one run would always follow MCP and pay for it.
 */
export function balancedOrders(n: number): number[][] {
  const first = [0];
  for (let k = 1, low = 1, high = n - 1; k < n; k++) first.push(k % 2 === 1 ? low++ : high--);
  const square = first.map((_, shift) => first.map((i) => (i + shift) % n));
  return n % 2 === 0 || n === 1 ? square : [...square, ...square.map((order) => [...order].reverse())];
}

/** Linux's clock ticks, which /proc reports CPU time in (USER_HZ: 100 on every Linux platform Node runs on). */
const TICKS_PER_SECOND = 100;

/** A process's CPU time so far (user and system), from /proc; null where there is none. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which is in parentheses and may hold spaces: utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * When autocannon stops it drops its connections, but the server still works through the
 * requests it had accepted. One more request, answered after those, keeps that backlog out of
 * the next run's numbers.
 */
async function drain({ base, request }: Run): Promise<void> {
  await send(base, request);
}

/** The latencies of the responses with the request's success status, their bytes, and how long the run took. */
interface Driven {
  latencies: number[];
  bytes: number;
  seconds: number;
}

async function drive({ base, request, load }: Run, seconds: number, needsAnswers: boolean): Promise<Driven> {
  // Latencies are kept here rather than read from autocannon's histogram, which truncates them to
  // whole milliseconds: too coarse for a ratio of two latencies of a few milliseconds each.
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let bytes = 0;
  // Timed here: autocannon rounds its duration to 10 ms, a fiftieth of a turn.
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL(request.path, base).href,
        method: request.method as autocannon.Request['method'],
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        // Called for every request, the first one too (autocannon's requestIterator).
        ...(varies(request) ? { requests: [{ setupRequest: (sent: autocannon.Request) => ({ ...sent, body: bodyToSend(request)! }) }] } : {}),
        connections: load.connections,
        duration: seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
        // autocannon only stops on a sample tick (1 s by default), which rounds every run up to
        // whole seconds: a 0.5 s warm-up ran for 1 s. Ticks of 0.1 s keep runs to the seconds asked.
        sampleInt: SAMPLE_INTERVAL_MS,
      },
      (error: unknown, r) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(r)),
    );
    instance.on('response', (_client, status, resBytes, ms) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === request.expectedStatus) {
        latencies.push(ms);
        bytes += resBytes;
      }
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  checkAllOk(request, statuses, result, needsAnswers);
  return { latencies, bytes, seconds: elapsed };
}

function checkAllOk(request: BenchRequest, statuses: Map<number, number>, result: autocannon.Result, needsAnswers: boolean): void {
  const other = [...statuses].filter(([status]) => status !== request.expectedStatus);
  if (other.length === 0 && result.errors === 0 && result.timeouts === 0 && (statuses.size > 0 || !needsAnswers)) return;
  const seen = [...statuses].map(([s, n]) => `${n} x ${s}`).join(', ') || 'no response within the run (raise BENCH_SECONDS)';
  throw new NotAllOk(`${request.method} ${request.path}: ${seen}; ${result.errors} connection errors, ${result.timeouts} timeouts`);
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The middle value (of an even count, the mean of the two middle ones). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
