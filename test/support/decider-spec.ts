// A decider test kit after Emmett's `DeciderSpecification` (event-driven-io/emmett,
// src/packages/emmett/src/testing/deciderSpecification.ts): given the events a stream holds, when a
// command is decided, then these events (or this outcome), or this refusal.
//
//   const spec = DeciderSpecification.for({ decide, evolve, initialState, refusals: domainRefusals });
//   spec.given(created('meal', meal)).when([update('meal', lunch, 1)]).then([updated('meal', lunch, 2)]);
//   spec.given(updated('meal', lunch, 2)).when([update('meal', dinner, 1)]).thenRefuses('revision_conflict', { at: 'base_revision' });
//
// `then` and `thenRefuses` fold the given events with `evolve` from a fresh `initialState()`, run
// `decide(command, state)`, and compare with uvu/assert. Our deciders have different signatures,
// so each spec takes a `decide` adapter (test/support/deciders.ts has ours). Two things Emmett's
// kit leaves out: a refusal is a decider's own typed error, checked by its code (a `DomainError`'s
// `code`, a `ReviewRefusal`'s or `WriteRefusal`'s `reason`) and, where it says, by where it applies;
// and every decision, decided or refused, must leave the state it was given as it was (our
// evolves fold in place, and deciders try batches on the state itself and put it back).
import * as assert from 'uvu/assert';
import { DomainError, type DomainErrorCode } from '../../services/domain/errors.ts';
import { ReviewRefusal, type ReviewRefusalReason } from '../../services/domain/proposal-review.ts';
import { WriteRefusal, type WriteRefusalReason } from '../../services/domain/proposal.ts';
import { plain } from './plain.ts';

/** How a decider refuses: the error class it throws, the code that says why, and where it applies. */
export interface Refusals<R extends Error, Code extends string> {
  type: new (...args: never[]) => R;
  codeOf: (refusal: R) => Code;
  /** The places the refusal names (issue paths, a field); empty when it names none. */
  placesOf: (refusal: R) => readonly string[];
}

/** The record decider's refusals: a code, and the paths of its issues (`changes[1].item.date`). */
export const domainRefusals: Refusals<DomainError, DomainErrorCode> = {
  type: DomainError,
  codeOf: (e) => e.code,
  placesOf: (e) => e.issues.map((i) => i.path),
};

/** The athlete's moves' refusals (approve, reject, undo): a reason; they name no field. */
export const reviewRefusals: Refusals<ReviewRefusal, ReviewRefusalReason> = {
  type: ReviewRefusal,
  codeOf: (e) => e.reason,
  placesOf: () => [],
};

/** A proposal's refusals at preparation: a reason, and the field of the body (`actions.1.base_revision`). */
export const writeRefusals: Refusals<WriteRefusal, WriteRefusalReason> = {
  type: WriteRefusal,
  codeOf: (e) => e.reason,
  placesOf: (e) => (e.field === null ? [] : [e.field]),
};

export interface Decider<Command, Event, State, Outcome, R extends Error, Code extends string> {
  /** Decides `command` on `state`: the events it makes (or a richer outcome), or a refusal thrown. */
  decide: (command: Command, state: State) => Outcome;
  /** Folds one event into the state; may change `state` in place and return it. */
  evolve: (state: State, event: Event) => State;
  /** A fresh state, nothing folded (called for every decision, as evolves fold in place). */
  initialState: () => State;
  refusals: Refusals<R, Code>;
}

export interface Then<Outcome, R extends Error, Code extends string> {
  /**
   * Then the decision equals `expected` (uvu's deep `assert.equal`), or `check` passes on it.
   * Answers the outcome. (No outcome of ours is a function, which tells the two forms apart.)
   */
  then(expected: Outcome | ((outcome: Outcome) => void)): Outcome;
  /**
   * Then it is refused with `code` (and, with `at`, naming that place among others), or with a
   * refusal `matches` accepts. Answers the refusal, for what else a test checks of it. Anything
   * else thrown is no refusal: it is thrown on, and fails the test as it would have.
   */
  thenRefuses(expected: Code | ((refusal: R) => boolean), where?: { at?: string }): R;
}

export interface DeciderSpecification<Command, Event, State, Outcome, R extends Error, Code extends string> {
  given(...events: Event[]): {
    when(command: Command): Then<Outcome, R, Code>;
    /** The state the given events fold to, for checks of `evolve` itself. */
    state(): State;
  };
}

function specificationFor<Command, Event, State, Outcome, R extends Error, Code extends string>(
  decider: Decider<Command, Event, State, Outcome, R, Code>,
): DeciderSpecification<Command, Event, State, Outcome, R, Code> {
  const { refusals } = decider;
  const describe = (refusal: R) => `${refusals.codeOf(refusal)} (${refusal.message})`;
  return {
    given: (...events) => {
      const fold = () => events.reduce(decider.evolve, decider.initialState());
      /** Decides on the folded state, failing if the decision changed that state, refused or not. */
      const decide = (command: Command): Outcome => {
        const state = fold();
        const before = plain(state);
        try {
          return decider.decide(command, state);
        } finally {
          assert.equal(plain(state), before, 'the decision changed the state it was decided on (only events may)');
        }
      };
      return {
        state: fold,
        when: (command) => ({
          // biome-ignore lint/suspicious/noThenProperty: Emmett's name; what `when` answers is never awaited.
          then(expected) {
            let outcome: Outcome;
            try {
              outcome = decide(command);
            } catch (error) {
              if (error instanceof refusals.type) fail(`expected a decision, and it was refused: ${describe(error)}`);
              throw error;
            }
            if (typeof expected === 'function') (expected as (outcome: Outcome) => void)(outcome);
            else assert.equal(outcome, expected);
            return outcome;
          },
          thenRefuses(expected, where = {}) {
            let outcome: Outcome;
            try {
              outcome = decide(command);
            } catch (error) {
              if (!(error instanceof refusals.type)) throw error;
              if (typeof expected === 'function') assert.ok(expected(error), `the refusal is not the one expected: ${describe(error)}`);
              else assert.is(refusals.codeOf(error), expected, `refused with ${describe(error)}, expected ${expected}`);
              if (where.at !== undefined) {
                const places = refusals.placesOf(error);
                assert.ok(places.includes(where.at), `the refusal names ${JSON.stringify(places)}, which should include ${where.at}`);
              }
              return error;
            }
            const wanted = typeof expected === 'function' ? 'a refusal' : `a refusal (${expected})`;
            return fail(`expected ${wanted}, and it decided: ${JSON.stringify(outcome).slice(0, 600)}`);
          },
        }),
      };
    },
  };
}

/** Fails the test (uvu's `unreachable`, typed as what it is: it never returns). */
function fail(message: string): never {
  assert.unreachable(message);
  throw new Error(message);
}

export const DeciderSpecification = { for: specificationFor };
