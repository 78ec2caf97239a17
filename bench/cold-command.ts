// A command on a record no process holds (issue 37): preparing a one-meal proposal, on a record of
// 10,000 workouts and 20,000 proposals against the same on a record of 100 workouts and none, each
// time in a RecordService that has kept no fold (another instance, or one that restarted). Target:
// at most 2x. The large record's proposals are written straight to its stream (20,000 prepares
// would take minutes): events of the shape `proposal.prepared` has, with ~19 KB of sealed details
// each, as an agent's real batches leave. Both are measured in turns, in one process on one store;
// the figure is the median of the turns' ratios. Also, once: the same command without a snapshot.
// `npm run bench -- cold`.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { streams } from '../contracts/events.ts';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/identity/caller.ts';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { RecordService } from '../services/commands/record-service.ts';
import { FOLD_SECTIONS } from '../services/domain/record-fold.ts';
import { foldOfHead } from '../services/domain/record-snapshot.ts';
import { ReadStoreFoldSnapshots } from '../services/store/fold-snapshots.ts';
import { ProposalService } from '../services/writes/proposals.ts';
import { tempDir } from '../test/support/app.ts';
import { seedAthlete, todayLocal, trainingHistory } from '../test/support/sample-record.ts';
import { median } from './measure.ts';

export const COLD_COMMAND_TARGET = 2;
const TURNS = Number(process.env.BENCH_COLD_TURNS ?? 15);
const PROPOSALS = 20_000;

export interface ColdCommandMeasured {
  smallMs: number;
  largeMs: number;
  /** The median of the turns' large over small. */
  ratio: number;
  /** The large record's command once, with no snapshot kept: the whole stream read. */
  largeWithoutSnapshotMs: number;
  largeEvents: number;
  /** Reading the large record's snapshot head and making a fold of it, alone: what every cold command on it pays. */
  headFloorMs: number;
  /** The head's JSON size. */
  headBytes: number;
  /** How each section is kept: its rows and buckets. */
  sections: Array<{ name: string; rows: number; buckets: number }>;
}

async function callerOf(app: App, athleteId: string): Promise<Caller> {
  const { password_hash: _hash, ...athlete } = (await app.athletes.get(athleteId))!;
  return { athlete, grantId: randomUUID(), clientId: 'bench', clientName: 'Bench', scopes: ['nutrition'], writePermissions: WRITE_PERMISSIONS };
}

/** What an agent's batches leave on the stream: `proposal.prepared` events with their sealed details. */
async function appendProposals(app: App, athleteId: string, count: number): Promise<void> {
  const grant = randomUUID();
  for (let done = 0; done < count; done += 500) {
    const events = Array.from({ length: Math.min(500, count - done) }, () => {
      const commandId = randomUUID();
      const at = new Date(Date.now() - 40 * 86_400_000).toISOString();
      return {
        type: 'proposal.prepared',
        data: {
          command_id: commandId,
          grant_id: grant,
          client_id: 'bench',
          client_name: 'Bench',
          body_sha256: randomBytes(32).toString('hex'),
          prepared_at: at,
          expires_at: at,
          changes: [{ index: 0, op: 'create', kind: 'meal', id: randomUUID(), area: 'nutrition', base_revision: null }],
          dependencies: [],
          details: {
            key_id: randomUUID(),
            iv: randomBytes(12).toString('base64'),
            tag: randomBytes(16).toString('base64'),
            ciphertext: randomBytes(14_000).toString('base64'),
          },
        },
        metadata: { occurred_at: at, actor: { type: 'agent_proposal', id: commandId }, athlete_id: athleteId },
      };
    });
    await app.events.append(streams.record(athleteId), events, 'any');
  }
}

/** Prepares a one-meal proposal in a proposal service whose record service holds no fold; its milliseconds. */
async function coldPrepare(app: App, caller: Caller, snapshots: ReadStoreFoldSnapshots | null): Promise<number> {
  const records = new RecordService(app.events, app.clock, snapshots);
  const proposals = new ProposalService({ ...app, records });
  const body = writeProposalBody.parse({
    version: 'agent-access-write.v1',
    command_id: randomUUID(),
    actions: [
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: new Date(Date.now() - 3_600_000).toISOString(), name: 'Oats', calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 },
      },
    ],
  });
  const started = performance.now();
  // A connection of its own each time: one may have only so many proposals awaiting review.
  await proposals.prepare({ ...caller, grantId: randomUUID() }, body);
  const ms = performance.now() - started;
  await records.snapshotsWritten();
  return ms;
}

export async function measureColdCommand(progress: (line: string) => void): Promise<ColdCommandMeasured> {
  const dir = tempDir('repledger-bench-cold-');
  const app = await openApp(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  try {
    const history = trainingHistory(10_000, todayLocal());
    progress('seeding 100 workouts, then 10,000 workouts and 20,000 proposals');
    const small = await seedAthlete(app, { label: '100', email: 'small@bench.example', workouts: 100 }, history, dir);
    const large = await seedAthlete(app, { label: '10000', email: 'large@bench.example', workouts: 10_000 }, history, dir);
    await appendProposals(app, large.athleteId, PROPOSALS);
    const [smallCaller, largeCaller] = await Promise.all([callerOf(app, small.athleteId), callerOf(app, large.athleteId)]);
    const snapshots = new ReadStoreFoldSnapshots(app.reads);
    const largeEvents = (await app.events.streamRevision(streams.record(large.athleteId))) as number;
    // The first cold command on each keeps a snapshot (the small record's stream is too short to).
    const largeWithoutSnapshotMs = await coldPrepare(app, largeCaller, snapshots);
    await coldPrepare(app, smallCaller, snapshots);
    const smallTimes: number[] = [];
    const largeTimes: number[] = [];
    const ratios: number[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      // Who goes first alternates, so that neither always meets what the other warmed.
      let s: number;
      let l: number;
      if (turn % 2 === 0) {
        s = await coldPrepare(app, smallCaller, snapshots);
        l = await coldPrepare(app, largeCaller, snapshots);
      } else {
        l = await coldPrepare(app, largeCaller, snapshots);
        s = await coldPrepare(app, smallCaller, snapshots);
      }
      smallTimes.push(s);
      largeTimes.push(l);
      ratios.push(l / s);
    }
    const floors: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const started = performance.now();
      foldOfHead((await snapshots.head(large.athleteId))!, large.athleteId);
      floors.push(performance.now() - started);
    }
    const head = (await snapshots.head(large.athleteId))!;
    const sections = FOLD_SECTIONS.map((name) => ({ name, rows: head.sections[name].rows.reduce((a, b) => a + b, 0), buckets: head.sections[name].buckets }));
    return {
      smallMs: median(smallTimes),
      largeMs: median(largeTimes),
      ratio: median(ratios),
      largeWithoutSnapshotMs,
      largeEvents,
      headFloorMs: median(floors),
      headBytes: JSON.stringify(head).length,
      sections,
    };
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatColdCommand(m: ColdCommandMeasured): string {
  return [
    `a cold command (prepare a one-meal proposal, no fold kept), ${TURNS} turns`,
    `  100 workouts: ${m.smallMs.toFixed(1)} ms   10,000 workouts and ${PROPOSALS.toLocaleString('en-GB')} proposals (${m.largeEvents.toLocaleString('en-GB')} events): ${m.largeMs.toFixed(1)} ms (${m.largeWithoutSnapshotMs.toFixed(0)} ms without a snapshot)`,
    `  large over small, median of the turns: ${m.ratio.toFixed(2)}x   target <= ${COLD_COMMAND_TARGET}x: ${m.ratio <= COLD_COMMAND_TARGET ? 'met' : 'MISSED'}`,
    `  reading the large record's snapshot head (${(m.headBytes / 1024).toFixed(0)} KiB) and making a fold of it alone: ${m.headFloorMs.toFixed(2)} ms`,
    `  its sections, read by bucket as commands ask: ${m.sections.map((x) => `${x.name} ${x.rows.toLocaleString('en-GB')} rows in ${x.buckets} buckets`).join(', ')}`,
  ].join('\n');
}
