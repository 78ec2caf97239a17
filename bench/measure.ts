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
}

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
  if (load.warmupSeconds > 0) {
    // A warm-up shorter than one slow command may see no answer at all; it only has to see no failure.
    await drive(base, request, load.connections, load.warmupSeconds, false);
    await drain(base, request);
  }
  const cpuBefore = cpuSeconds(serverPid);
  const measured = await drive(base, request, load.connections, load.seconds, true);
  // Before the drain: the backlog it waits for was counted in the run's responses' time.
  const cpuAfter = cpuSeconds(serverPid);
  await drain(base, request);
  const cpu = cpuBefore !== null && cpuAfter !== null && measured.responses > 0 ? ((cpuAfter - cpuBefore) * 1e6) / measured.responses : null;
  return { ...measured, cpuUsPerResponse: cpu };
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
async function drain(base: string, request: BenchRequest): Promise<void> {
  await send(base, request);
}

async function drive(base: string, request: BenchRequest, connections: number, seconds: number, needsAnswers: boolean): Promise<Omit<Measurement, 'cpuUsPerResponse'>> {
  // Latencies are kept here rather than read from autocannon's histogram, which truncates them to
  // whole milliseconds: too coarse for a ratio of two latencies of a few milliseconds each.
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let bytes = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL(request.path, base).href,
        method: request.method as autocannon.Request['method'],
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        // Called for every request, the first one too (autocannon's requestIterator).
        ...(varies(request) ? { requests: [{ setupRequest: (sent: autocannon.Request) => ({ ...sent, body: bodyToSend(request)! }) }] } : {}),
        connections,
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
  checkAllOk(request, statuses, result, needsAnswers);
  latencies.sort((a, b) => a - b);
  return {
    responses: latencies.length,
    requestsPerSecond: latencies.length / result.duration,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    bytesPerResponse: latencies.length ? Math.round(bytes / latencies.length) : 0,
  };
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

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
