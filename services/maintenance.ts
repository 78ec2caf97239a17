// The maintenance switch: an operator pauses Agent Access reads or writes, and callers get 503 with
// the Retry-After the operator expects. Kept in the read store so every instance sees it; each
// instance looks again at most every CHECK_EVERY_MS, so a change reaches all of them within that.
import type { AccessKind } from '../contracts/common.ts';
import type { Clock } from './domain/clock.ts';
import type { ReadStore } from './store/read-store.ts';


export interface Pause {
  since: string;
  retry_after_seconds: number;
  /** Who paused it: `operator:<id>`. */
  by: string;
}

export type MaintenanceState = Record<AccessKind, Pause | null>;

const SETTINGS = 'service_settings';
const PARTITION = 'service';
const ID = 'maintenance';
export const CHECK_EVERY_MS = 2000;

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
    const doc = await this.#reads.get<{ id: string } & MaintenanceState>(SETTINGS, PARTITION, ID);
    return { read: doc?.read ?? null, write: doc?.write ?? null };
  }

  /** Pauses (`retryAfterSeconds` given) or resumes (null) reads or writes. */
  async set(access: AccessKind, retryAfterSeconds: number | null, by: string): Promise<MaintenanceState> {
    const state = await this.state();
    const next = { ...state, [access]: retryAfterSeconds === null ? null : { since: this.#clock.now().toISOString(), retry_after_seconds: retryAfterSeconds, by } };
    await this.#reads.upsert(SETTINGS, PARTITION, { id: ID, ...next });
    this.#cached = null;
    return next;
  }

  /** The seconds a caller of `access` should wait, or null when it is open. Cached briefly: it is on every request. */
  async retryAfter(access: AccessKind): Promise<number | null> {
    const now = performance.now();
    if (!this.#cached || now - this.#cached.at >= CHECK_EVERY_MS) this.#cached = { state: await this.state(), at: now };
    return this.#cached.state[access]?.retry_after_seconds ?? null;
  }
}
