import { eventMetadata, type Actor } from '../../contracts/events.ts';
import type { Clock } from '../domain/clock.ts';
import type { AppendResult, EventStore, ExpectedRevision } from '../store/event-store.ts';

/**
 * Appends domain events of one athlete, stamped with when they happened, who caused them and whose
 * they are: projections read the athlete from the metadata, whatever the stream is named.
 */
export function appendEvents(
  store: EventStore,
  clock: Clock,
  target: { stream: string; athleteId: string },
  events: ReadonlyArray<{ type: string; data: unknown }>,
  expected: ExpectedRevision,
  actor: Actor,
): Promise<AppendResult> {
  const metadata = eventMetadata.parse({ occurred_at: clock.now().toISOString(), actor, athlete_id: target.athleteId });
  const stream = target.stream;
  return store.append(
    stream,
    events.map((e) => ({ type: e.type, data: e.data, metadata })),
    expected,
  );
}
