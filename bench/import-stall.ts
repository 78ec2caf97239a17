// How long the service keeps another athlete's read waiting while it saves a web import, on the
// embedded store: `npm run bench -- import-stall`. The app and its HTTP server run in this
// process, as `repledger serve` runs them. Another process (bench/import-stall-reader.ts) sends a
// Read API read of another athlete's record, back to back, for the whole run; a third process
// (bench/import-stall-upload.ts) posts the file to /import as the athlete's browser would. The
// read's p99 over the seconds before the upload (idle) is set against its p99 over the requests
// sent between the upload's sending and its answer (parsing, deciding and saving the file). Two
// files, each into a fresh athlete, in this order: a year of training (the first import of the
// process, as a server's first upload is) and one at the web upload's size limit, whose ratio has
// the target.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseHevy } from '../services/import/hevy.ts';
import { importExport } from '../services/import/run.ts';
import { IMPORT_MAX_BYTES } from '../services/web/import.ts';
import { generateHevyExport } from '../test/fixtures/hevy-export.ts';
import { tempDir } from '../test/support/app.ts';
import { registerPro } from '../test/support/connect.ts';
import { FormClient, startServer } from '../test/support/server.ts';
import { signedInClient } from '../test/support/web-record.ts';

/** A read's p99 while a 10 MB web import saves, at most this multiple of its idle p99 (issue 37). */
export const STALL_TARGET = 3;

export interface ImportStall {
  workouts: number;
  bytes: number;
  /** From the upload's sending to its answer. */
  importSeconds: number;
  idle: ReadFigures;
  importing: ReadFigures;
  /** importing.p99Ms / idle.p99Ms */
  ratio: number;
}

export interface ReadFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  longestMs: number;
}

/** A year at six sessions a week, and about as many as fit in the web upload's limit. */
const FILES = [{ workouts: 300 }, { workouts: 3800 }];
/** How long the reads are measured with nothing else going on, before each upload. */
const IDLE_MS = 3000;
/** What the reader reads: a page of another athlete's workouts, as a bot would. */
const READ_PATH = '/api/v1/workouts?limit=10';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function measureImportStalls(): Promise<ImportStall[]> {
  const s = await startServer({ env: { READ_API_QUOTA_UNITS: '1000000000' } });
  const dir = tempDir('repledger-bench-stall-');
  let reader: ChildProcess | null = null;
  try {
    // The athlete whose record the reader reads: a year of training, and a bot token.
    const readerId = await registerPro(s.app, 'reader@bench.example');
    const readerAthlete = (await s.app.athletes.get(readerId))!;
    await importExport(s.app, readerAthlete, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes: Buffer.from(generateHevyExport({ workouts: 300, seed: 3 })),
      parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }),
    });
    const { token } = await s.app.botTokens.create(readerId, 'bench', { type: 'athlete', id: readerId });

    const readerProcess = spawn(process.execPath, [join(ROOT, 'bench', 'import-stall-reader.ts'), `${s.base}${READ_PATH}`, token], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    reader = readerProcess;
    const readerLines = createInterface({ input: readerProcess.stdout })[Symbol.asyncIterator]();
    await expectLine(readerLines, 'warm', 'the reader');

    const windows: Array<{ workouts: number; bytes: number; idle: [number, number]; importing: [number, number] }> = [];
    for (const [i, { workouts }] of FILES.entries()) {
      const csv = generateHevyExport({ workouts, seed: 7 });
      const bytes = Buffer.byteLength(csv);
      if (bytes > IMPORT_MAX_BYTES) throw new Error(`a ${workouts}-workout file is over the upload limit`);
      const file = join(dir, `hevy-${workouts}.csv`);
      writeFileSync(file, csv);
      const email = `importer-${i}@bench.example`;
      await registerPro(s.app, email);
      const browser = await signedInClient(s.base, email);
      const csrf = FormClient.csrf((await browser.get('/import')).text);
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const uploader = spawn(process.execPath, [join(ROOT, 'bench', 'import-stall-upload.ts'), s.base, file, cookie, csrf], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const uploaderLines = createInterface({ input: uploader.stdout })[Symbol.asyncIterator]();
      await expectLine(uploaderLines, 'ready', 'the uploader');
      // The idle window: the reads alone, measured for a set time (nothing waits on it).
      const idleFrom = epochMs();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idleTo = epochMs();
      uploader.stdin.end('go\n');
      const answer = await readerLine(uploaderLines, 'the uploader');
      const sent = JSON.parse(answer) as { sentAtMs: number; answeredAtMs: number; status: number; location: string | null };
      if (sent.status !== 303 || !sent.location?.includes(`added=${workouts}&`)) throw new Error(`the upload answered ${sent.status} ${sent.location ?? ''}`);
      windows.push({ workouts, bytes, idle: [idleFrom, idleTo], importing: [sent.sentAtMs, sent.answeredAtMs] });
    }
    readerProcess.stdin.end();
    const samples = JSON.parse(await readerLine(readerLines, 'the reader')) as Array<[number, number]>;
    return windows.map((w) => {
      const idle = figures(samples, w.idle);
      const importing = figures(samples, w.importing);
      return {
        workouts: w.workouts,
        bytes: w.bytes,
        importSeconds: (w.importing[1] - w.importing[0]) / 1000,
        idle,
        importing,
        ratio: importing.p99Ms / idle.p99Ms,
      };
    });
  } finally {
    if (reader && reader.exitCode === null) reader.kill();
    await s.close();
  }
}

const epochMs = () => performance.timeOrigin + performance.now();

/** The reads sent within [from, to] (the backup bench reads its windows with it too). */
export function figures(samples: ReadonlyArray<[number, number]>, [from, to]: [number, number]): ReadFigures {
  const waits = samples
    .filter(([sent]) => sent >= from && sent <= to)
    .map(([, waited]) => waited)
    .sort((a, b) => a - b);
  if (waits.length === 0) throw new Error('no read was sent in the window');
  return { requests: waits.length, p50Ms: percentile(waits, 50), p99Ms: percentile(waits, 99), longestMs: waits.at(-1)! };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function readerLine(lines: AsyncIterator<string>, who: string): Promise<string> {
  const next = await lines.next();
  if (next.done) throw new Error(`${who} exited before it answered`);
  return next.value;
}

async function expectLine(lines: AsyncIterator<string>, expected: string, who: string): Promise<void> {
  const line = await readerLine(lines, who);
  if (line !== expected) throw new Error(`${who} said ${line.slice(0, 200)}, not ${expected}`);
}

export function formatImportStalls(stalls: ImportStall[]): string {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const row = (f: ReadFigures) => `p50 ${ms(f.p50Ms)}, p99 ${ms(f.p99Ms)}, longest ${ms(f.longestMs)} (${f.requests} reads)`;
  const largest = stalls.at(-1)!;
  return [
    `a web import (POST /import) saved by the service on the embedded store, while another process reads another athlete's workouts (GET ${READ_PATH}) back to back:`,
    ...stalls.flatMap((s) => [
      `  ${s.workouts} workouts (${(s.bytes / 1024 / 1024).toFixed(1)} MB): answered in ${s.importSeconds.toFixed(2)} s`,
      `    reads idle:            ${row(s.idle)}`,
      `    reads while importing: ${row(s.importing)}`,
    ]),
    `a read's p99 while a ${(largest.bytes / 1024 / 1024).toFixed(1)} MB web import saves, against its idle p99: ${largest.ratio.toFixed(2)}x (target: at most ${STALL_TARGET}x)`,
  ].join('\n');
}
