// Approving and undoing a 50-change batch (issue 12), as time per change, against its floor: the
// same record events appended to a fresh stream with no load, no decision and no checks. What the
// difference holds is the command: loading and folding the record stream, deciding every change
// again, sealing the earlier bodies, and projecting. Run in the bench process on the bench's store
// (SQLite lets a second process write beside the server), after the HTTP measurements.
import { randomUUID } from 'node:crypto';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/api/auth.ts';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { median } from './measure.ts';

const CHANGES = 50;
/** Each figure is the median of this many batches. */
const REPEATS = 3;

export interface ReviewMeasured {
  athlete: string;
  approveMsPerChange: number;
  undoMsPerChange: number;
  floorMsPerChange: number;
}

async function callerOf(app: App, athleteId: string): Promise<Caller> {
  const { password_hash: _hash, ...athlete } = (await app.athletes.get(athleteId))!;
  return { athlete, grantId: randomUUID(), clientId: 'bench', clientName: 'Bench', scopes: ['training', 'recovery', 'nutrition', 'body_measurements'], writePermissions: WRITE_PERMISSIONS };
}

/** A batch of 50 changes of the kinds an agent proposes most: meals, measurements and check-ins. */
function batch(now: number) {
  const at = (i: number) => new Date(now - (i + 1) * 60_000).toISOString();
  return writeProposalBody.parse({
    version: 'agent-access-write.v1',
    command_id: randomUUID(),
    actions: Array.from({ length: CHANGES }, (_, i) =>
      i % 2 === 0
        ? { op: 'create', kind: 'meal', record: { eaten_at: at(i), name: `Bench meal ${i}`, calories_kcal: 400 + i, protein_g: 20, carbohydrate_g: 50, fat_g: 10 } }
        : { op: 'create', kind: 'body_measurement', record: { measured_at: at(i), metric: 'waist', value: 0.8 + i / 1000 } },
    ),
  });
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function measureReview(dataDir: string, athletes: Array<{ label: string; athleteId: string }>): Promise<ReviewMeasured[]> {
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const results: ReviewMeasured[] = [];
    for (const { label, athleteId } of athletes) {
      const caller = await callerOf(app, athleteId);
      const approve: number[] = [];
      const undo: number[] = [];
      const floor: number[] = [];
      for (let r = 0; r < REPEATS; r++) {
        const body = batch(Date.now());
        await app.proposals.prepare(caller, body);
        approve.push(await timed(() => app.proposals.approve(athleteId, body.command_id)));
        // The floor: the events the approval appended (the record's and the commit), appended
        // again to a fresh stream with nothing loaded, decided or checked.
        const appended = (await app.events.readStream(`record-${athleteId}`)).filter((e) => (e.metadata.actor as { id?: string }).id === athleteId).slice(-(CHANGES + 1));
        floor.push(await timed(() => app.events.append(`bench_floor-${randomUUID()}`, appended.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata })), 'no_stream')));
        undo.push(await timed(() => app.proposals.undo(athleteId, body.command_id)));
      }
      results.push({ athlete: label, approveMsPerChange: median(approve) / CHANGES, undoMsPerChange: median(undo) / CHANGES, floorMsPerChange: median(floor) / CHANGES });
    }
    return results;
  } finally {
    await app.close();
  }
}

export function formatReview(results: ReviewMeasured[]): string {
  const lines = [`approving and undoing a ${CHANGES}-change batch, per change, against appending its events with no checks (median of ${REPEATS}):`];
  for (const r of results) {
    const approve = r.approveMsPerChange / r.floorMsPerChange;
    const undo = r.undoMsPerChange / r.floorMsPerChange;
    lines.push(
      `  athlete ${r.athlete}: floor ${r.floorMsPerChange.toFixed(3)} ms; approve ${r.approveMsPerChange.toFixed(3)} ms = ${approve.toFixed(1)}x; undo ${r.undoMsPerChange.toFixed(3)} ms = ${undo.toFixed(1)}x  (issue 18's target <= 2x: ${approve <= 2 && undo <= 2 ? 'met' : 'not met'})`,
    );
  }
  return lines.join('\n');
}
