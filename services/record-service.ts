// Executes record commands: load the athlete's record stream, decide, append at the revision the
// decision was made against. A concurrent writer makes the append fail; the command is then
// decided again on the new state, so a decision never lands on a record it did not see.
import { eventMetadata, recordEvent, streams, type Actor, type RecordEvent } from '../contracts/events.ts';
import type { Clock } from './domain/clock.ts';
import { decideImport, type ImportCommand, type ImportDecision } from './domain/import.ts';
import { decideChanges, evolve, initialRecordState, type RecordChange, type RecordState } from './domain/record.ts';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from './store/event-store.ts';

const ATTEMPTS = 3;

export interface Loaded {
  state: RecordState;
  revision: ExpectedRevision;
}

export class RecordService {
  readonly #events: EventStore;
  readonly #clock: Clock;

  constructor(events: EventStore, clock: Clock) {
    this.#events = events;
    this.#clock = clock;
  }

  async load(athleteId: string): Promise<Loaded> {
    const stored = await this.#events.readStream(streams.record(athleteId));
    const state = initialRecordState(athleteId);
    // Events were validated when written (see #decideAndAppend); folding trusts them.
    for (const e of stored) evolve(state, { type: e.type, data: e.data } as RecordEvent);
    return { state, revision: stored.length ? stored[stored.length - 1]!.revision : 'no_stream' };
  }

  /** Applies a batch of changes atomically. Returns the events written. */
  async change(athleteId: string, changes: RecordChange[], actor: Actor): Promise<RecordEvent[]> {
    return this.#decideAndAppend(athleteId, actor, (state) => decideChanges(changes, state));
  }

  /** Imports a whole file in one append: all of it lands, or none. */
  async import(athleteId: string, command: ImportCommand, actor: Actor): Promise<ImportDecision> {
    let decision!: ImportDecision;
    await this.#decideAndAppend(athleteId, actor, (state) => (decision = decideImport(command, state)).events);
    return decision;
  }

  async #decideAndAppend(athleteId: string, actor: Actor, decide: (state: RecordState) => RecordEvent[]): Promise<RecordEvent[]> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(athleteId);
      const events = decide(state);
      if (events.length === 0) return events;
      for (const e of events) recordEvent.parse(e);
      const metadata = eventMetadata.parse({ occurred_at: this.#clock.now().toISOString(), actor });
      try {
        await this.#events.append(
          streams.record(athleteId),
          events.map((e) => ({ type: e.type, data: e.data, metadata })),
          revision,
        );
        return events;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt === ATTEMPTS) throw error;
      }
    }
  }
}
