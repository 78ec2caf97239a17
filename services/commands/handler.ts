// The one load-decide-append loop for the small streams (an athlete's account, connections, bot
// tokens): read the stream, decide on it, append at the revision decided against; when another
// writer got there first, decide again on what it wrote; after ATTEMPTS lost races, `busy` (the
// API answers 503 with Retry-After). The record stream has its own loop in RecordService, for its
// kept folds and snapshots, with the same rule.
import type { Actor } from '../../contracts/events.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { WrongExpectedRevisionError, type EventStore, type StoredEvent } from '../store/event-store.ts';
import { appendEvents } from './append.ts';

const ATTEMPTS = 3;

export interface StreamCommand<T> {
  stream: string;
  athleteId: string;
  actor: Actor;
  /** What kept changing, for the refusal: "the account", "the connections". */
  what: string;
  /** The events to append (validated here), and the answer; none appends nothing. */
  decide(
    history: readonly StoredEvent[],
  ): Promise<{ events: ReadonlyArray<{ type: string; data: unknown }>; result: T }> | { events: ReadonlyArray<{ type: string; data: unknown }>; result: T };
}

export async function decideAndAppend<T>(store: EventStore, clock: Clock, command: StreamCommand<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const history = await store.readStream(command.stream);
    const { events, result } = await command.decide(history);
    if (events.length === 0) return result;
    try {
      await appendEvents(
        store,
        clock,
        { stream: command.stream, athleteId: command.athleteId },
        events,
        history.at(-1)?.revision ?? 'no_stream',
        command.actor,
      );
      return result;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt === ATTEMPTS) throw new DomainError('busy', `${command.what} kept changing while this change was decided; try again`);
    }
  }
}
