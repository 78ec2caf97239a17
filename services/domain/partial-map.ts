// A map of which a fold may hold only part: the entries of the buckets loaded from a snapshot, and
// every entry written since. A read it cannot answer (a key in a bucket not loaded, or any
// iteration before every bucket is) throws `Missing`, which the command loop answers by loading
// what is missing and deciding again; deciders stay synchronous and never know. So a command on a
// record of 30,000 items reads the few buckets its keys fall in, not the whole fold.

/** What a partial map could not answer: `key`'s bucket of `section`, or (null) the whole section. */
export class Missing extends Error {
  readonly section: string;
  readonly key: string | null;

  constructor(section: string, key: string | null) {
    super(key === null ? `the whole of ${section} is needed` : `${section} ${key} is not loaded`);
    this.name = 'Missing';
    this.section = section;
    this.key = key;
  }
}

/** Which of `buckets` (a power of two) buckets `key` falls in: FNV-1a, stable across processes and releases. */
export function bucketOf(key: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) & (buckets - 1);
}

const base = Map.prototype;

export class PartialMap<V> extends Map<string, V> {
  readonly section: string;
  /** How many buckets the section was split into; 1 with `complete` from the start. */
  #buckets = 1;
  #loaded = new Set<number>();
  #complete = true;
  /** Keys deleted here: known absent whatever their bucket held. */
  readonly #gone = new Set<string>();
  /** Keys written or deleted since the last `takeDirty`: the buckets a snapshot must write again. */
  #dirty = new Set<string>();

  constructor(section: string) {
    super();
    this.section = section;
  }

  /** A whole copy of a whole map (a partial one throws `Missing`). */
  static copyOf<V>(map: PartialMap<V>): PartialMap<V> {
    const copy = new PartialMap<V>(map.section);
    for (const [key, value] of map) base.set.call(copy, key, value);
    return copy;
  }

  /** Makes the map hold nothing yet of a section split into `buckets` buckets, to be loaded on demand. */
  startPartial(buckets: number): this {
    this.#buckets = buckets;
    this.#complete = false;
    return this;
  }

  get complete(): boolean {
    return this.#complete;
  }

  get buckets(): number {
    return this.#buckets;
  }

  bucketOf(key: string): number {
    return bucketOf(key, this.#buckets);
  }

  isLoaded(bucket: number): boolean {
    return this.#complete || this.#loaded.has(bucket);
  }

  /** Whether `key` is known, present or absent, without loading anything. */
  knows(key: string): boolean {
    return base.has.call(this, key) || this.#gone.has(key) || this.isLoaded(this.bucketOf(key));
  }

  /**
   * Adds a bucket's entries as the snapshot held them: those written or deleted here since are
   * newer and stay. Bypasses `set`, so that subclasses' bookkeeping of new entries does not run.
   */
  merge(bucket: number, entries: Iterable<readonly [string, V]>): void {
    if (this.isLoaded(bucket)) return;
    for (const [key, value] of entries) if (!base.has.call(this, key) && !this.#gone.has(key)) base.set.call(this, key, value);
    this.#loaded.add(bucket);
    if (this.#loaded.size === this.#buckets) this.#complete = true;
  }

  override get(key: string): V | undefined {
    if (base.has.call(this, key)) return base.get.call(this, key) as V;
    if (this.knows(key)) return undefined;
    throw new Missing(this.section, key);
  }

  override has(key: string): boolean {
    if (base.has.call(this, key)) return true;
    if (this.knows(key)) return false;
    throw new Missing(this.section, key);
  }

  override set(key: string, value: V): this {
    base.set.call(this, key, value);
    this.#gone.delete(key);
    this.#dirty.add(key);
    return this;
  }

  /** Answers whether the key was known to be present: a key not loaded goes all the same. */
  override delete(key: string): boolean {
    const had = base.delete.call(this, key);
    this.#gone.add(key);
    this.#dirty.add(key);
    return had;
  }

  override clear(): void {
    base.clear.call(this);
    this.#gone.clear();
    this.#complete = true;
  }

  override get size(): number {
    this.#requireComplete();
    return super.size;
  }

  override entries(): MapIterator<[string, V]> {
    this.#requireComplete();
    return super.entries();
  }

  override keys(): MapIterator<string> {
    this.#requireComplete();
    return super.keys();
  }

  override values(): MapIterator<V> {
    this.#requireComplete();
    return super.values();
  }

  override forEach(callback: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    this.#requireComplete();
    super.forEach(callback, thisArg);
  }

  override [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  /** The entries held, of the `wanted` buckets of `buckets` (every entry of one, once it is loaded), by bucket. */
  entriesIn(buckets: number, wanted: ReadonlySet<number>): Map<number, Array<[string, V]>> {
    const found = new Map<number, Array<[string, V]>>([...wanted].map((b) => [b, []]));
    for (const [key, value] of base.entries.call(this) as MapIterator<[string, V]>) found.get(bucketOf(key, buckets))?.push([key, value]);
    return found;
  }

  /** The keys written or deleted since the last call, forgotten here; `restoreDirty` gives them back. */
  takeDirty(): Set<string> {
    const dirty = this.#dirty;
    this.#dirty = new Set();
    return dirty;
  }

  restoreDirty(keys: Iterable<string>): void {
    for (const key of keys) this.#dirty.add(key);
  }

  #requireComplete(): void {
    if (!this.#complete) throw new Missing(this.section, null);
  }
}
