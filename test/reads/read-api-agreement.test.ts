// One source of truth: what a bot reads through the Read API and what an agent reads through Agent
// Access about the same record at the same instant agree. /api/v1/stats against the training
// snapshot over random histories, timezones and instants; a workout's record labels against
// get_completed_workout's, set by set, over a large imported record.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses, type AgentAccessResponse } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { WORKOUT_DETAILS, type WorkoutDetailDoc } from '../../projections/workouts.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { localDateOf } from '../../services/domain/time.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { connect, registerPro } from '../support/connect.ts';
import { bearer, botToken, readApi } from '../support/read-api.ts';
import { startServer } from '../support/server.ts';
import { referenceStats } from '../support/stats-reference.ts';
import { workoutSet } from '../support/sets.ts';

/** Offsets from -11 to +14, half and three-quarter hours, both hemispheres' daylight saving. */
const ZONES = [
  'Europe/London',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Adelaide',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Asia/Kathmandu',
  'America/Santiago',
];
const DAY = 86_400_000;

async function agentGet<Op extends keyof typeof agentAccessResponses>(base: string, token: string, op: Op, path: string): Promise<AgentAccessResponse<Op>> {
  const res = await fetch(`${base}/v1/agent-access${path}`, { headers: bearer(token) });
  assert.is(res.status, 200, await res.clone().text());
  return agentAccessResponses[op].parse(await res.json()) as AgentAccessResponse<Op>;
}

/**
 * The instants a run may be "now": weekdays and weekends, UTC midnight on either side of a local
 * one, daylight-saving changes in both hemispheres, a year's end. An OAuth token lives 15 minutes
 * by the service's clock, so each instant gets its connection, made at that instant, and a run
 * uses the one of its instant (and its own bot token: quotas are kept by that clock too).
 */
const NOWS = [
  '2026-03-29T00:30:00.000Z',
  '2026-06-15T10:00:00.000Z',
  '2026-01-04T23:30:00.000Z',
  '2026-10-04T12:00:00.000Z',
  '2025-12-31T23:59:00.000Z',
  '2026-09-09T15:00:00.000Z',
];

test("property: /api/v1/stats equals the training snapshot's figures for the same athlete at the same instant", async () => {
  const clock = fixedClock(NOWS[0]!);
  const s = await startServer({ clock, env: { READ_API_QUOTA_UNITS: '100000', AGENT_ACCESS_QUOTA_UNITS: '100000' } });
  let runs = 0;
  const branches = { thisWeek: 0, streakCurrent: 0, streakLapsed: 0, noWorkouts: 0, future: 0 };
  try {
    const athleteId = await registerPro(s.app);
    const actor = { type: 'athlete' as const, id: athleteId };
    // Quotas too are kept by the clock, which a run moves back and forth: a token per instant.
    const agentTokens = new Map<string, string>();
    const botTokens = new Map<string, string>();
    for (const now of NOWS) {
      clock.set(now);
      agentTokens.set(now, (await connect(s.base, `${s.base}/v1/agent-access`, ['training'], 'training')).tokens.access_token);
      botTokens.set(now, await botToken(s.app, athleteId, `Bot for ${now}`));
    }
    /** The athlete's live workouts, by id, with their revision: each run starts from an empty record. */
    const live = new Map<string, number>();

    const workout = fc.record({
      // Days before "now"; a few after it (a start in the future is not counted yet).
      createdDaysAgo: fc.double({ min: -3, max: 100, noNaN: true }),
      startedEarlierHours: fc.option(fc.double({ min: -30, max: 24 * 20, noNaN: true }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NOWS),
        fc.constantFrom(...ZONES),
        fc.array(workout, { maxLength: 30 }),
        // Quiet days before now, so that streaks also lapse.
        fc.integer({ min: 0, max: 30 }),
        fc.option(fc.constantFrom(...ZONES), { nil: null }),
        async (now, zone, history, quietDays, laterZone) => {
          runs++;
          const nowMs = Date.parse(now);
          const profile = (await s.app.athletes.get(athleteId))!.profile;
          await s.app.athletes.updateProfile('ada@example.com', { ...profile, timezone: zone }, actor);
          if (live.size)
            await s.app.records.change(
              athleteId,
              [...live].map(([id, revision]) => ({ op: 'delete' as const, kind: 'workout' as const, id, base_revision: revision })),
              actor,
            );
          live.clear();
          const dated: string[] = [];
          // Created in the order of their creation times, as they would be.
          for (const w of [...history].sort((a, b) => b.createdDaysAgo - a.createdDaysAgo)) {
            const created = Math.min(nowMs - (w.createdDaysAgo + (w.createdDaysAgo > 0 ? quietDays : 0)) * DAY, nowMs);
            const started = w.startedEarlierHours === null ? null : Math.round(created - w.startedEarlierHours * 3_600_000);
            const ended = Math.max(started ?? created, created);
            clock.set(new Date(created).toISOString());
            const item: RecordItem<'workout'> = {
              id: randomUUID(),
              title: 'S',
              started_at: started === null ? null : new Date(started).toISOString(),
              ended_at: new Date(ended).toISOString(),
              notes: null,
              source: null,
              exercises: [],
            };
            await s.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item }], actor);
            live.set(item.id, 1);
            dated.push(item.started_at ?? new Date(created).toISOString());
          }
          const finalZone = laterZone ?? zone;
          if (laterZone) await s.app.athletes.updateProfile('ada@example.com', { ...profile, timezone: laterZone }, actor);
          clock.set(now);

          const stats = await readApi(s.base, botTokens.get(now)!, 'get_stats', '/api/v1/stats');
          const snapshot = await agentGet(s.base, agentTokens.get(now)!, 'get_training_snapshot', '/training/snapshot');
          const { summary } = snapshot.data;

          assert.equal(
            [stats.this_week.completed_workouts, stats.rolling_30_days.completed_workouts, stats.consecutive_active_weeks, stats.streak_is_current],
            [summary.workouts_this_week.value, summary.workouts_last_30_days.value, summary.consecutive_active_weeks.value, summary.streak_is_current.value],
          );
          assert.equal({ from: stats.this_week.from, to: stats.this_week.to }, summary.workouts_this_week.metadata.window);
          assert.equal({ from: stats.rolling_30_days.from, to: stats.rolling_30_days.to }, summary.workouts_last_30_days.metadata.window);
          assert.equal([stats.as_of, stats.timezone], [snapshot.as_of, snapshot.timezone]);
          // And both are the rules, stated by brute force.
          const today = localDateOf(nowMs, finalZone);
          const expected = referenceStats(
            dated.map((d) => localDateOf(d, finalZone)),
            today,
          );
          assert.equal(
            [stats.this_week.completed_workouts, stats.rolling_30_days.completed_workouts, stats.consecutive_active_weeks, stats.streak_is_current],
            [expected.thisWeek, expected.last30Days, expected.weeks, expected.current],
          );

          if (stats.this_week.completed_workouts > 0) branches.thisWeek++;
          if (stats.streak_is_current) branches.streakCurrent++;
          if (!stats.streak_is_current && stats.consecutive_active_weeks > 0) branches.streakLapsed++;
          if (dated.length === 0) branches.noWorkouts++;
          if (dated.some((d) => localDateOf(d, finalZone) > today)) branches.future++;
        },
      ),
      { numRuns: 60, seed: 4404 },
    );
  } finally {
    await s.close();
  }
  // The generators reach every interesting case, or the property says little.
  for (const [branch, n] of Object.entries(branches)) assert.ok(n > 0, `${branch} reached ${n} times in ${runs} runs`);
});

test("a workout's record labels equal get_completed_workout's, set by set, across a large imported record", async () => {
  const s = await startServer({ clock: fixedClock('2024-01-01T12:00:00.000Z'), env: { READ_API_QUOTA_UNITS: '100000', AGENT_ACCESS_QUOTA_UNITS: '100000' } });
  try {
    const athleteId = await registerPro(s.app);
    const csv = generateHevyExport({ workouts: 150, seed: 9, startDate: '2023-01-02' });
    await s.app.records.import(
      athleteId,
      { app: 'hevy', file_name: 'h.csv', file_sha256: sha256Hex(csv), workouts: parseHevy(csv, { timezone: 'Europe/London' }) },
      { type: 'import', id: 'test' },
    );
    // And one with sets not completed, which the Read API leaves out and Agent Access lists unlabelled.
    const [squat] = (await s.app.reads.dump('exercises')).map((r) => r.doc.id);
    const partial: RecordItem<'workout'> = {
      id: randomUUID(),
      title: 'Cut short',
      started_at: '2023-12-30T08:00:00.000Z',
      ended_at: '2023-12-30T08:30:00.000Z',
      notes: null,
      source: null,
      exercises: [
        {
          exercise_id: squat!,
          exercise_order: 0,
          superset_id: null,
          notes: null,
          sets: [workoutSet(0, { weight_kg: 500, reps: 1, completed: false }), workoutSet(1, { weight_kg: 400, reps: 30 })],
        },
      ],
    };
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: partial }], { type: 'athlete', id: athleteId });

    const bot = await botToken(s.app, athleteId);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const ids = (await s.app.reads.dump('workouts')).map((r) => r.doc.id);
    assert.is(ids.length, 151);
    let labelled = 0;
    for (const id of ids) {
      const ours = await readApi(s.base, bot, 'get_workout', `/api/v1/workouts/${id}`);
      const theirs = (await agentGet(s.base, tokens.access_token, 'get_completed_workout', `/training/workouts/${id}`)).data.workout;
      assert.equal(
        ours.exercises.map((e) => e.exercise_id),
        theirs.exercises.map((e) => e.exercise_id),
        'the same exercises in the same order',
      );
      // Which sets were completed, as the record holds them (Agent Access lists every set).
      const stored = (await s.app.reads.get<WorkoutDetailDoc>(WORKOUT_DETAILS, athleteId, id))!;
      theirs.exercises.forEach((e, i) => {
        const entry = stored.exercises.find((x) => x.exercise_order === e.exercise_order)!;
        const done = new Set(entry.sets.filter((x) => x.completed).map((x) => x.position));
        const completed = e.sets.filter((x) => done.has(x.position));
        assert.equal(
          ours.exercises[i]!.sets.map((x) => [x.position, x.weight_kg, x.reps, x.record_indicators]),
          completed.map((x) => [x.position, x.weight_kg, x.reps, x.historical_record_at_completion.indicators]),
          `${id}, exercise ${i}`,
        );
      });
      assert.is(ours.completed_set_count, theirs.achieved_set_count);
      labelled += ours.exercises.flatMap((e) => e.sets).filter((x) => x.record_indicators.length > 0).length;
    }
    assert.ok(labelled > 30, `records were set (${labelled})`);
    const cut = await readApi(s.base, bot, 'get_workout', `/api/v1/workouts/${partial.id}`);
    assert.equal(
      cut.exercises[0]!.sets.map((x) => x.position),
      [1],
      'the set not completed is left out',
    );
  } finally {
    await s.close();
  }
});

test.run();
