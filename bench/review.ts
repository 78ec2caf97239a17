// Approving and undoing a 50-change batch (issue 12), as time per change, each against its floor:
// the events that command appended, appended again to a fresh stream with no load, no decision
// and no checks, in the store state the command met (the approval's once the undo has removed the
// documents it created, the undo's after that); both sides project what they append (inline, in
// the append's transaction). What the difference holds is the command: catching the record's fold
// up, reading the proposal back, opening and sealing its details, deciding every change again and
// checking the events, the receipt's link. Run in the bench process on the bench's store (SQLite
// lets a second process write beside the server), after the HTTP measurements, or alone
// (`npm run bench -- review`).
import { randomUUID } from 'node:crypto';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/identity/caller.ts';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { median } from './measure.ts';

const CHANGES = 50;
/** Issue 18: approving and undoing within this many times their floor. */
export const REVIEW_TARGET = 2;
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
  /** Appending the approval's events, and the undo's, with nothing decided or checked. */
  approveFloorMsPerChange: number;
  undoFloorMsPerChange: number;
  /** Medians of each batch's time over its own floor: steadier than a ratio of medians. */
  approveOverFloor: number;
  undoOverFloor: number;
  /** CPU time (this process, all its threads), which the disk's waits leave out. */
  approveCpuMsPerChange: number;
  undoCpuMsPerChange: number;
  approveFloorCpuMsPerChange: number;
  undoFloorCpuMsPerChange: number;
}

async function callerOf(app: App, athleteId: string): Promise<Caller> {
  const { password_hash: _hash, ...athlete } = (await app.athletes.get(athleteId))!;
  return {
    athlete,
    grantId: randomUUID(),
    clientId: 'bench',
    clientName: 'Bench',
    scopes: ['training', 'recovery', 'nutrition', 'body_measurements'],
    writePermissions: WRITE_PERMISSIONS,
  };
}

/** A batch of 50 changes of the kinds an agent proposes most: meals and body measurements. */
function batch(now: number) {
  const at = (i: number) => new Date(now - (i + 1) * 60_000).toISOString();
  return writeProposalBody.parse({
    version: 'agent-access-write.v1',
    command_id: randomUUID(),
    actions: Array.from({ length: CHANGES }, (_, i) =>
      i % 2 === 0
        ? {
            op: 'create',
            kind: 'meal',
            record: { eaten_at: at(i), name: `Bench meal ${i}`, calories_kcal: 400 + i, protein_g: 20, carbohydrate_g: 50, fat_g: 10 },
          }
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

/** The revision of a stream the bench has just appended to (the proposal's prepare made it). */
async function revisionOf(app: App, stream: string): Promise<number> {
  const revision = await app.events.streamRevision(stream);
  if (revision === 'no_stream') throw new Error(`${stream} has no events after a prepare`);
  return revision;
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
      const approveFloor: Timing[] = [];
      const undoFloor: Timing[] = [];
      for (let r = -1; r < REPEATS; r++) {
        const body = batch(Date.now());
        await app.proposals.prepare(caller, body);
        const before = await revisionOf(app, stream);
        const approved = await timed(() => app.proposals.approve(athleteId, body.command_id));
        const between = await revisionOf(app, stream);
        const undone = await timed(() => app.proposals.undo(athleteId, body.command_id));
        // The floors: the events each command appended (the record's and the proposal's), appended
        // again to a fresh stream with nothing loaded, decided or checked, and projected as they
        // were: the approval's once the undo has removed what it created (so its documents are
        // created anew, not overwritten, which costs less), then the undo's, which removes them
        // again. Only the stream's tail is read: the whole 10,000-workout record (~15,000 events)
        // left garbage whose collection landed in a floor's own timing.
        const tail = await app.events.readStream(stream, before + 1);
        const approval = tail.filter((e) => e.revision <= between);
        const undoing = tail.slice(approval.length);
        if (approval.length !== CHANGES + 1 || undoing.length !== CHANGES + 1)
          throw new Error(`approve appended ${approval.length} events and undo ${undoing.length}, expected ${CHANGES + 1} each`);
        const floorStream = `bench_floor-${randomUUID()}`;
        const again = (events: typeof tail) => events.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata }));
        const approvalFloored = await timed(() => app.events.append(floorStream, again(approval), 'no_stream'));
        const undoFloored = await timed(() => app.events.append(floorStream, again(undoing), CHANGES));
        if (r < 0) continue;
        approve.push(approved);
        undo.push(undone);
        approveFloor.push(approvalFloored);
        undoFloor.push(undoFloored);
      }
      const perChange = (list: Timing[], of: keyof Timing) => median(list.map((t) => t[of])) / CHANGES;
      const overFloor = (list: Timing[], floor: Timing[]) => median(list.map((t, i) => t.ms / floor[i]!.ms));
      results.push({
        athlete: label,
        approveMsPerChange: perChange(approve, 'ms'),
        undoMsPerChange: perChange(undo, 'ms'),
        approveFloorMsPerChange: perChange(approveFloor, 'ms'),
        undoFloorMsPerChange: perChange(undoFloor, 'ms'),
        approveOverFloor: overFloor(approve, approveFloor),
        undoOverFloor: overFloor(undo, undoFloor),
        approveCpuMsPerChange: perChange(approve, 'cpuMs'),
        undoCpuMsPerChange: perChange(undo, 'cpuMs'),
        approveFloorCpuMsPerChange: perChange(approveFloor, 'cpuMs'),
        undoFloorCpuMsPerChange: perChange(undoFloor, 'cpuMs'),
      });
    }
    return results;
  } finally {
    await app.close();
  }
}

export function formatReview(results: ReviewMeasured[]): string {
  const lines = [
    `approving and undoing a ${CHANGES}-change batch, per change, against appending the same events with no checks (medians of ${REPEATS}; x: each batch over its floor, measured right after it in the same store state):`,
  ];
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  for (const r of results) {
    const met = r.approveOverFloor <= REVIEW_TARGET && r.undoOverFloor <= REVIEW_TARGET;
    lines.push(
      `  athlete ${r.athlete}: approve ${ms(r.approveMsPerChange)}, floor ${ms(r.approveFloorMsPerChange)} = ${r.approveOverFloor.toFixed(1)}x; undo ${ms(r.undoMsPerChange)}, floor ${ms(r.undoFloorMsPerChange)} = ${r.undoOverFloor.toFixed(1)}x  (issue 18's target <= ${REVIEW_TARGET}x: ${met ? 'met' : 'not met'})`,
      `    CPU: approve ${ms(r.approveCpuMsPerChange)} = ${(r.approveCpuMsPerChange / r.approveFloorCpuMsPerChange).toFixed(1)}x of ${ms(r.approveFloorCpuMsPerChange)}; undo ${ms(r.undoCpuMsPerChange)} = ${(r.undoCpuMsPerChange / r.undoFloorCpuMsPerChange).toFixed(1)}x of ${ms(r.undoFloorCpuMsPerChange)}`,
    );
  }
  return lines.join('\n');
}
