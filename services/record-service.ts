// Executes record commands: load the athlete's record stream, decide, append at the revision the
// decision was made against. A concurrent writer makes the append fail; the command is then
// decided again on the new state, so a decision never lands on a record it did not see.
import { recordEvent, streams, type Actor, type RecordEvent } from '../contracts/events.ts';
import { appendEvents } from './append.ts';
import type { Clock } from './domain/clock.ts';
import { DomainError } from './domain/errors.ts';
import { decideImport, type ImportCommand, type ImportDecision } from './domain/import.ts';
import { decideChanges, evolve, initialRecordState, type RecordChange, type RecordState } from './domain/record.ts';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from './store/event-store.ts';

/** Other processes (an import from the CLI) may append too; after this many lost races, give up. */
const ATTEMPTS = 5;

export interface Loaded {
  state: RecordState;
  revision: ExpectedRevision;
}

export class RecordService {
  readonly #events: EventStore;
  readonly #clock: Clock;
  /** Commands on one athlete's record run one at a time in this process, so they never race here. */
  readonly #queues = new Map<string, Promise<unknown>>();

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

  #decideAndAppend(athleteId: string, actor: Actor, decide: (state: RecordState) => RecordEvent[]): Promise<RecordEvent[]> {
    const previous = this.#queues.get(athleteId) ?? Promise.resolve();
    const run = previous.then(
      () => this.#attempt(athleteId, actor, decide),
      () => this.#attempt(athleteId, actor, decide),
    );
    this.#queues.set(athleteId, run);
    const forget = () => {
      if (this.#queues.get(athleteId) === run) this.#queues.delete(athleteId);
    };
    run.then(forget, forget);
    return run;
  }

  async #attempt(athleteId: string, actor: Actor, decide: (state: RecordState) => RecordEvent[]): Promise<RecordEvent[]> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(athleteId);
      const events = decide(state);
      if (events.length === 0) return events;
      for (const e of events) recordEvent.parse(e);
      try {
        await appendEvents(this.#events, this.#clock, { stream: streams.record(athleteId), athleteId }, events, revision, actor);
        return events;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt === ATTEMPTS) throw new DomainError('busy', 'the record kept changing while this change was decided; try again');
      }
    }
  }
}
