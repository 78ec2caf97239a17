// Approving and undoing a 50-change batch (issue 12), as time per change, against its floor: the
// same record events appended to a fresh stream with no load, no decision and no checks; both
// sides project what they append (inline, in the append's transaction). What the difference holds
// is the command: catching the record's fold up, reading the proposal back, opening and sealing
// its details, deciding every change again and checking the events, the receipt's link. Run in
// the bench process on the bench's store (SQLite lets a second process write beside the server),
// after the HTTP measurements, or alone (`npm run bench -- review`).
import { randomUUID } from 'node:crypto';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/api/auth.ts';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { median } from './measure.ts';

const CHANGES = 50;
/**
 * Each figure is the median of this many batches (BENCH_REVIEW_REPEATS), after one unmeasured
 * batch that warms both the command and the floor. Every commit waits for the disk (the store
 * syncs each transaction), which on a shared machine varies by several times from one to the next.
 */
const REPEATS = Number(process.env.BENCH_REVIEW_REPEATS ?? 7);

export interface ReviewMeasured {
  athlete: string;
  approveMsPerChange: number;
  undoMsPerChange: number;
  floorMsPerChange: number;
  /** Medians of each batch's time over the floor measured next to it: steadier than a ratio of medians. */
  approveOverFloor: number;
  undoOverFloor: number;
  /** CPU time (this process, all its threads), which the disk's waits leave out. */
  approveCpuMsPerChange: number;
  undoCpuMsPerChange: number;
  floorCpuMsPerChange: number;
}

async function callerOf(app: App, athleteId: string): Promise<Caller> {
  const { password_hash: _hash, ...athlete } = (await app.athletes.get(athleteId))!;
  return { athlete, grantId: randomUUID(), clientId: 'bench', clientName: 'Bench', scopes: ['training', 'recovery', 'nutrition', 'body_measurements'], writePermissions: WRITE_PERMISSIONS };
}

/** A batch of 50 changes of the kinds an agent proposes most: meals and body measurements. */
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

interface Timing {
  ms: number;
  cpuMs: number;
}

async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

export async function measureReview(dataDir: string, athletes: Array<{ label: string; athleteId: string }>): Promise<ReviewMeasured[]> {
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const results: ReviewMeasured[] = [];
    for (const { label, athleteId } of athletes) {
      const caller = await callerOf(app, athleteId);
      const stream = `record-${athleteId}`;
      const approve: Timing[] = [];
      const undo: Timing[] = [];
      const floor: Timing[] = [];
      for (let r = -1; r < REPEATS; r++) {
        const body = batch(Date.now());
        await app.proposals.prepare(caller, body);
        const before = await app.events.streamRevision(stream);
        const approved = await timed(() => app.proposals.approve(athleteId, body.command_id));
        // The floor: the events the approval appended (the record's and the commit), appended
        // again to a fresh stream with nothing loaded, decided or checked. Only the stream's tail is
        // read: the whole 10,000-workout record (~15,000 events) left garbage whose collection
        // landed in the floor's own timing, up to ten times the append.
        const tail = await app.events.readStream(stream, before === 'no_stream' ? 0 : before + 1);
        const appended = tail.filter((e) => (e.metadata.actor as { id?: string }).id === athleteId);
        if (appended.length !== CHANGES + 1) throw new Error(`the approval appended ${appended.length} events of the athlete's, expected ${CHANGES + 1}`);
        const floored = await timed(() => app.events.append(`bench_floor-${randomUUID()}`, appended.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata })), 'no_stream'));
        const undone = await timed(() => app.proposals.undo(athleteId, body.command_id));
        if (r < 0) continue;
        approve.push(approved);
        floor.push(floored);
        undo.push(undone);
      }
      const perChange = (list: Timing[], of: keyof Timing) => median(list.map((t) => t[of])) / CHANGES;
      const overFloor = (list: Timing[]) => median(list.map((t, i) => t.ms / floor[i]!.ms));
      results.push({
        athlete: label,
        approveMsPerChange: perChange(approve, 'ms'),
        undoMsPerChange: perChange(undo, 'ms'),
        floorMsPerChange: perChange(floor, 'ms'),
        approveOverFloor: overFloor(approve),
        undoOverFloor: overFloor(undo),
        approveCpuMsPerChange: perChange(approve, 'cpuMs'),
        undoCpuMsPerChange: perChange(undo, 'cpuMs'),
        floorCpuMsPerChange: perChange(floor, 'cpuMs'),
      });
    }
    return results;
  } finally {
    await app.close();
  }
}

export function formatReview(results: ReviewMeasured[]): string {
  const lines = [`approving and undoing a ${CHANGES}-change batch, per change, against appending its events with no checks (medians of ${REPEATS}; x: each batch over the floor next to it):`];
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  for (const r of results) {
    const met = r.approveOverFloor <= 2 && r.undoOverFloor <= 2;
    lines.push(
      `  athlete ${r.athlete}: floor ${ms(r.floorMsPerChange)} (2x: ${ms(2 * r.floorMsPerChange)}); approve ${ms(r.approveMsPerChange)} = ${r.approveOverFloor.toFixed(1)}x; undo ${ms(r.undoMsPerChange)} = ${r.undoOverFloor.toFixed(1)}x  (issue 18's target <= 2x: ${met ? 'met' : 'not met'})`,
      `    CPU: floor ${ms(r.floorCpuMsPerChange)}; approve ${ms(r.approveCpuMsPerChange)} = ${(r.approveCpuMsPerChange / r.floorCpuMsPerChange).toFixed(1)}x; undo ${ms(r.undoCpuMsPerChange)} = ${(r.undoCpuMsPerChange / r.floorCpuMsPerChange).toFixed(1)}x`,
    );
  }
  return lines.join('\n');
}
