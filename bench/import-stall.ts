// How long the service keeps another request waiting while it saves an import, on the embedded
// store: `npm run bench -- import-stall`. The app and its HTTP server run in this process, as
// `repledger serve` runs them, and the import goes through the same function as the web upload's.
// A child process sends GET /health (which asks both stores) back to back for the whole import and
// reports the longest any of them waited. Two files, each into a fresh athlete, in this order: a
// year of training (the first import of the process, as a server's first upload is) and one at
// the web upload's size limit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { buildServer } from '../services/http/server.ts';
import { parseHevy } from '../services/import/hevy.ts';
import { importExport } from '../services/import/run.ts';
import { IMPORT_MAX_BYTES } from '../services/web/import.ts';
import { generateHevyExport } from '../test/fixtures/hevy-export.ts';
import { registerAthlete, tempDir } from '../test/support/app.ts';

export interface ImportStall {
  workouts: number;
  bytes: number;
  importSeconds: number;
  /** The longest a /health request sent during the import waited for its answer. */
  longestWaitSeconds: number;
  requests: number;
}

/** A year at six sessions a week, and about as many as fit in the web upload's limit. */
const FILES = [{ workouts: 300 }, { workouts: 3800 }];

/** Sends GET `url` back to back until told to stop on stdin; prints the longest wait and the count. */
const PINGER = `
let longest = 0, requests = 0, stop = false;
process.stdin.once('data', () => (stop = true));
(async () => {
  while (!stop) {
    const started = performance.now();
    const res = await fetch(process.argv[1]);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('health answered ' + res.status);
    longest = Math.max(longest, performance.now() - started);
    requests++;
  }
  console.log(JSON.stringify({ longestWaitSeconds: longest / 1000, requests }));
})();`;

export async function measureImportStalls(): Promise<ImportStall[]> {
  const app = await openApp(loadConfig({ DATA_DIR: tempDir('repledger-bench-stall-'), LOG_LEVEL: 'silent' }));
  const server = await buildServer(app, { logger: false });
  try {
    await server.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/health`;
    const stalls: ImportStall[] = [];
    for (const [i, { workouts }] of FILES.entries()) {
      const csv = generateHevyExport({ workouts, seed: 7 });
      if (Buffer.byteLength(csv) > IMPORT_MAX_BYTES) throw new Error(`a ${workouts}-workout file is over the upload limit`);
      const athlete = (await app.athletes.get(await registerAthlete(app, { email: `stall-${i}@bench.example` })))!;
      const pinger = spawn(process.execPath, ['-e', PINGER, url], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      pinger.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // Pinging before the import starts, so that one request is always waiting when it does.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      await importExport(app, athlete, { app: 'hevy', fileName: 'hevy.csv', bytes: Buffer.from(csv), parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }) });
      const importSeconds = (performance.now() - started) / 1000;
      // A request held by the import is answered only now: let it finish before stopping.
      await new Promise((resolve) => setTimeout(resolve, 300));
      pinger.stdin.end('stop\n');
      const [code] = (await once(pinger, 'close')) as [number];
      if (code !== 0) throw new Error(`the pinger exited ${code}`);
      stalls.push({ workouts, bytes: Buffer.byteLength(csv), importSeconds, ...(JSON.parse(out) as Pick<ImportStall, 'longestWaitSeconds' | 'requests'>) });
    }
    return stalls;
  } finally {
    await server.close();
    await app.close();
  }
}

export function formatImportStalls(stalls: ImportStall[]): string {
  return [
    'an import saved by the service (embedded store), and GET /health sent back to back meanwhile by another process:',
    ...stalls.map(
      (s) =>
        `  ${s.workouts} workouts (${(s.bytes / 1024 / 1024).toFixed(1)} MB): import ${s.importSeconds.toFixed(2)} s; longest wait of a request ${s.longestWaitSeconds.toFixed(2)} s (${s.requests} requests)`,
    ),
  ].join('\n');
}
