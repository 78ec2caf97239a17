// The one load-decide-append loop of the small streams: a decision appends at the revision it was
// made against; when another writer got there first it is made again on what that one wrote; a
// stream that keeps changing ends in `busy`, with nothing of the command appended.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streams } from '../../contracts/events.ts';
import { decideAndAppend } from '../../services/commands/handler.ts';
import { DomainError } from '../../services/domain/errors.ts';
import type { StoredEvent } from '../../services/store/event-store.ts';
import { openTestApp } from '../support/app.ts';

const actor = { type: 'athlete', id: 'test' } as const;
const renamed = (athleteId: string, grantId: string, label: string) => ({ type: 'grant.renamed', data: { grant_id: grantId, athlete_id: athleteId, label } });

test('given a stream another writer appends to while a command decides, when it appends, then it decides again on what that writer wrote', async () => {
  const t = await openTestApp();
  try {
    const athleteId = randomUUID();
    const grantId = randomUUID();
    const stream = streams.connections(athleteId);
    const seen: number[] = [];
    const result = await decideAndAppend(t.app.events, t.app.clock, {
      stream,
      athleteId,
      actor,
      what: 'the connections',
      decide: async (history: readonly StoredEvent[]) => {
        seen.push(history.length);
        // The first time, another writer appends between this read and the append.
        if (seen.length === 1)
          await t.app.events.append(
            stream,
            [{ ...renamed(athleteId, grantId, 'Other'), metadata: { occurred_at: t.app.clock.now().toISOString(), actor, athlete_id: athleteId } }],
            'any',
          );
        return { events: [renamed(athleteId, grantId, `Mine after ${history.length}`)], result: history.length };
      },
    });
    assert.equal(seen, [0, 1], "decided again, on the stream with the other writer's event");
    assert.is(result, 1);
    const events = await t.app.events.readStream(stream);
    assert.equal(
      events.map((e) => (e.data as { label: string }).label),
      ['Other', 'Mine after 1'],
    );
  } finally {
    await t.close();
  }
});

test('given a stream that changes before every append, when a command decides, then it is refused as busy after its attempts, and appends nothing', async () => {
  const t = await openTestApp();
  try {
    const athleteId = randomUUID();
    const grantId = randomUUID();
    const stream = streams.connections(athleteId);
    let attempts = 0;
    const refused = await decideAndAppend(t.app.events, t.app.clock, {
      stream,
      athleteId,
      actor,
      what: 'the connections',
      decide: async () => {
        attempts++;
        await t.app.events.append(
          stream,
          [{ ...renamed(athleteId, grantId, 'Other'), metadata: { occurred_at: t.app.clock.now().toISOString(), actor, athlete_id: athleteId } }],
          'any',
        );
        return { events: [renamed(athleteId, grantId, 'Mine')], result: 'saved' };
      },
    }).catch((error: unknown) => error);
    assert.instance(refused, DomainError);
    assert.is((refused as DomainError).code, 'busy');
    assert.is((refused as DomainError).message, 'the connections kept changing while this change was decided; try again');
    assert.is(attempts, 3);
    const labels = (await t.app.events.readStream(stream)).map((e) => (e.data as { label: string }).label);
    assert.equal(labels, ['Other', 'Other', 'Other'], "none of the command's own");
  } finally {
    await t.close();
  }
});

test('given a decision of no events, then nothing is appended and its answer is returned', async () => {
  const t = await openTestApp();
  try {
    const athleteId = randomUUID();
    const answer = await decideAndAppend(t.app.events, t.app.clock, {
      stream: streams.connections(athleteId),
      athleteId,
      actor,
      what: 'x',
      decide: () => ({ events: [], result: 'unchanged' }),
    });
    assert.is(answer, 'unchanged');
    assert.equal(await t.app.events.readStream(streams.connections(athleteId)), []);
  } finally {
    await t.close();
  }
});

test.run();
