// The decider test kit (decider-spec.ts), on a toy decider: it passes what it should, and fails
// (with an uvu Assertion saying what went wrong) on wrong events, a refusal where a decision was
// expected and the reverse, another refusal, a place not named, and a decision that changed its
// state. A crash is no refusal: it is thrown on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Assertion } from 'uvu/assert';
import { DeciderSpecification, type Decider } from './decider-spec.ts';

type Code = 'too_much' | 'negative';
class ToyRefusal extends Error {
  readonly code: Code;
  constructor(code: Code) {
    super(`refused: ${code}`);
    this.code = code;
  }
}

interface Added {
  type: 'added';
  by: number;
}
interface Total {
  total: number;
}

/** Adds to a total of at most 10. Adding 42 changes the state it decides on (a bad decider); 99 crashes. */
const toy: Decider<{ add: number }, Added, Total, Added[], ToyRefusal, Code> = {
  decide: ({ add }, state) => {
    if (add === 99) throw new TypeError('a crash, not a refusal');
    if (add === 42) state.total += 1;
    if (add < 0) throw new ToyRefusal('negative');
    if (state.total + add > 10) throw new ToyRefusal('too_much');
    return [{ type: 'added', by: add }];
  },
  evolve: (state, event) => {
    state.total += event.by;
    return state;
  },
  initialState: () => ({ total: 0 }),
  refusals: { type: ToyRefusal, codeOf: (e) => e.code, placesOf: (e) => (e.code === 'negative' ? ['add'] : []) },
};

const spec = DeciderSpecification.for(toy);
const added = (by: number): Added => ({ type: 'added', by });

/** The message of the Assertion `run` fails with; fails itself if `run` passes or throws anything else. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof Assertion) return error.message;
    throw error;
  }
  throw new Error('expected the kit to fail the test, and it passed');
}

test('given events, when a command, then the events it decides: equal, or as a check finds them; each answers the outcome', () => {
  assert.equal(
    spec
      .given(added(3), added(4))
      .when({ add: 3 })
      .then([added(3)]),
    [added(3)],
  );
  let seen: Added[] = [];
  spec
    .given(added(3))
    .when({ add: 7 })
    .then((events) => (seen = events));
  assert.equal(seen, [added(7)]);
  assert.equal(spec.given(added(3), added(4)).state(), { total: 7 });
});

test('then fails on other events, on a check that fails, and on a refusal, saying which', () => {
  assert.ok(
    failure(() =>
      spec
        .given(added(3))
        .when({ add: 4 })
        .then([added(5)]),
    ),
  );
  assert.ok(failure(() => spec.given(added(3)).when({ add: 4 }).then([])));
  assert.ok(
    failure(() =>
      spec
        .given()
        .when({ add: 4 })
        .then((events) => assert.is(events.length, 2)),
    ),
  );
  assert.match(
    failure(() =>
      spec
        .given(added(8))
        .when({ add: 3 })
        .then([added(3)]),
    ),
    'expected a decision, and it was refused: too_much (refused: too_much)',
  );
});

test('thenRefuses passes on the code, a predicate and a place named, answering the refusal', () => {
  assert.is(spec.given(added(8)).when({ add: 3 }).thenRefuses('too_much').code, 'too_much');
  spec
    .given()
    .when({ add: -1 })
    .thenRefuses((r) => r.code === 'negative');
  spec.given().when({ add: -1 }).thenRefuses('negative', { at: 'add' });
});

test('thenRefuses fails on a decision, another code, a predicate that rejects it, and a place not named', () => {
  assert.match(
    failure(() => spec.given().when({ add: 3 }).thenRefuses('too_much')),
    'expected a refusal (too_much), and it decided: [{"type":"added","by":3}]',
  );
  assert.match(
    failure(() => spec.given(added(8)).when({ add: 3 }).thenRefuses('negative')),
    'refused with too_much (refused: too_much), expected negative',
  );
  assert.match(
    failure(() =>
      spec
        .given()
        .when({ add: -1 })
        .thenRefuses((r) => r.code === 'too_much'),
    ),
    'the refusal is not the one expected: negative',
  );
  assert.match(
    failure(() => spec.given(added(8)).when({ add: 3 }).thenRefuses('too_much', { at: 'add' })),
    'the refusal names [], which should include add',
  );
});

test('a crash is no refusal: then and thenRefuses throw it on', () => {
  assert.throws(
    () => spec.given().when({ add: 99 }).then([]),
    (e: unknown) => e instanceof TypeError,
  );
  assert.throws(
    () => spec.given().when({ add: 99 }).thenRefuses('too_much'),
    (e: unknown) => e instanceof TypeError,
  );
});

test('a decision that changes the state it was given fails, decided or refused', () => {
  assert.match(
    failure(() =>
      spec
        .given()
        .when({ add: 42 })
        .then([added(42)]),
    ),
    'the decision changed the state it was decided on',
  );
  assert.match(
    failure(() => spec.given().when({ add: 42 }).thenRefuses('too_much')),
    'the decision changed the state it was decided on',
  );
});

test('each decision folds the given events from a fresh state: the same given decides alike every time', () => {
  const given = spec.given(added(5));
  given.when({ add: 5 }).then([added(5)]);
  given.when({ add: 5 }).then([added(5)]);
  given.when({ add: 6 }).thenRefuses('too_much');
  assert.equal(given.state(), { total: 5 });
});

test.run();
