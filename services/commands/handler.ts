// The one load-decide-append loop for the small streams (an athlete's account, connections, bot
// tokens): read the stream, decide on it, append at the revision decided against; when another
// writer got there first, decide again on what it wrote; after ATTEMPTS lost races, `busy` (the
// API answers 503 with Retry-After). The record stream loads through RecordService's kept folds
// and snapshots, and retries through the same `retryLostRaces`.
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
  return retryLostRaces(command.what, ATTEMPTS, async () => {
    const history = await store.readStream(command.stream);
    const { events, result } = await command.decide(history);
    if (events.length > 0)
      await appendEvents(
        store,
        clock,
        { stream: command.stream, athleteId: command.athleteId },
        events,
        history.at(-1)?.revision ?? 'no_stream',
        command.actor,
      );
    return result;
  });
}

/**
 * The retry every command loop shares: `attempt` loads, decides and appends at the revision it
 * decided against; when another writer got there first (`WrongExpectedRevisionError`), `lost`
 * hears of it and the command is decided again; after `attempts` lost races, `busy`.
 */
export async function retryLostRaces<T>(
  what: string,
  attempts: number,
  attempt: () => Promise<T>,
  lost?: (error: WrongExpectedRevisionError) => void,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      lost?.(error);
      if (n === attempts) throw new DomainError('busy', `${what} kept changing while this change was decided; try again`);
    }
  }
}
