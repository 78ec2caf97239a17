// A real app on a throwaway embedded store, for tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApp, type App } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { fixedClock } from '../../services/domain/clock.ts';

export interface TestApp {
  app: App;
  dataDir: string;
  clock: ReturnType<typeof fixedClock>;
  close(): Promise<void>;
}

/** Directories made by this test process, removed when it exits (each test file is one process). */
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'repledger-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export async function openTestApp(options: { dataDir?: string; now?: string } = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDir();
  const clock = fixedClock(options.now ?? '2026-06-01T12:00:00.000Z');
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), clock);
  return {
    app,
    dataDir,
    clock,
    async close() {
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every read-model document, collection by collection (the runner's checkpoints and lease left out). */
export async function dumpReadModels(app: App): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const spec of app.runner.projections.flatMap((p) => p.collections)) out[spec.name] = await app.reads.dump(spec.name);
  return out;
}

/**
 * The read models of the athlete's record: every collection but those of proposals (their
 * documents and waiting lists) and of the connections' usage, which a proposal's life changes
 * without changing the record.
 */
export async function recordModels(app: App): Promise<Record<string, unknown>> {
  const { proposals: _p, proposals_waiting: _w, connection_usage: _u, ...record } = await dumpReadModels(app);
  return record;
}

export async function registerAthlete(app: App, overrides: { email?: string; timezone?: string; tier?: 'free' | 'pro' } = {}): Promise<string> {
  const { athlete_id } = await app.athletes.register(
    {
      email: overrides.email ?? 'ada@example.com',
      password: 'correct horse battery staple',
      tier: overrides.tier ?? 'pro',
      profile: {
        display_name: 'Ada',
        timezone: overrides.timezone ?? 'Europe/London',
        unit_preference: 'kg',
        height_unit_preference: 'cm',
        bodyweight_unit_preference: 'kg',
      },
    },
    { type: 'operator', id: 'test' },
  );
  return athlete_id;
}
