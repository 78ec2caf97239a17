// For random sequences of the athlete's own edits (creates, updates and deletes of meals,
// check-ins, body measurements, goals, workouts and custom exercises), agents' proposals (prepared,
// then approved at once, later, or never; rejected), undos of approved batches and undos of edits,
// on a real embedded app: some moves are refused (a stale revision, a day taken, an undo that is
// not of the last edit, blocked, or past its window), and a refused move changes nothing, not the
// log nor any read model. After every sequence the read models equal a full replay of the log, and
// the athlete's receipt chain, recomputed from the log as `repledger receipts verify` does,
// holds: one link for every commit and undo of a batch, the edits between them breaking none.
//
// Each sequence runs on an app and store of its own (a copy of one with the athlete registered).
// The seed is printed when a sequence fails; run it again with EDITS_PROPERTY_SEED=<seed>.
import { cpSync, rmSync } from 'node:fs';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { streams } from '../../contracts/events.ts';
import type { RecordKind } from '../../contracts/record.ts';
import { WRITE_KINDS, writeAction, writeKindOf, type WriteAction, type WriteKind } from '../../contracts/write.ts';
import { verifyChains } from '../../services/audit/audit.ts';
import { ReviewRefusal } from '../../services/domain/proposal-review.ts';
import { WriteRefusal } from '../../services/domain/proposal.ts';
import { addDays, todayIn } from '../../services/domain/time.ts';
import { dumpReadModels, openTestApp, registerAthlete, tempDir, type TestApp } from '../support/app.ts';
import { workoutSet } from '../support/sets.ts';
import { agentCaller, seedRecord, validBody, type Seeded } from '../support/writes.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const TZ = 'Europe/London';
const RUNS = 40;
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The kinds changed at random; a custom exercise is only created (an edit or batch may then use it). */
const KINDS = ['meal', 'recovery_checkin', 'body_measurement', 'goal', 'completed_workout', 'exercise'] as const satisfies readonly WriteKind[];
type Kind = (typeof KINDS)[number];

/** One action, drawn before the record it applies to is known: resolved against the record as it is then. */
interface ActionSpec {
  op: 'create' | 'update' | 'delete';
  kind: Kind;
  /** Which of the live items of its kind an update or delete changes; which exercise a workout or goal uses. */
  pick: number;
  /** An update or delete against a revision the item is no longer at. */
  stale: boolean;
  /**
   * An update or delete of one of the two items of its kind changed last: what the last edit or
   * batch changed is changed again, so that undoing that one is often blocked.
   */
  recent: boolean;
  hours: number;
  n: number;
}

type Step =
  | { type: 'edit'; actions: ActionSpec[] }
  | { type: 'propose'; actions: ActionSpec[]; review: 'approve' | 'reject' | 'leave' }
  | { type: 'approve_pending'; pick: number }
  /** An agent's batch approved that updates or deletes an item the last edit changed (its undo is then blocked). */
  | { type: 'touch_last_edit'; action: ActionSpec }
  | { type: 'undo_batch'; pick: number }
  /** Undo the last edit saved, or any one (refused unless it is the last, not yet undone). */
  | { type: 'undo_edit'; which: 'last' | 'other'; pick: number }
  | { type: 'advance'; minutes: number };

const actionSpec: fc.Arbitrary<ActionSpec> = fc.record({
  op: fc.constantFrom('create', 'create', 'update', 'delete'),
  kind: fc.constantFrom(...KINDS),
  pick: fc.nat(),
  stale: fc.nat({ max: 7 }).map((n) => n === 0),
  recent: fc.boolean(),
  hours: fc.integer({ min: 1, max: 72 }),
  n: fc.integer({ min: 1, max: 5 }),
});
const actions = fc.array(actionSpec, { minLength: 1, maxLength: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('edit' as const), actions }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('propose' as const), actions, review: fc.constantFrom('approve', 'approve', 'reject', 'leave') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('approve_pending' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('undo_batch' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('undo_edit' as const), which: fc.constantFrom('last', 'other'), pick: fc.nat() }) },
  // Mostly minutes; past a proposal's expiry (30 minutes) now and then, past the undo window (30 days) rarely.
  { weight: 2, arbitrary: fc.record({ type: fc.constant('advance' as const), minutes: fc.constantFrom(1, 5, 20, 45, 24 * 60, 31 * 24 * 60) }) },
);

/**
 * Steps, now and then an agent's batch changing what the last edit changed followed by the
 * athlete's undo of that edit: few random sequences would otherwise have an undo blocked so.
 */
const sequence: fc.Arbitrary<Step[]> = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: step.map((s) => [s]) },
      {
        weight: 1,
        arbitrary: actionSpec.map((action): Step[] => [
          { type: 'touch_last_edit', action },
          { type: 'undo_edit', which: 'last', pick: 0 },
        ]),
      },
    ),
    { minLength: 3, maxLength: 12 },
  )
  .map((steps) => steps.flat());

/** The items of the record as its events leave them: each one's revision, body, and whether it is deleted. */
type Items = Map<string, { kind: RecordKind; id: string; revision: number; deleted: boolean; item: Record<string, unknown> | null; changedAt: number }>;

async function itemsOf(t: TestApp, athleteId: string): Promise<Items> {
  const items: Items = new Map();
  for (const e of await t.app.events.readStream(streams.record(athleteId))) {
    const match = /^([a-z_]+)\.(created|updated|deleted)$/.exec(e.type);
    if (!match) continue;
    const kind = match[1] as RecordKind;
    const data = e.data as { item?: Record<string, unknown> & { id: string }; id?: string; revision: number };
    const id = data.item?.id ?? data.id!;
    const item = data.item ?? items.get(`${kind}/${id}`)?.item ?? null;
    items.set(`${kind}/${id}`, { kind, id, revision: data.revision, deleted: match[2] === 'deleted', item, changedAt: e.revision });
  }
  return items;
}

/** The write actions a drawn batch stands for, on the record as `items` holds it at `now`. */
function resolve(specs: readonly ActionSpec[], items: Items, seeded: Seeded, now: number): WriteAction[] {
  const liveOf = (kind: RecordKind) => [...items.values()].filter((i) => i.kind === kind && !i.deleted);
  const ago = (hours: number) => new Date(now - hours * HOUR).toISOString();
  const today = todayIn(TZ, now);
  // The exercises a record may use: the seeded one, the custom ones, and one this batch creates (by ref).
  const exercises: Array<string | { ref: string }> = [seeded.exerciseId, ...liveOf('exercise').map((e) => e.id)];
  const out: WriteAction[] = [];
  specs.forEach((s, index) => {
    const exercise = exercises[s.pick % exercises.length]!;
    const record = (kind: Kind, current: Record<string, unknown> | null): Record<string, unknown> => {
      switch (kind) {
        case 'meal':
          return { eaten_at: ago(s.hours), name: `Meal ${s.n}`, calories_kcal: 100 * s.n, protein_g: 5 * s.n, carbohydrate_g: null, fat_g: null };
        case 'recovery_checkin': {
          // A new check-in takes a day of the last week (some taken already), or tomorrow (refused); an update keeps its day.
          const offset = s.hours % 8;
          return {
            date: (current?.date as string | undefined) ?? addDays(today, offset === 7 ? 1 : -offset),
            sleep_quality: s.n,
            energy: 6 - s.n,
            soreness: null,
            stress: 3,
          };
        }
        case 'body_measurement': {
          const metric = (['bodyweight', 'waist', 'body_fat'] as const)[s.n % 3]!;
          return { measured_at: ago(s.hours), metric, value: { bodyweight: 70 + s.n, waist: 0.8 + s.n / 100, body_fat: 15 + s.n }[metric] };
        }
        case 'goal':
          return s.n % 2 === 0
            ? { goal_type: 'target_1rm', status: 'active', exercise_id: exercise, target_value: 100 + 10 * s.n, target_unit: 'kg', achieved_at: null }
            : { goal_type: 'daily_calories', status: 'achieved', exercise_id: null, target_value: 2000 + s.n, target_unit: 'kcal', achieved_at: ago(s.hours) };
        case 'completed_workout':
          return {
            title: `Session ${s.n}`,
            started_at: ago(s.hours + 1),
            ended_at: ago(s.hours),
            notes: null,
            exercises: [
              {
                exercise_id: exercise,
                exercise_order: 0,
                superset_id: null,
                notes: null,
                sets: Array.from({ length: s.n }, (_, p) => workoutSet(p, { weight_kg: 40 + p, reps: 8 })),
              },
            ],
          };
        case 'exercise':
          // Names repeat now and then: a second exercise of a name is refused.
          return { name: `Custom ${s.pick % 6}`, muscle_group: null, tracking_type: 'weight_reps' };
      }
    };
    const all = liveOf(WRITE_KINDS[s.kind]).sort((a, b) => b.changedAt - a.changedAt);
    const targets = s.recent ? all.slice(0, 2) : all;
    if (s.op === 'create' || s.kind === 'exercise' || targets.length === 0) {
      const ref = s.kind === 'exercise' ? `ex${index}` : undefined;
      out.push({ op: 'create', kind: s.kind, record: record(s.kind, null), ...(ref ? { ref } : {}) } as WriteAction);
      if (ref) exercises.push({ ref });
      return;
    }
    const target = targets[s.pick % targets.length]!;
    const base_revision = s.stale ? target.revision + (target.revision > 1 ? -1 : 1) : target.revision;
    out.push(
      s.op === 'delete'
        ? { op: 'delete', kind: s.kind, id: target.id, base_revision }
        : ({ op: 'update', kind: s.kind, id: target.id, base_revision, record: record(s.kind, target.item) } as WriteAction),
    );
  });
  // As the web app's form and the write operations parse them: the generator makes valid shapes only.
  return z.array(writeAction).parse(out) as WriteAction[];
}

/** The refusals of the athlete's and the agent's moves; anything else thrown (a record decider's DomainError let through) fails the test. */
const isRefusal = (error: unknown): error is WriteRefusal | ReviewRefusal => error instanceof WriteRefusal || error instanceof ReviewRefusal;

interface Tally {
  steps: Record<string, number>;
  refused: Record<string, number>;
  editsUndone: number;
  batchesUndone: number;
}

/** An athlete with a seeded record, in a store closed and kept as a template: registering (scrypt) costs most of a second. */
interface Template {
  dataDir: string;
  athleteId: string;
  seeded: Seeded;
}

async function template(): Promise<Template> {
  const t = await openTestApp({ dataDir: tempDir(), now: NOW });
  try {
    const athleteId = await registerAthlete(t.app, { timezone: TZ });
    return { dataDir: t.dataDir, athleteId, seeded: await seedRecord(t.app, athleteId) };
  } finally {
    await t.close();
  }
}

async function runSequence(from: Template, steps: readonly Step[], tally: Tally): Promise<void> {
  // A store of its own for every sequence, copied from the template.
  const dataDir = tempDir();
  cpSync(from.dataDir, dataDir, { recursive: true });
  const t = await openTestApp({ dataDir, now: NOW });
  try {
    const { athleteId, seeded } = from;
    const edits: string[] = [];
    const committed: string[] = [];
    const pending: string[] = [];
    const logLength = () => t.app.events.headPosition();

    for (const s of steps) {
      const before = { log: await logLength(), models: await dumpReadModels(t.app) };
      const now = t.app.clock.now().getTime();
      const move = async (): Promise<void> => {
        switch (s.type) {
          case 'edit': {
            const saved = await t.app.edits.save(athleteId, TZ, resolve(s.actions, await itemsOf(t, athleteId), seeded, now));
            edits.push(saved.edit_id);
            assert.is((await t.app.edits.last(athleteId))?.edit_id, saved.edit_id, 'the edit saved is the last edit');
            return;
          }
          case 'propose': {
            const body = validBody(resolve(s.actions, await itemsOf(t, athleteId), seeded, now));
            await t.app.proposals.prepare(await agentCaller(t.app, athleteId), body);
            if (s.review === 'leave') pending.push(body.command_id);
            else if (s.review === 'reject') await t.app.proposals.reject(athleteId, body.command_id);
            else if ((await t.app.proposals.approve(athleteId, body.command_id)).outcome === 'committed') committed.push(body.command_id);
            return;
          }
          case 'approve_pending': {
            const commandId = pending.splice(s.pick % Math.max(pending.length, 1), 1)[0];
            if (commandId && (await t.app.proposals.approve(athleteId, commandId)).outcome === 'committed') committed.push(commandId);
            return;
          }
          case 'touch_last_edit': {
            const items = await itemsOf(t, athleteId);
            const affected = ((await t.app.edits.last(athleteId))?.affected ?? [])
              .map((x) => items.get(`${x.kind}/${x.id}`)!)
              .filter((i) => !i.deleted && i.kind !== 'exercise' && i.kind !== 'feedback');
            const target = affected[s.action.pick % Math.max(affected.length, 1)];
            if (!target) return;
            // The batch's one action, resolved on a record of that item alone (and the exercises it may use).
            const only: Items = new Map([...items].filter(([key, i]) => key === `${target.kind}/${target.id}` || i.kind === 'exercise'));
            const kind = writeKindOf(target.kind)! as Kind;
            const body = validBody(resolve([{ ...s.action, op: s.action.op === 'create' ? 'update' : s.action.op, kind, stale: false }], only, seeded, now));
            await t.app.proposals.prepare(await agentCaller(t.app, athleteId), body);
            if ((await t.app.proposals.approve(athleteId, body.command_id)).outcome === 'committed') committed.push(body.command_id);
            return;
          }
          case 'undo_batch': {
            const commandId = committed[s.pick % Math.max(committed.length, 1)];
            if (!commandId) return;
            await t.app.proposals.undo(athleteId, commandId);
            tally.batchesUndone++;
            return;
          }
          case 'undo_edit': {
            const editId = s.which === 'last' ? edits.at(-1) : edits[s.pick % Math.max(edits.length, 1)];
            if (!editId) return;
            await t.app.edits.undo(athleteId, editId);
            assert.is(await t.app.edits.last(athleteId), null, 'an undone edit is no longer the last edit');
            tally.editsUndone++;
            return;
          }
          case 'advance':
            t.clock.advance(s.minutes * MINUTE);
            return;
        }
      };
      tally.steps[s.type] = (tally.steps[s.type] ?? 0) + 1;
      try {
        await move();
      } catch (error) {
        if (!isRefusal(error)) throw error;
        const refusal = `${s.type} ${error.reason}`;
        tally.refused[refusal] = (tally.refused[refusal] ?? 0) + 1;
        assert.is(await logLength(), before.log, `a refused ${s.type} appended nothing (${error.message})`);
        assert.equal(await dumpReadModels(t.app), before.models, `a refused ${s.type} changed no read model (${error.message})`);
      }
      // A little later each time: moves of one instant would all share their times.
      t.clock.advance(MINUTE);
    }

    const live = await dumpReadModels(t.app);
    await t.app.runner.replay();
    assert.equal(await dumpReadModels(t.app), live, 'the read models equal a full replay of the log');

    const {
      chains: [report],
      drift,
    } = await verifyChains(t.app, athleteId, () => {}, { drift: true });
    assert.equal(drift, [], 'every receipt the read model shows is the one the log holds');
    const stream = await t.app.events.readStream(streams.record(athleteId));
    const moves = stream.filter((e) => e.type === 'proposal.committed' || e.type === 'proposal.undone').length;
    assert.is(report?.broken, null, `the receipt chain holds: ${JSON.stringify(report?.broken)}`);
    assert.is(report?.links, moves, 'one link for every commit and undo of a batch');
    assert.is(report?.unlinked, 0);
  } finally {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('random sequences of edits, proposals and undos: refusals change nothing, read models equal a replay, the receipt chain holds', async () => {
  const seed = Number(process.env.EDITS_PROPERTY_SEED ?? Date.now() % 2 ** 31);
  const tally: Tally = { steps: {}, refused: {}, editsUndone: 0, batchesUndone: 0 };
  const from = await template();
  try {
    await fc.assert(
      fc.asyncProperty(sequence, (steps) => runSequence(from, steps, tally)),
      { numRuns: RUNS, seed, includeErrorInReport: true },
    );
  } catch (error) {
    console.error(`edits property failed with seed ${seed}: run again with EDITS_PROPERTY_SEED=${seed}`);
    throw error;
  }
  // The sequences reached what they are about: edits and batches undone, and the refusals of an
  // edit and of its undo (by reason, across all runs: `${step} ${reason}`).
  assert.ok(tally.editsUndone > 0 && tally.batchesUndone > 0, `edits and batches undone: ${JSON.stringify(tally)}`);
  for (const refusal of ['edit stale_revision', 'undo_edit not_committed', 'undo_edit undo_blocked'])
    assert.ok((tally.refused[refusal] ?? 0) > 0, `no ${refusal} in ${JSON.stringify(tally.refused)}`);
});

test.run();
