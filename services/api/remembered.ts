// Callers remembered against the stores' change version. Looking a credential up (the token, the
// connection or bot token, the athlete) costs more than most reads, so a caller is answered again
// while nothing at all has been committed since it was looked up, by this process or any other: a
// revocation, a disconnect or a change of plan is a commit, so the next request looks everything
// up again. Stores that cannot tell their version cheaply (KurrentDB, MongoDB) remember nothing.

/** Entries remembered at most; past this the memory starts over (costing one lookup each). */
const REMEMBERED_MAX = 10_000;

interface Entry<T> {
  value: T;
  version: number;
  /** ms since the epoch by the app's clock; Infinity for credentials that do not expire. */
  expiresAt: number;
}

export class Remembered<T> {
  readonly #changeVersion: (() => number) | null;
  /** Only entries of the stores' current version are kept. */
  readonly #entries = new Map<string, Entry<T>>();

  constructor(changeVersion: (() => number) | null) {
    this.#changeVersion = changeVersion;
  }

  /** The stores' version now, or null where it cannot be told. Read it before looking anything up. */
  version(): number | null {
    return this.#changeVersion?.() ?? null;
  }

  /** What was remembered under `key` at `version`, if it has not expired by `now`. */
  get(key: string, version: number | null, now: number): T | null {
    if (version === null) return null;
    const known = this.#entries.get(key);
    return known && known.version === version && now < known.expiresAt ? known.value : null;
  }

  /** Remembers `value`, looked up while the stores stood at `version` (read before the lookup). */
  set(key: string, value: T, version: number | null, expiresAt: number): void {
    if (version === null) return;
    // Entries of an older version can never be answered again.
    const anyKept = this.#entries.values().next().value;
    if ((anyKept && anyKept.version !== version) || this.#entries.size >= REMEMBERED_MAX) this.#entries.clear();
    this.#entries.set(key, { value, version, expiresAt });
  }
}
