// A client of Hevy's public API (https://api.hevyapp.com/docs, v1): the athlete's API key in the
// `api-key` header, JSON answers. Only what the sync reads: the user (to check a key), the workout
// events feed, and exercise templates. Shapes are read with zod, leniently (fields we do not use
// may come and go), so a changed answer is a clear error rather than a half-read workout.
//
// Paging: Hevy pages with `page` (from 1) and `pageSize`, and says `page_count`; the events feed
// takes at most 10 a page, templates 100. Limits: a 429 is waited out (its Retry-After, seconds or
// an HTTP date), a 5xx or a network failure is retried with exponential backoff; after
// `maxAttempts` the call fails with `HevyUnavailable`, naming when to try again. A 401 or 403 means
// the key is wrong or revoked (`HevyKeyRejected`): nothing is retried.
//
// The key never appears in an error, a log line or a URL: it is only ever a request header.
import type { z } from 'zod';
import {
  EVENTS_PAGE_MAX,
  TEMPLATES_PAGE_MAX,
  hevyEventsPage,
  hevyExerciseTemplate,
  hevyTemplatesPage,
  hevyUserInfo,
  hevyWorkout,
  type HevyEventsPage,
  type HevyExerciseTemplate,
  type HevyUser,
  type HevyWorkout,
  type HevyWorkoutEvent,
} from '../../contracts/hevy.ts';

export type { HevyEventsPage, HevyExerciseTemplate, HevyUser, HevyWorkout, HevyWorkoutEvent };

export const HEVY_API = 'https://api.hevyapp.com';

/** Hevy refused the key (401 or 403): wrong, or revoked in Hevy's settings. */
export class HevyKeyRejected extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`Hevy refused the API key (HTTP ${status}): it is wrong or was revoked; connect again with a new key`);
    this.name = 'HevyKeyRejected';
    this.status = status;
  }
}

/** Hevy kept answering 429 or 5xx (or could not be reached) through every attempt. */
export class HevyUnavailable extends Error {
  /** How long Hevy asked us to wait (its last Retry-After), else our own next backoff. */
  readonly retryAfterMs: number;
  readonly status: number | null;
  constructor(status: number | null, retryAfterMs: number, detail: string) {
    super(`Hevy is not answering (${detail}); try again in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = 'HevyUnavailable';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Hevy answered something we cannot read (another status, or a body of another shape). */
export class HevyProtocolError extends Error {
  readonly status: number;
  constructor(status: number, detail: string) {
    super(`Hevy answered HTTP ${status}: ${detail}`);
    this.name = 'HevyProtocolError';
    this.status = status;
  }
}

export interface HevyClientOptions {
  apiKey: string;
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Waits between attempts; tests hand one that records the waits and does not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Tries of one request, the first included. */
  maxAttempts?: number;
  /** First backoff after a 5xx or a network failure; doubled each time, up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Told of every wait, for progress ("Hevy asked us to wait 30 s"). */
  onWait?: (wait: { ms: number; status: number | null; attempt: number }) => void;
  /** Each request's time limit. */
  timeoutMs?: number;
}

const DEFAULTS = { maxAttempts: 5, backoffMs: 1_000, maxBackoffMs: 60_000, timeoutMs: 30_000 };
/** A Retry-After longer than this is not waited out inside one call: the call fails and says when to come back. */
const LONGEST_WAIT_MS = 5 * 60_000;

export class HevyClient {
  readonly #key: string;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #options: typeof DEFAULTS & Pick<HevyClientOptions, 'onWait'>;

  constructor(options: HevyClientOptions) {
    this.#key = options.apiKey;
    this.#base = (options.baseUrl ?? HEVY_API).replace(/\/+$/, '');
    this.#fetch = options.fetch ?? fetch;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#options = {
      maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
      backoffMs: options.backoffMs ?? DEFAULTS.backoffMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      onWait: options.onWait,
    };
  }

  /** The key's user: what connecting checks the key with. */
  async user(): Promise<HevyUser> {
    return (await this.#get('/v1/user/info', hevyUserInfo)).data;
  }

  /** One page of the workout events feed since `since` (Hevy lists them newest first). */
  eventsPage(since: string, page: number, pageSize = EVENTS_PAGE_MAX): Promise<HevyEventsPage> {
    return this.#get(`/v1/workouts/events?${new URLSearchParams({ page: String(page), pageSize: String(pageSize), since })}`, hevyEventsPage);
  }

  /**
   * Every event since `since`, a page at a time, newest first as Hevy lists them. `onPage` hears
   * of each page (progress). Stops at `page_count` as the first page said it; a later page that
   * says more (events added meanwhile) is read on to its own count.
   */
  async allEvents(since: string, onPage?: (page: number, pageCount: number) => void, pageSize = EVENTS_PAGE_MAX): Promise<HevyWorkoutEvent[]> {
    const events: HevyWorkoutEvent[] = [];
    for (let page = 1, count = 1; page <= count; page++) {
      const answer = await this.eventsPage(since, page, pageSize);
      count = Math.max(count, answer.page_count);
      events.push(...answer.events);
      onPage?.(page, Math.max(count, 1));
      if (answer.events.length === 0) break;
    }
    return events;
  }

  async exerciseTemplate(id: string): Promise<HevyExerciseTemplate | null> {
    return this.#get(`/v1/exercise_templates/${encodeURIComponent(id)}`, hevyExerciseTemplate, { notFound: null });
  }

  exerciseTemplatesPage(page: number, pageSize = TEMPLATES_PAGE_MAX) {
    return this.#get(`/v1/exercise_templates?${new URLSearchParams({ page: String(page), pageSize: String(pageSize) })}`, hevyTemplatesPage);
  }

  async workout(id: string): Promise<HevyWorkout | null> {
    return this.#get(`/v1/workouts/${encodeURIComponent(id)}`, hevyWorkout, { notFound: null });
  }

  async #get<T, N = never>(path: string, schema: z.ZodType<T>, options?: { notFound: N }): Promise<T | N> {
    const { maxAttempts, backoffMs, maxBackoffMs, timeoutMs, onWait } = this.#options;
    let backoff = backoffMs;
    for (let attempt = 1; ; attempt++) {
      let response: Response | null = null;
      let failure: string;
      try {
        response = await this.#fetch(`${this.#base}${path}`, {
          headers: { 'api-key': this.#key, accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        // The message names the host at most (fetch never puts headers in it).
        failure = `network: ${(error as Error).name}`;
      }
      if (response) {
        const status = response.status;
        if (status === 401 || status === 403) {
          await response.body?.cancel();
          throw new HevyKeyRejected(status);
        }
        if (status === 404 && options && 'notFound' in options) {
          await response.body?.cancel();
          return options.notFound;
        }
        if (status >= 200 && status < 300) {
          const body: unknown = await response.json().catch(() => undefined);
          const parsed = schema.safeParse(body);
          if (!parsed.success) throw new HevyProtocolError(status, `unexpected body for ${path.split('?')[0]}: ${parsed.error.issues[0]?.message ?? ''}`);
          return parsed.data;
        }
        await response.body?.cancel();
        if (status !== 429 && status < 500) throw new HevyProtocolError(status, `refused ${path.split('?')[0]}`);
        failure = `HTTP ${status}`;
        const asked = status === 429 ? retryAfterMs(response.headers.get('retry-after'), Date.now()) : null;
        const wait = asked ?? backoff;
        if (attempt >= maxAttempts || wait > LONGEST_WAIT_MS) throw new HevyUnavailable(status, wait, failure);
        onWait?.({ ms: wait, status, attempt });
        await this.#sleep(wait);
        if (asked === null) backoff = Math.min(backoff * 2, maxBackoffMs);
        continue;
      }
      if (attempt >= maxAttempts) throw new HevyUnavailable(null, backoff, failure!);
      onWait?.({ ms: backoff, status: null, attempt });
      await this.#sleep(backoff);
      backoff = Math.min(backoff * 2, maxBackoffMs);
    }
  }
}

/** A Retry-After header's wait in ms (delay-seconds or an HTTP date, RFC 9110 10.2.3), or null if absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
