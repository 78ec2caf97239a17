// When a credential was last used (an AI client's connection, a bot token), for the athlete's
// settings pages. Written at most once a minute per credential: what this instance wrote lately
// spares the store a read on nearly every request, and the store's copy serves every instance.
import type { Clock } from '../domain/clock.ts';
import type { Doc, ReadStore } from '../store/read-store.ts';

const EVERY_MS = 60_000;
/** Credentials remembered as noted; past this the memory starts over (costing one read each). */
const NOTED_MAX = 10_000;

interface UsageDoc extends Doc {
  last_used_at: string;
  /** What connections' notes were called before bot tokens had them too. */
  last_read_at?: string;
}

export class UsageLog {
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  readonly #collection: string;
  readonly #noted = new Map<string, number>();

  constructor(reads: ReadStore, clock: Clock, collection: string) {
    this.#reads = reads;
    this.#clock = clock;
    this.#collection = collection;
  }

  async ensureCollection(): Promise<void> {
    await this.#reads.ensureCollections([{ name: this.#collection, indexes: [] }]);
  }

  /**
   * Notes a use of credential `id` of athlete `partition`. The request that used it does not wait
   * for the write: on the embedded store a write waits for any open transaction, and an import's
   * lasts seconds, which no read should sit through for a timestamp to the minute. A write that
   * fails is lost, as in a crash; the next use after it writes again (this instance waits a minute).
   */
  note(partition: string, id: string): void {
    const now = this.#clock.now();
    const noted = this.#noted.get(id);
    if (noted !== undefined && now.getTime() - noted < EVERY_MS) return;
    if (this.#noted.size >= NOTED_MAX) this.#noted.clear();
    this.#noted.set(id, now.getTime());
    this.#write(partition, id, now).catch(() => undefined);
  }

  async #write(partition: string, id: string, now: Date): Promise<void> {
    const last = await this.lastUsedAt(partition, id);
    if (last && now.getTime() - Date.parse(last) < EVERY_MS) return;
    await this.#reads.upsert(this.#collection, partition, { id, last_used_at: now.toISOString() });
  }

  /** When credential `id` was last used, to the minute; null if never. */
  async lastUsedAt(partition: string, id: string): Promise<string | null> {
    const usage = await this.#reads.get<UsageDoc>(this.#collection, partition, id);
    return usage?.last_used_at ?? usage?.last_read_at ?? null;
  }
}
