import { eventMetadata, type Actor } from '../contracts/events.ts';
import type { Clock } from './domain/clock.ts';
import type { AppendResult, EventStore, ExpectedRevision } from './store/event-store.ts';

/** Appends domain events stamped with when they happened and who caused them. */
export function appendEvents(
  store: EventStore,
  clock: Clock,
  stream: string,
  events: ReadonlyArray<{ type: string; data: unknown }>,
  expected: ExpectedRevision,
  actor: Actor,
): Promise<AppendResult> {
  const metadata = eventMetadata.parse({ occurred_at: clock.now().toISOString(), actor });
  return store.append(stream, events.map((e) => ({ type: e.type, data: e.data, metadata })), expected);
}
