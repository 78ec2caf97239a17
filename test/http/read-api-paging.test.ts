// Paging a 10,000-workout history through /api/v1/workouts with limit=10 while another process
// imports more workouts into the same store: every workout present from the start is visited
// exactly once, newest first, with no repeats; workouts the import adds behind the walk's position
// are visited once, those ahead of it never.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorkoutListResponse } from '../../contracts/read-api.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { addDays, zonedTimeToUtc } from '../../services/domain/time.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import type { ParsedWorkout } from '../../services/import/types.ts';
import { formatHevyExport, generateTrainingLog } from '../fixtures/hevy-export.ts';
import { tempDir } from '../support/app.ts';
import { startCli } from '../support/cli.ts';
import { registerPro } from '../support/connect.ts';
import { botToken, readApi } from '../support/read-api.ts';
import { startServer } from '../support/server.ts';

const HISTORY = 10_000;
const FIRST_DAY = '1995-01-02';

/**
 * One short workout a day from FIRST_DAY, built as an importer's output (no CSV to write and
 * parse: the store's import is what is being exercised). Every tenth ends at the same instant as
 * the one before it, so the walk has ties for the id to break.
 */
function history(): ParsedWorkout[] {
  const out: ParsedWorkout[] = [];
  for (let i = 0; i < HISTORY; i++) {
    const tied = i % 10 === 9;
    const date = addDays(FIRST_DAY, tied ? i - 1 : i);
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const start = zonedTimeToUtc({ year, month, day, hour: tied ? 6 : 7, minute: 0, second: 0 }, 'Europe/London');
    const end = zonedTimeToUtc({ year, month, day, hour: 8, minute: 0, second: 0 }, 'Europe/London');
    out.push({
      source_ref: `history-${i}`,
      title: `Session ${i}`,
      started_at: start,
      ended_at: end,
      notes: null,
      line: i + 2,
      exercises: [
        {
          title: 'Squat',
          superset_key: null,
          notes: null,
          sets: [0, 1].map((position) => ({
            position,
            set_type: 'normal' as const,
            weight_kg: 60 + (i % 40),
            reps: 5,
            distance_metres: null,
            duration_seconds: null,
            rpe: null,
            line: i + 2,
          })),
        },
      ],
    });
  }
  return out;
}

test('10,000 workouts, limit=10, while a concurrent import adds workouts: each visited exactly once, newest first', async () => {
  const dataDir = tempDir();
  const s = await startServer({ dataDir, env: { READ_API_QUOTA_UNITS: '1000000' } });
  try {
    const athleteId = await registerPro(s.app);
    const token = await botToken(s.app, athleteId);
    const workouts = history();
    await s.app.records.import(athleteId, { app: 'hevy', file_name: 'history', file_sha256: sha256Hex('history'), workouts }, { type: 'import', id: 'test' });
    const initial = new Set((await s.app.reads.dump('workouts')).map((r) => r.doc.id));
    assert.is(initial.size, HISTORY);

    // The concurrent import, through the CLI in a process of its own, as an operator runs it: workouts
    // older than the whole history (which the walk must still reach), newer than all of it (which it
    // has passed), and in the middle of it (either, depending on where the walk stands when they land).
    const old = generateTrainingLog({ workouts: 40, seed: 3, startDate: '1990-01-01' });
    const middle = generateTrainingLog({ workouts: 40, seed: 4, startDate: '2008-03-01' });
    const newer = generateTrainingLog({ workouts: 40, seed: 5, startDate: '2023-01-02' });
    const file = join(dataDir, 'more.csv');
    writeFileSync(file, formatHevyExport([...old, ...middle, ...newer]));
    const parsed = parseHevy(formatHevyExport([...old, ...middle, ...newer]), { timezone: 'Europe/London' });
    const endOf = (w: ParsedWorkout) => w.ended_at;
    const oldEnds = new Set(parsed.slice(0, 40).map(endOf));
    const newerEnds = new Set(parsed.slice(80).map(endOf));

    const seen = new Map<string, number>();
    const order: Array<{ id: string; ended_at: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    let importer: ReturnType<typeof startCli> | null = null;
    do {
      const data: WorkoutListResponse['data'] = await readApi(
        s.base,
        token,
        'list_workouts',
        `/api/v1/workouts?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const w of data.items) {
        seen.set(w.id, (seen.get(w.id) ?? 0) + 1);
        order.push({ id: w.id, ended_at: w.ended_at });
      }
      cursor = data.next_cursor;
      pages++;
      if (pages === 50) importer = startCli(['import', 'hevy', '--athlete', 'ada@example.com', '--file', file, '--json'], { DATA_DIR: dataDir });
      if (pages === 500) {
        // Half-way through the walk (around 2008), the import has committed: the old workouts
        // lie ahead of the walk, the newer ones behind it.
        const done = await importer!.done;
        assert.is(done.code, 0, done.stderr + done.stdout);
        assert.is((JSON.parse(done.stdout) as { workouts_added: number }).workouts_added, 120);
      }
    } while (cursor);

    assert.ok(pages > 1000, `${pages} pages`);
    const repeated = [...seen].filter(([, n]) => n > 1);
    assert.equal(repeated, [], 'no workout twice');
    const missed = [...initial].filter((id) => !seen.has(id));
    assert.equal(missed, [], 'every workout present from the start');
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      assert.ok(a.ended_at > b.ended_at || (a.ended_at === b.ended_at && a.id > b.id), `newest first, ids breaking ties, at ${i}: ${JSON.stringify([a, b])}`);
    }
    const all = await s.app.reads.dump('workouts');
    assert.is(all.length, HISTORY + 120);
    const added = all.filter((r) => !initial.has(r.doc.id)).map((r) => r.doc as { id: string; ended_at: string });
    const visitedOld = added.filter((w) => oldEnds.has(w.ended_at) && seen.has(w.id)).length;
    const visitedNewer = added.filter((w) => newerEnds.has(w.ended_at) && seen.has(w.id)).length;
    assert.is(visitedOld, 40, "the workouts imported behind the walk's position are reached");
    assert.is(visitedNewer, 0, 'the workouts imported ahead of it are not');
    assert.is(seen.size, HISTORY + added.filter((w) => seen.has(w.id)).length);
    const oldest = all
      .map((r) => r.doc as { id: string; ended_at: string })
      .reduce((a, b) => (b.ended_at < a.ended_at || (b.ended_at === a.ended_at && b.id < a.id) ? b : a));
    assert.is(order.at(-1)!.id, oldest.id, 'the walk ends at the oldest workout');
  } finally {
    await s.close();
  }
});

test.run();
