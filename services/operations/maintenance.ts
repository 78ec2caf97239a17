// The maintenance switch: an operator pauses reads (Agent Access and the Read API) or writes, and callers get 503 with
// the Retry-After the operator expects. Kept in the read store so every instance sees it; each
// instance looks again at most every MAINTENANCE_CHECK_EVERY_MS, so a change reaches all of them within that.
import { z } from 'zod';
import type { AccessKind } from '../../contracts/common.ts';
import { MAINTENANCE_CHECK_EVERY_MS } from '../../contracts/policy.ts';
import type { Clock } from '../domain/clock.ts';
import type { ReadStore } from '../store/read-store.ts';

const pause = z.object({
  since: z.string(),
  retry_after_seconds: z.number().int().min(1),
  /** Who paused it: `operator:<id>`. */
  by: z.string(),
});
export type Pause = z.infer<typeof pause>;

export type MaintenanceState = Record<AccessKind, Pause | null>;

const stored = z.object({ read: pause.nullable().optional(), write: pause.nullable().optional() });

const SETTINGS = 'service_settings';
const PARTITION = 'service';
const ID = 'maintenance';

export class Maintenance {
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  #cached: { state: MaintenanceState; at: number } | null = null;

  constructor(reads: ReadStore, clock: Clock) {
    this.#reads = reads;
    this.#clock = clock;
  }

  static readonly collections = [{ name: SETTINGS, indexes: [] }];

  async state(): Promise<MaintenanceState> {
    const doc = await this.#reads.get(SETTINGS, PARTITION, ID);
    // Only this class writes the document; one edited by hand into another shape pauses nothing.
    const parsed = stored.safeParse(doc ?? {});
    return parsed.success ? { read: parsed.data.read ?? null, write: parsed.data.write ?? null } : { read: null, write: null };
  }

  /** Pauses (`retryAfterSeconds` given) or resumes (null) reads or writes. */
  async set(access: AccessKind, retryAfterSeconds: number | null, by: string): Promise<MaintenanceState> {
    const state = await this.state();
    const next = {
      ...state,
      [access]: retryAfterSeconds === null ? null : { since: this.#clock.now().toISOString(), retry_after_seconds: retryAfterSeconds, by },
    };
    await this.#reads.upsert(SETTINGS, PARTITION, { id: ID, ...next });
    this.#cached = null;
    return next;
  }

  /** The seconds a caller of `access` should wait, or null when it is open. Cached briefly: it is on every request. */
  async retryAfter(access: AccessKind): Promise<number | null> {
    const now = performance.now();
    if (!this.#cached || now - this.#cached.at >= MAINTENANCE_CHECK_EVERY_MS) {
      try {
        this.#cached = { state: await this.state(), at: now };
      } catch (error) {
        // A store hiccup keeps the last known state rather than failing every request.
        if (!this.#cached) throw error;
      }
    }
    return this.#cached.state[access]?.retry_after_seconds ?? null;
  }
}
