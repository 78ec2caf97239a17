// The error a call throws, of the class a test expects: anything else it throws is rethrown, and
// a call that throws nothing fails the test.

/** Runs `run` and answers what it threw, which must be a `type`. */
export function thrown<E extends Error>(type: new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}, and nothing was thrown`);
}
