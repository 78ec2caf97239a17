// list_exercises and get_personal_records on a year of imported Hevy training, over REST and with
// the MCP SDK client: every exercise's records in a handful of calls, equal to the record-label
// rules stated again here over the full history, and the name search an agent starts from.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentAccessResponses, type ExercisePersonalRecords, type PersonalRecord } from '../../contracts/agent-access.ts';
import { streams } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { expectedRecords, LABELS, type Expected } from '../support/personal-records-reference.ts';
import { comparable, envelopeOf, mcpClient } from '../mcp/support.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const TIMEZONE = 'Europe/London';

const recordOf = (r: PersonalRecord | null): Expected | null =>
  r && { value: r.value, workout_id: r.workout_id, set_at: r.set_at, date: r.date, set_number: r.set_number, weight_kg: r.weight_kg, reps: r.reps };

test('a year of Hevy training: every exercise, its records in at most 10 calls over REST and MCP, and the name search', async () => {
  const s = await startServer({ clock: fixedClock('2026-06-15T10:00:00.000Z') });
  try {
    const athleteId = await registerPro(s.app);
    const csv = generateHevyExport({ workouts: 150, seed: 16, startDate: '2025-06-16' });
    await s.app.records.import(
      athleteId,
      { app: 'hevy', file_name: 'hevy.csv', file_sha256: sha256Hex(csv), workouts: parseHevy(csv, { timezone: TIMEZONE }) },
      { type: 'import', id: 'test' },
    );

    // The history as it was saved: the record stream's own events, not any read model.
    const workouts = new Map<string, RecordItem<'workout'>>();
    const exercises = new Map<string, RecordItem<'exercise'>>();
    for (const e of await s.app.events.readStream(streams.record(athleteId))) {
      const item = (e.data as { item?: { id: string } }).item;
      if (e.type === 'workout.created' || e.type === 'workout.updated') workouts.set(item!.id, item as RecordItem<'workout'>);
      if (e.type === 'exercise.created' || e.type === 'exercise.updated') exercises.set(item!.id, item as RecordItem<'exercise'>);
    }
    const expected = expectedRecords([...workouts.values()], TIMEZONE);
    assert.ok(workouts.size === 150 && exercises.size > 15, `a year of training: ${workouts.size} workouts, ${exercises.size} exercises`);
    const withRecords = [...expected.values()].filter((x) => LABELS.every((l) => x.records[l] !== null)).length;
    assert.ok(withRecords > 5, 'weighted lifts hold all four records');
    assert.ok(
      [...expected.values()].some((x) => x.records.weight === null && x.records.reps !== null),
      'bodyweight exercises hold a reps record only',
    );

    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const rest = async (path: string) => {
      const res = await fetch(`${s.base}/v1/agent-access/training${path}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // ---- Every exercise's records over REST, 10 exercises a call.
    let calls = 0;
    let cursor: string | null = null;
    const overRest: ExercisePersonalRecords[] = [];
    const pages: unknown[] = [];
    do {
      const answer = await rest(`/personal-records?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      calls += 1;
      assert.is(answer.status, 200, JSON.stringify(answer.body));
      const { data } = agentAccessResponses.get_personal_records.parse(answer.body);
      pages.push(comparable(answer.body));
      overRest.push(...data.items);
      cursor = data.next_cursor;
    } while (cursor);
    assert.ok(calls <= 10, `${calls} calls`);
    assert.equal(overRest.map((x) => x.exercise.id).sort(), [...exercises.keys()].sort(), 'every exercise once');
    for (const item of overRest) {
      const want = expected.get(item.exercise.id);
      for (const label of LABELS) assert.equal(recordOf(item.records[label]), want?.records[label] ?? null, `${item.exercise.name.value}: ${label}`);
      assert.is(item.metadata.sample_count, want?.eligibleSets ?? 0, `${item.exercise.name.value}: eligible sets`);
      assert.is(item.metadata.calculation_version, 'personal-records.v1');
    }

    // ---- The same pages with the MCP SDK client.
    const mcpToken = (await connect(s.base, `${s.base}/mcp`, ['training'])).tokens.access_token;
    const client = await mcpClient(s.base, mcpToken);
    try {
      const overMcp: unknown[] = [];
      let next: string | null = null;
      do {
        const envelope = envelopeOf(
          'get_personal_records',
          (await client.callTool({ name: 'get_personal_records', arguments: { limit: 10, ...(next ? { cursor: next } : {}) } })) as never,
        );
        overMcp.push(comparable(envelope));
        next = (envelope.data as { next_cursor: string | null }).next_cursor;
      } while (next);
      // The same operation on either surface: the same pages, cursors included.
      assert.equal(overMcp, pages);
    } finally {
      await client.close();
    }

    // ---- list_exercises: pages of 3 visit every exercise once, in folded-name order.
    const listed: Array<{ id: string; name: { value: string }; session_count: number; last_done_at: string | null }> = [];
    cursor = null;
    do {
      const answer = await rest(`/exercises?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const { data } = agentAccessResponses.list_exercises.parse(answer.body);
      listed.push(...data.items);
      cursor = data.next_cursor;
    } while (cursor);
    assert.equal(listed.map((x) => x.id).sort(), [...exercises.keys()].sort());
    const folded = (n: string) =>
      n
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean)
        .join(' ');
    const names = listed.map((x) => folded(x.name.value));
    assert.equal(names, [...names].sort(), 'by name');
    for (const x of listed) {
      assert.is(x.session_count, expected.get(x.id)?.sessions ?? 0, `${x.name.value}: sessions`);
      assert.is(x.last_done_at, expected.get(x.id)?.last ?? null, `${x.name.value}: last done`);
    }

    // ---- Search: words in any order, case and accents folded; a misspelt word finds nothing.
    const search = async (query: string) => {
      const answer = await rest(`/exercises?limit=10&query=${encodeURIComponent(query)}`);
      assert.is(answer.status, 200, JSON.stringify(answer.body));
      return agentAccessResponses.list_exercises.parse(answer.body).data.items.map((x) => x.name.value);
    };
    assert.equal(await search('bench barbell'), ['Bench Press (Barbell)']);
    assert.equal(await search('Barbell  BENCH'), ['Bench Press (Barbell)']);
    assert.equal(await search('BENCH'), ['Bench Press (Barbell)', 'Incline Bench Press (Dumbbell)']);
    assert.equal(await search('bénch pr'), ['Bench Press (Barbell)', 'Incline Bench Press (Dumbbell)']);
    assert.equal(await search('bnech'), []);
    assert.equal(await search('ench'), [], 'a word is matched from its beginning');

    // ---- One exercise by id, and a list_exercises cursor serves get_personal_records.
    const bench = listed.find((x) => x.name.value === 'Bench Press (Barbell)')!;
    const one = await rest(`/personal-records?exercise_id=${bench.id}`);
    assert.equal(
      agentAccessResponses.get_personal_records.parse(one.body).data.items,
      overRest.filter((x) => x.exercise.id === bench.id),
    );
    const firstPage = agentAccessResponses.list_exercises.parse((await rest('/exercises?limit=4')).body).data;
    const following = await rest(`/personal-records?limit=4&cursor=${encodeURIComponent(firstPage.next_cursor!)}`);
    assert.equal(
      agentAccessResponses.get_personal_records.parse(following.body).data.items.map((x) => x.exercise.id),
      listed.slice(4, 8).map((x) => x.id),
    );

    // ---- Refusals say what was wrong.
    const refused = async (path: string, status: number, message: string) => {
      const answer = await rest(path);
      assert.is(answer.status, status, JSON.stringify(answer.body));
      assert.match((answer.body as { error: { message: string } }).error.message, message);
    };
    await refused(`/personal-records?exercise_id=${bench.id}&limit=3`, 400, 'give exercise_id alone');
    await refused('/personal-records?exercise_id=00000000-0000-4000-8000-000000000000', 404, 'no exercise');
    await refused(`/exercises?query=curl&cursor=${encodeURIComponent(firstPage.next_cursor!)}`, 400, 'issued for another query');
    await refused(`/exercises?query=${'x'.repeat(101)}`, 400, 'query');
    await refused('/exercises?limit=11', 400, 'limit');
  } finally {
    await s.close();
  }
});

test.run();
