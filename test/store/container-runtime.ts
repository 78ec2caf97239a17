// Whether the distributed adapters' suites can start containers, and how to skip them when not.
import { suite } from 'uvu';

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
 * Registers each named suite with one skipped case, so the runner counts them, and prints one
 * line saying why; fails instead under REPLEDGER_REQUIRE_SERVERS=1.
 */
export function skipSuites(what: string, reason: string, names: string[]): void {
  // `npm run test:distributed` is asked for these suites: not running them is a failure there.
  if (process.env.REPLEDGER_REQUIRE_SERVERS === '1') throw new Error(`${what} cannot run: ${reason}`);
  console.log(`skipped: ${what} — ${reason}`);
  for (const name of names) {
    const t = suite(name);
    t.skip(`${name} (skipped: ${reason})`, () => {});
    t.run();
  }
}
