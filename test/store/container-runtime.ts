// Whether the distributed adapters' suites can start containers, and how to skip them when not.
import { suite, type Context, type Test } from 'uvu';

/** How long to wait for a container runtime to answer before treating it as absent. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Null when testcontainers finds a working container runtime (Docker, Podman, …), else why not.
 * Never hangs: an unreachable DOCKER_HOST counts as no runtime after PROBE_TIMEOUT_MS.
 */
export async function whyNoContainerRuntime(): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000}s`)), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([getContainerRuntimeClient(), timeout]);
    return null;
  } catch (error) {
    return `no container runtime (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A suite that needs a server. With `skipped` (why no server can be had) every test registered on
 * it is counted as skipped, one by one, and its hooks, which would reach for the server, are
 * never run; under REPLEDGER_REQUIRE_SERVERS=1 (`npm run test:distributed`) that is a failure.
 */
export function serverSuite<T extends Context = Context>(name: string, skipped: string | null, state?: T): Test<T> {
  if (!skipped) return suite<T>(name, state);
  if (process.env.REPLEDGER_REQUIRE_SERVERS === '1') throw new Error(`${name} cannot run: ${skipped}`);
  const inner = suite<T>(name, state);
  const skip = (title: string) => inner.skip(`${title} (skipped: ${skipped})`, () => {});
  const hook = Object.assign(() => {}, { each: () => {} });
  return Object.assign(skip, { only: skip, skip, before: hook, after: hook, run: () => inner.run() }) as unknown as Test<T>;
}
