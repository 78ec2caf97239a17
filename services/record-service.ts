// Executes record commands: load the athlete's record stream, decide, append at the revision the
// decision was made against. A concurrent writer makes the append fail; the command is then
// decided again on the new state, so a decision never lands on a record it did not see.
import { recordStreamEvent, streams, type Actor, type RecordEvent, type RecordStreamEvent } from '../contracts/events.ts';
import { appendEvents } from './append.ts';
import type { Clock } from './domain/clock.ts';
import { DomainError } from './domain/errors.ts';
import { decideImport, type ImportCommand, type ImportDecision } from './domain/import.ts';
import { evolveProposals, type ProposalState } from './domain/proposal.ts';
import { decideChanges, evolve, initialRecordState, type RecordChange, type RecordState } from './domain/record.ts';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision, type StoredEvent } from './store/event-store.ts';

/** Other processes (an import from the CLI) may append too; after this many lost races, give up. */
const ATTEMPTS = 5;

export interface Loaded {
  state: RecordState;
  /** The proposals on the record stream, by command id. */
  proposals: ProposalState;
  /** The stream as read, for folds that need item bodies (`itemImages`). */
  events: StoredEvent[];
  revision: ExpectedRevision;
}

/** What a command decided: the events to append, and what it tells its caller. */
export interface Decided<T> {
  events: RecordStreamEvent[];
  result: T;
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
    const proposals: ProposalState = new Map();
    // Events were validated when written (see #attempt); folding trusts them.
    for (const e of stored) {
      evolve(state, { type: e.type, data: e.data } as RecordEvent);
      evolveProposals(proposals, e);
    }
    return { state, proposals, events: stored, revision: stored.length ? stored[stored.length - 1]!.revision : 'no_stream' };
  }

  /**
   * Runs any command on the record stream: load, decide, append at the revision decided against,
   * and decide again if another writer got there first. `decide` may do I/O that must precede the
   * append (sealing details under a new key); it runs again on every attempt.
   */
  command<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<T> {
    return this.#decideAndAppend(athleteId, actor, decide);
  }

  /** Applies a batch of changes atomically. Returns the events written. */
  async change(athleteId: string, changes: RecordChange[], actor: Actor): Promise<RecordEvent[]> {
    return this.#decideAndAppend(athleteId, actor, ({ state }) => {
      const events = decideChanges(changes, state);
      return { events, result: events };
    });
  }

  /** Imports a whole file in one append: all of it lands, or none. */
  async import(athleteId: string, command: ImportCommand, actor: Actor): Promise<ImportDecision> {
    return this.#decideAndAppend(athleteId, actor, ({ state }) => {
      const decision = decideImport(command, state);
      return { events: decision.events, result: decision };
    });
  }

  #decideAndAppend<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<T> {
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

  async #attempt<T>(athleteId: string, actor: Actor, decide: (loaded: Loaded) => Decided<T> | Promise<Decided<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load(athleteId);
      const { events, result } = await decide(loaded);
      if (events.length === 0) return result;
      for (const e of events) recordStreamEvent.parse(e);
      try {
        await appendEvents(this.#events, this.#clock, { stream: streams.record(athleteId), athleteId }, events, loaded.revision, actor);
        return result;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt === ATTEMPTS) throw new DomainError('busy', 'the record kept changing while this change was decided; try again');
      }
    }
  }
}
