// The projector's lease: of all the processes that could follow the log (every `serve` with a
// distributed store, every `projections run`), one at a time applies events to the read models,
// replays and upgrades them. The lease is one document in the read store, taken and renewed in
// the store's own transactions, so it works the same on every adapter.
//
// A holder's token (a fencing token) grows with every change of holder. Every transaction that
// writes read models checks, in that transaction, that the lease still carries the holder's token
// and writes the lease document back (`fence`): a process that paused past its lease (a long GC,
// SIGSTOP, a partition) and woke to find another holder has its transaction refused, not applied.
// The rewrite matters on MongoDB: a transaction that only read the lease would not conflict with a
// takeover committed meanwhile, while two transactions that both write it do (one is retried, and
// its retry reads the new token).
//
// Expiry is by the holder's and the taker's own clocks, so clocks must agree to within the renewal
// margin (two thirds of the lease: PROJECTION_LEASE_MS, see services/config.ts); the token, not the clock, is what keeps two holders from
// both writing.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../services/domain/clock.ts';
import type { CollectionSpec, Doc, Documents, ReadStore } from '../services/store/read-store.ts';

export const LEASES = 'projection_leases';
const PARTITION = 'projections';
/** One lease for all projections: one process projects them all, in the runner's order. */
const PROJECTOR = 'projector';

export const LEASE_COLLECTION: CollectionSpec = { name: LEASES, indexes: [] };

interface LeaseDoc extends Doc {
  holder: string;
  token: number;
  /** Milliseconds since the epoch, by the holder's clock. */
  expires_at: number;
}

/** Who holds the lease, for `projections status` and for a refusal's words. */
export interface LeaseHolder {
  holder: string;
  token: number;
  expires_at: string;
}

export class LeaseLost extends Error {
  constructor(holder: string, now: LeaseDoc | null) {
    super(now ? `the projector lease passed from ${holder} to ${now.holder} (token ${now.token})` : `the projector lease of ${holder} was released`);
    this.name = 'LeaseLost';
  }
}

/** A name that says which process holds the lease: host, pid, and a random part for a restarted pid. */
export function holderName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export class ProjectorLease {
  readonly holder: string;
  readonly ms: number;
  readonly #store: ReadStore;
  readonly #clock: Clock;
  #token: number | null = null;

  constructor(store: ReadStore, clock: Clock, ms: number, holder = holderName()) {
    this.#store = store;
    this.#clock = clock;
    this.ms = ms;
    this.holder = holder;
  }

  /** The token this process holds, or null: held means only as of the last acquire or renew. */
  get token(): number | null {
    return this.#token;
  }

  /**
   * Takes the lease if it is free, expired or ours already (then renews it). Returns the token,
   * or null if another process holds it.
   */
  async acquire(): Promise<number | null> {
    const now = this.#clock.now().getTime();
    this.#token = await this.#store.transaction(async (docs) => {
      const lease = await docs.get<LeaseDoc>(LEASES, PARTITION, PROJECTOR);
      if (lease && lease.holder !== this.holder && lease.expires_at > now) return null;
      const token = lease?.holder === this.holder ? lease.token : (lease?.token ?? 0) + 1;
      await docs.upsert(LEASES, PARTITION, { id: PROJECTOR, holder: this.holder, token, expires_at: now + this.ms } satisfies LeaseDoc);
      return token;
    });
    return this.#token;
  }

  /** Extends the lease; false (and not held any more) if another process took it. */
  async renew(): Promise<boolean> {
    if (this.#token === null) return false;
    const token = this.#token;
    const now = this.#clock.now().getTime();
    const held = await this.#store.transaction(async (docs) => {
      const lease = await docs.get<LeaseDoc>(LEASES, PARTITION, PROJECTOR);
      if (lease?.holder !== this.holder || lease.token !== token) return false;
      await docs.upsert(LEASES, PARTITION, { ...lease, expires_at: now + this.ms });
      return true;
    });
    if (!held) this.#token = null;
    return held;
  }

  /**
   * In a transaction that writes read models: refuses it (LeaseLost) unless the lease still
   * carries our token, and writes the lease back, renewed, so that a takeover and this transaction
   * conflict (and a long catch-up, a batch at a time, keeps the lease).
   */
  async fence(docs: Documents): Promise<void> {
    const lease = await docs.get<LeaseDoc>(LEASES, PARTITION, PROJECTOR);
    if (this.#token === null || lease?.holder !== this.holder || lease.token !== this.#token) {
      this.#token = null;
      throw new LeaseLost(this.holder, lease);
    }
    await docs.upsert(LEASES, PARTITION, { ...lease, expires_at: this.#clock.now().getTime() + this.ms });
  }

  /** Gives the lease up (a clean stop), so that a waiting process takes over at once. */
  async release(): Promise<void> {
    const token = this.#token;
    this.#token = null;
    if (token === null) return;
    await this.#store.transaction(async (docs) => {
      const lease = await docs.get<LeaseDoc>(LEASES, PARTITION, PROJECTOR);
      if (lease?.holder === this.holder && lease.token === token) await docs.upsert(LEASES, PARTITION, { ...lease, expires_at: 0 });
    });
  }
}

/** Who holds the projector lease now (an expired one included), or null if no process ever took it. */
export async function leaseHolder(store: Pick<Documents, 'get'>): Promise<LeaseHolder | null> {
  const lease = await store.get<LeaseDoc>(LEASES, PARTITION, PROJECTOR);
  return lease && { holder: lease.holder, token: lease.token, expires_at: new Date(lease.expires_at).toISOString() };
}
