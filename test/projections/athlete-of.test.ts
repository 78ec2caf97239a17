// Projections find an event's athlete in its metadata, so a stream named any way (proposals,
// receipts) works; events written before the metadata carried it fall back to the stream's name.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { athleteOf } from '../../projections/projection.ts';
import type { StoredEvent } from '../../services/store/event-store.ts';

const ADA = '00000000-0000-4000-8000-0000000000a1';
const event = (stream: string, metadata: Record<string, unknown>): StoredEvent =>
  ({ stream, type: 'meal.created', data: {}, metadata, revision: 0, position: 1 }) as unknown as StoredEvent;

test('the athlete comes from the metadata, whatever the stream is called', () => {
  assert.is(athleteOf(event(`proposal-${'f'.repeat(8)}-${ADA}`, { occurred_at: '2026-01-01T00:00:00Z', athlete_id: ADA })), ADA);
  assert.is(athleteOf(event('email_claim-abc', { occurred_at: '2026-01-01T00:00:00Z', athlete_id: ADA })), ADA);
});

test('events without it in their metadata (written before) are read by their stream name', () => {
  assert.is(athleteOf(event(`record-${ADA}`, { occurred_at: '2026-01-01T00:00:00Z' })), ADA);
});

test.run();
