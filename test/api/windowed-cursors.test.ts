// The date-windowed lists over REST: each one's cursor pages that list only. A cursor of one
// windowed list given to another is a 400, even though they share the window, the athlete and the
// signing key: the cursor is bound to the operation that issued it.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedClock } from '../../services/domain/clock.ts';
import { addDays } from '../../services/domain/time.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { workoutSet } from '../support/sets.ts';

const TODAY = '2026-06-15';
const FOREIGN = /^cursor: not a cursor this operation issued/;

test("no windowed list accepts another windowed list's cursor, in either direction", async () => {
  const s = await startServer({ clock: fixedClock(`${TODAY}T10:00:00.000Z`) });
  try {
    const athleteId = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training', 'recovery', 'nutrition', 'body_measurements']);
    const squat = randomUUID();
    // Two of everything, on two days inside the default window, so that a page of one has a next.
    const days = [addDays(TODAY, -3), addDays(TODAY, -1)];
    await s.app.records.change(
      athleteId,
      [
        { op: 'create' as const, kind: 'exercise' as const, item: { id: squat, name: 'Squat', muscle_group: 'legs', tracking_type: 'weight_reps' as const } },
        ...days.flatMap((day) => [
          {
            op: 'create' as const,
            kind: 'workout' as const,
            item: {
              id: randomUUID(),
              title: `Legs ${day}`,
              started_at: `${day}T08:00:00.000Z`,
              ended_at: `${day}T09:00:00.000Z`,
              notes: null,
              source: null,
              exercises: [{ exercise_id: squat, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 100, reps: 5 })] }],
            },
          },
          {
            op: 'create' as const,
            kind: 'meal' as const,
            item: { id: randomUUID(), eaten_at: `${day}T12:00:00.000Z`, name: 'Oats', calories_kcal: 400, protein_g: 20, carbohydrate_g: null, fat_g: null },
          },
          {
            op: 'create' as const,
            kind: 'body_measurement' as const,
            item: { id: randomUUID(), measured_at: `${day}T07:00:00.000Z`, metric: 'bodyweight' as const, value: 80 },
          },
          { op: 'create' as const, kind: 'checkin' as const, item: { id: randomUUID(), date: day, sleep_quality: 4, energy: null, soreness: 2, stress: 2 } },
        ]),
      ],
      { type: 'athlete', id: athleteId },
    );

    const lists: Record<string, string> = {
      list_completed_workouts: '/training/workouts',
      get_exercise_history: `/training/exercises/${squat}/history`,
      list_recovery_checkins: '/recovery/check-ins',
      list_meals: '/nutrition/meals',
      list_daily_nutrition: '/nutrition/daily',
      list_body_measurements: '/body-measurements',
    };
    const get = (path: string, query: string) =>
      fetch(`${s.base}/v1/agent-access${path}?${query}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });

    const cursors: Record<string, string> = {};
    for (const [operation, path] of Object.entries(lists)) {
      const res = await get(path, 'limit=1');
      assert.is(res.status, 200, operation);
      const body = (await res.json()) as { operation: string; data: { next_cursor: string | null } };
      assert.is(body.operation, operation);
      assert.type(body.data.next_cursor, 'string', `${operation}: two items and a page of one leave a next page`);
      cursors[operation] = body.data.next_cursor!;
      // The cursor does page its own list: what is refused below is refused for being foreign.
      const own = await get(path, `limit=1&cursor=${encodeURIComponent(cursors[operation])}`);
      assert.is(own.status, 200, `${operation} refused its own cursor`);
    }

    // Every pair is tried before anything is asserted, so that a failure names all that got through.
    let pairs = 0;
    const accepted: string[] = [];
    for (const [issuer, cursor] of Object.entries(cursors)) {
      for (const [operation, path] of Object.entries(lists)) {
        if (operation === issuer) continue;
        pairs++;
        const res = await get(path, `limit=1&cursor=${encodeURIComponent(cursor)}`);
        const text = await res.text();
        const error = res.status === 400 ? (JSON.parse(text) as { error: { code: string; message: string } }).error : null;
        if (error?.code !== 'invalid_input' || !FOREIGN.test(error.message)) accepted.push(`${issuer} → ${operation}: ${res.status} ${text.slice(0, 120)}`);
      }
    }
    assert.ok(accepted.length === 0, `a cursor of one windowed list was not refused as foreign by another:\n${accepted.join('\n')}`);
    assert.is(pairs, 30, 'every ordered pair of the six windowed lists');
  } finally {
    await s.close();
  }
});

test.run();
