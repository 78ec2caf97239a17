// A record that keeps changing while a command is decided (another writer wins every race): the
// command gives up after its attempts and the caller is told to retry, 503 with Retry-After, not
// a 500; nothing of the command is saved.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { BUSY_RETRY_SECONDS } from '../../services/api/errors.ts';
import { appendEvents } from '../../services/commands/append.ts';
import type { EventStore } from '../../services/store/event-store.ts';
import { registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { proposalBody, writer } from '../support/writes.ts';

/** Before each append to the athlete's record, another writer appends a meal there first: the append's expected revision is then always stale. */
function raceEveryAppend(events: EventStore, athleteId: string, clock: { now(): Date }): () => number {
  const append = events.append.bind(events);
  let won = 0;
  events.append = async (stream, list, expected) => {
    if (stream === streams.record(athleteId)) {
      const meal = { id: randomUUID(), eaten_at: '2026-05-01T08:00:00.000Z', name: 'Oats', calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 };
      await appendEvents({ append } as EventStore, clock, { stream, athleteId }, [{ type: 'meal.created', data: { item: meal, revision: 1 } }], 'any', {
        type: 'athlete',
        id: 'another-writer',
      });
      won++;
    }
    return append(stream, list, expected);
  };
  return () => won;
}

test('given a record another writer changes before every append, when an agent prepares a batch, then it is told 503 with Retry-After, and no proposal is saved', async () => {
  const s = await startServer();
  try {
    const athleteId = await registerPro(s.app);
    const { api } = await writer(s, athleteId, ['nutrition'], ['nutrition:write']);
    const races = raceEveryAppend(s.app.events, athleteId, s.app.clock);
    const body = proposalBody([
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: new Date(Date.now() - 3_600_000).toISOString(), name: 'Oats', calories_kcal: 400, protein_g: 15, carbohydrate_g: 60, fat_g: 8 },
      },
    ]);
    const answer = await api.prepare(body);
    assert.is(answer.status, 503, JSON.stringify(answer.body));
    assert.is(answer.headers.get('retry-after'), String(BUSY_RETRY_SECONDS));
    assert.is(answer.body.error.code, 'unavailable');
    assert.match(answer.body.error.message, 'kept changing');
    assert.is(races(), 5, 'every attempt lost its race');
    const events = await s.app.events.readStream(streams.record(athleteId));
    assert.not.ok(
      events.some((e) => e.type === 'proposal.prepared'),
      'no proposal was saved',
    );
  } finally {
    await s.close();
  }
});

test.run();
