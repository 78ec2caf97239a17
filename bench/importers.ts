// `npm run bench -- importers`: each importer's throughput beside the Hevy CSV import, in one
// process, each on a fresh embedded store of its own: the whole import (read, parse, decide,
// append, project, commit) of a file of realistic shape, as records saved per second and as the
// file's megabytes read per second. The best of REPEATS runs of each is kept; the ratio is against
// the Hevy import measured in the same run. Information, no target: what an athlete waits for.
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApp } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { importAppleHealth } from '../services/import/apple-health.ts';
import { importGarmin } from '../services/import/garmin.ts';
import { parseHevy } from '../services/import/hevy.ts';
import { importExport, type ImportResult } from '../services/import/run.ts';
import { writeHealthZip } from '../test/fixtures/apple-health-export.ts';
import { runFit, strengthFit, weightFit, zipOf, type StrengthSet } from '../test/fixtures/fit-files.ts';
import { generateHevyExport } from '../test/fixtures/hevy-export.ts';
import { registerAthlete, tempDir } from '../test/support/app.ts';

const REPEATS = 3;

export interface ImporterMeasured {
  importer: string;
  file: string;
  fileBytes: number;
  /** Records saved: workouts, body measurements and meals. */
  records: number;
  seconds: number;
}

interface Importer {
  name: string;
  /** Writes the file into `dir`; its path. */
  write: (dir: string) => Promise<string>;
  run: (app: Awaited<ReturnType<typeof openApp>>, athleteId: string, path: string) => Promise<ImportResult>;
}

const IMPORTERS: Importer[] = [
  {
    name: 'Hevy CSV',
    write: async (dir) => {
      // Three years at the fixture's two to three days between sessions, as `bench -- cli` imports.
      const path = join(dir, 'hevy.csv');
      writeFileSync(path, generateHevyExport({ workouts: 450, seed: 7 }));
      return path;
    },
    run: async (app, athleteId, path) => {
      const { readFileSync } = await import('node:fs');
      return importExport(app, (await app.athletes.get(athleteId))!, {
        app: 'hevy',
        fileName: 'hevy.csv',
        bytes: readFileSync(path),
        parse: (text, who) => parseHevy(text, { timezone: who.profile.timezone }),
      });
    },
  },
  {
    name: 'Apple Health',
    write: async (dir) => {
      // Three years of a watch's samples (1,000 filler samples a day: a light wearer's heart rate and steps).
      const path = join(dir, 'export.zip');
      await writeHealthZip(path, { days: 3 * 365, fillerPerDay: 1000, exportedAt: new Date().toISOString() });
      return path;
    },
    run: async (app, athleteId, path) => importAppleHealth(app, (await app.athletes.get(athleteId))!, { path, fileName: 'export.zip' }),
  },
  {
    name: 'Garmin FIT',
    write: async (dir) => {
      const path = join(dir, 'garmin.zip');
      writeFileSync(path, await garminZip());
      return path;
    },
    run: async (app, athleteId, path) => {
      const { readFileSync } = await import('node:fs');
      return importGarmin(app, (await app.athletes.get(athleteId))!, { fileName: 'garmin.zip', bytes: readFileSync(path) });
    },
  },
];

/** A strength session of a watch's: six exercises of four sets each. */
const SESSION: StrengthSet[] = (
  [
    ['benchPress', 1],
    ['squat', 0],
    ['row', 1],
    ['shoulderPress', 0],
    ['curl', 1],
    ['plank', 0],
  ] as const
).flatMap(([category, name]) => Array.from({ length: 4 }, (_, i) => ({ category, name, reps: 8 + i, weightKg: 40 + 2.5 * i, seconds: 40 })));

/**
 * Three years from a Garmin watch and scale as one zip of .fit files, as many sessions as the
 * Hevy file's 450: two strength sessions to each 30-minute run (a record message a second, as a
 * watch writes them), and a weigh-in a week.
 */
async function garminZip(): Promise<Buffer> {
  const files: Record<string, Uint8Array> = {};
  const first = Date.UTC(2023, 0, 2, 7);
  for (let i = 0; i < 450; i++) {
    const start = new Date(first + Math.floor(i * 2.4) * 86_400_000);
    const id = { serialNumber: 3_412_345_678, start };
    files[`activities/${i}.fit`] = i % 3 === 2 ? runFit(id, { seconds: 1800, pauseSeconds: 30, metres: 5500, everySeconds: 1 }) : strengthFit(id, SESSION);
  }
  for (let w = 0; w < 156; w++)
    files[`weight/${w}.fit`] = weightFit({ serialNumber: 99, start: new Date(first + w * 7 * 86_400_000) }, { kg: 80 - w / 20, fatPercent: 20 - w / 50 });
  return zipOf(files);
}

const recordsOf = (r: ImportResult) => r.workouts_added + (r.others ? r.others.measurements_added + r.others.meals_added : 0);

export async function measureImporters(progress: (line: string) => void = () => undefined): Promise<ImporterMeasured[]> {
  const dir = tempDir('repledger-bench-importers-');
  try {
    const out: ImporterMeasured[] = [];
    for (const importer of IMPORTERS) {
      const path = await importer.write(dir);
      let best: ImporterMeasured | null = null;
      for (let i = 0; i < REPEATS; i++) {
        const dataDir = join(dir, `${importer.name.replace(/\W/g, '')}-${i}`);
        const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
        try {
          const athleteId = await registerAthlete(app);
          const started = performance.now();
          const result = await importer.run(app, athleteId, path);
          const seconds = (performance.now() - started) / 1000;
          const measured = { importer: importer.name, file: path, fileBytes: statSync(path).size, records: recordsOf(result), seconds };
          if (!best || seconds < best.seconds) best = measured;
          progress(`${importer.name}: run ${i + 1} of ${REPEATS}, ${seconds.toFixed(2)} s`);
        } finally {
          await app.close();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
      out.push(best!);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatImporters(measured: readonly ImporterMeasured[]): string {
  const hevy = measured.find((m) => m.importer === 'Hevy CSV')!;
  const perSecond = (m: ImporterMeasured) => m.records / m.seconds;
  const lines = measured.map(
    (m) =>
      `${m.importer.padEnd(14)} ${(m.fileBytes / 1e6).toFixed(1).padStart(7)} MB  ${String(m.records).padStart(6)} records  ${m.seconds.toFixed(2).padStart(6)} s  ` +
      `${Math.round(perSecond(m)).toString().padStart(6)} records/s (${(perSecond(m) / perSecond(hevy)).toFixed(2)}x Hevy CSV)  ${(m.fileBytes / 1e6 / m.seconds).toFixed(1)} MB/s`,
  );
  return ['Importers: the whole import, best of 3, each on a fresh store (records: workouts, body measurements, meals)', ...lines].join('\n');
}
