// The proposals page with 200 batches waiting against the same page with 2 (issue 35): the list
// reads each proposal's metadata, never its sealed details, so its time should not follow the
// bytes waiting. Target: the page with 200 answers within 2x its time with 2. Both athletes' pages
// are asked in turns (one request each a turn), in one process on one store, so that whatever the
// machine is doing meets both alike; the figure is the median of the turns' ratios.
// `npm run bench -- pending`.
import { randomUUID } from 'node:crypto';
import { WRITE_POLICY } from '../contracts/policy.ts';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { writeProposalBody } from '../contracts/write.ts';
import type { Caller } from '../services/identity/caller.ts';
import type { App } from '../services/app.ts';
import { PASSWORD } from '../test/support/connect.ts';
import { startServer, type FormClient } from '../test/support/server.ts';
import { signedInClient } from '../test/support/web-record.ts';
import { median } from './measure.ts';

export const PENDING_LIST_TARGET = 2;
const FEW = 2;
const MANY = 200;
const CHANGES = 50;
const TURNS = Number(process.env.BENCH_PENDING_TURNS ?? 60);
const WARM_UP = 10;

export interface PendingListMeasured {
  fewMs: number;
  manyMs: number;
  /** The median of each turn's time with 200 over its time with 2. */
  ratio: number;
  /** The sealed bytes the 200 proposals hold in the log, none of which the list reads. */
  sealedBytes: number;
}

async function athlete(app: App, email: string): Promise<string> {
  const profile = {
    display_name: 'Bench',
    timezone: 'Europe/London',
    unit_preference: 'kg' as const,
    height_unit_preference: 'cm' as const,
    bodyweight_unit_preference: 'kg' as const,
  };
  return (await app.athletes.register({ email, password: PASSWORD, tier: 'pro', profile }, { type: 'operator', id: 'bench' })).athlete_id;
}

/** `count` batches of 50 meals with long names, each connection holding as many as it may at once. */
async function prepareMany(app: App, athleteId: string, count: number): Promise<number> {
  const { password_hash: _hash, ...account } = (await app.athletes.get(athleteId))!;
  const perConnection = WRITE_POLICY.pendingProposalsPerConnection;
  let caller: Caller | null = null;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    if (i % perConnection === 0)
      caller = {
        athlete: account,
        grantId: randomUUID(),
        clientId: 'bench',
        clientName: `Bench ${i / perConnection}`,
        scopes: ['nutrition'],
        writePermissions: WRITE_PERMISSIONS,
      };
    const eatenAt = new Date(Date.now() - 3_600_000).toISOString();
    const body = writeProposalBody.parse({
      version: 'agent-access-write.v1',
      command_id: randomUUID(),
      actions: Array.from({ length: CHANGES }, (_, j) => ({
        op: 'create',
        kind: 'meal',
        record: { eaten_at: eatenAt, name: `Meal ${i}.${j} `.padEnd(200, 'x'), calories_kcal: 500, protein_g: 30, carbohydrate_g: 60, fat_g: 15 },
      })),
    });
    bytes += JSON.stringify(body).length;
    await app.proposals.prepare(caller!, body);
  }
  return bytes;
}

async function timedPage(client: FormClient): Promise<number> {
  const started = performance.now();
  const page = await client.get('/proposals');
  const ms = performance.now() - started;
  if (page.status !== 200) throw new Error(`/proposals answered ${page.status}`);
  return ms;
}

export async function measurePendingList(): Promise<PendingListMeasured> {
  const s = await startServer();
  try {
    const few = await athlete(s.app, 'few@example.com');
    const many = await athlete(s.app, 'many@example.com');
    await prepareMany(s.app, few, FEW);
    const sealedBytes = await prepareMany(s.app, many, MANY);
    const [a, b] = await Promise.all([signedInClient(s.base, 'few@example.com'), signedInClient(s.base, 'many@example.com')]);
    const fewTimes: number[] = [];
    const manyTimes: number[] = [];
    const ratios: number[] = [];
    for (let turn = 0; turn < WARM_UP + TURNS; turn++) {
      // Who goes first alternates, so that neither always meets what the other warmed.
      let fewMs: number;
      let manyMs: number;
      if (turn % 2 === 0) {
        fewMs = await timedPage(a);
        manyMs = await timedPage(b);
      } else {
        manyMs = await timedPage(b);
        fewMs = await timedPage(a);
      }
      if (turn < WARM_UP) continue;
      fewTimes.push(fewMs);
      manyTimes.push(manyMs);
      ratios.push(manyMs / fewMs);
    }
    return { fewMs: median(fewTimes), manyMs: median(manyTimes), ratio: median(ratios), sealedBytes };
  } finally {
    await s.close();
  }
}

export function formatPendingList(m: PendingListMeasured): string {
  return [
    `proposals page (GET /proposals), ${MANY} batches waiting against ${FEW}, ${TURNS} turns`,
    `  with ${FEW}: ${m.fewMs.toFixed(1)} ms   with ${MANY}: ${m.manyMs.toFixed(1)} ms   (${(m.sealedBytes / 1e6).toFixed(1)} MB of bodies waiting)`,
    `  ${MANY} over ${FEW}, median of the turns: ${m.ratio.toFixed(2)}x   target <= ${PENDING_LIST_TARGET}x: ${m.ratio <= PENDING_LIST_TARGET ? 'met' : 'MISSED'}`,
  ].join('\n');
}
