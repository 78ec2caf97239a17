// list_completed_workouts over HTTP against the strict contract: empty, small and large records.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { addDays } from '../../services/domain/time.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const response = agentAccessResponses.list_completed_workouts;

async function setup(now = '2026-06-15T10:00:00.000Z', timezone = 'Europe/Berlin') {
  const clock = fixedClock(now);
  const s = await startServer({ clock });
  const athleteId = await registerPro(s.app);
  const athlete = (await s.app.athletes.get(athleteId))!;
  await s.app.athletes.updateProfile(athlete.email, { ...athlete.profile, timezone }, { type: 'operator', id: 'test' });
  const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
  const list = async (query = '') => {
    const res = await fetch(`${s.base}/v1/agent-access/training/workouts${query}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(res.status, 200, await res.clone().text());
    return response.parse(await res.json()).data;
  };
  return { s, clock, athleteId, list };
}

const workout = (id: string, started: string | null, ended: string, title = 'Session'): RecordItem<'workout'> => ({
  id,
  title,
  started_at: started,
  ended_at: ended,
  notes: null,
  source: null,
  exercises: [],
});

test('an empty record: the default window and no workouts', async () => {
  const { s, list } = await setup();
  try {
    const data = await list();
    assert.equal(data, { window: { from: '2026-05-17', to: '2026-06-15' }, items: [], next_cursor: null });
  } finally {
    await s.close();
  }
});

test('a small record: local dates in the record timezone, newest first, derived durations', async () => {
  const { s, clock, athleteId, list } = await setup();
  try {
    const late = randomUUID();
    const noStart = randomUUID();
    const old = randomUUID();
    const actor = { type: 'athlete' as const, id: athleteId };
    // 23:30 UTC on 10 June is 01:30 on 11 June in Berlin.
    await s.app.records.change(
      athleteId,
      [{ op: 'create', kind: 'workout', item: workout(late, '2026-06-10T23:30:00.000Z', '2026-06-11T00:45:10.000Z', 'Late lift') }],
      actor,
    );
    clock.set('2026-06-12T08:00:00.000Z');
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: workout(noStart, null, '2026-06-12T07:00:00.000Z', 'Logged after') }], actor);
    await s.app.records.change(
      athleteId,
      [{ op: 'create', kind: 'workout', item: workout(old, '2026-03-01T08:00:00.000Z', '2026-03-01T09:00:00.000Z') }],
      actor,
    );
    clock.set('2026-06-15T10:00:00.000Z');

    const data = await list();
    assert.equal(
      data.items.map((w) => w.id),
      [noStart, late],
      'March is outside the default window',
    );
    const [logged, lateLift] = data.items;
    assert.equal(lateLift!.duration.seconds, 4510);
    assert.is(lateLift!.duration.basis, 'recorded_start');
    assert.is(logged!.duration.seconds, null);
    assert.is(logged!.duration.basis, 'unknown');
    assert.is(logged!.title.handling, 'untrusted_record_text');

    const june11 = await list('?from=2026-06-11&to=2026-06-11');
    assert.equal(
      june11.items.map((w) => w.id),
      [late],
      'the late lift belongs to 11 June in Berlin',
    );
    assert.equal((await list('?from=2026-06-10&to=2026-06-10')).items, []);
    assert.equal(
      (await list('?from=2026-02-01&to=2026-03-31')).items.map((w) => w.id),
      [old],
    );
  } finally {
    await s.close();
  }
});

test('a large imported record pages through a 90-day window without gaps or repeats', async () => {
  const { s, athleteId, list } = await setup('2024-01-01T12:00:00.000Z', 'Europe/London');
  try {
    const csv = generateHevyExport({ workouts: 450, seed: 21, startDate: '2021-01-04' });
    const workouts = parseHevy(csv, { timezone: 'Europe/London' });
    await s.app.records.import(athleteId, { app: 'hevy', file_name: 'hevy.csv', file_sha256: sha256Hex(csv), workouts }, { type: 'import', id: 'test' });
    const from = '2022-01-01';
    const to = addDays(from, 89);
    const expected = workouts.filter((w) => w.started_at! >= `${from}T00:00` && w.started_at! < `${addDays(to, 1)}T00:00`).length;
    assert.ok(expected > 20, `the window should hold a good number of workouts, has ${expected}`);
    const seen = new Set<string>();
    let previous = '9999';
    let cursor: string | null = null;
    do {
      const data = await list(`?from=${from}&to=${to}&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const w of data.items) {
        assert.not.ok(seen.has(w.id), 'no repeats');
        seen.add(w.id);
        assert.ok(w.ended_at <= previous, 'newest first');
        previous = w.ended_at;
      }
      cursor = data.next_cursor;
    } while (cursor);
    // The fixture starts workouts mid-day, so UTC and London dates agree for the count.
    assert.is(seen.size, expected);
  } finally {
    await s.close();
  }
});

test.run();
