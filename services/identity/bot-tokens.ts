// Named bearer tokens an athlete gives to bots for the read-only Read API v1. The token is shown
// once; the store keeps its SHA-256 (the token is 256 random bits, so a fast hash is enough).
import { randomBytes, randomUUID } from 'node:crypto';
import { botTokenEvent, streams, type Actor, type BotTokenEvent } from '../../contracts/events.ts';
import { decideAndAppend } from '../commands/handler.ts';
import { BOT_TOKENS, BOT_TOKENS_PARTITION, type BotTokenDoc } from '../../projections/bot-tokens.ts';
import type { Clock } from '../domain/clock.ts';
import { DomainError } from '../domain/errors.ts';
import { nameUuid, sha256Hex } from '../domain/ids.ts';
import type { EventStore, StoredEvent } from '../store/event-store.ts';
import { pagesOf, type ReadStore } from '../store/read-store.ts';
import { UsageLog } from '../operations/usage.ts';

const PREFIX = 'rlb_';
/** How much of a token the athlete sees to tell tokens apart: 24 of its 256 random bits. */
const SHOWN_LENGTH = PREFIX.length + 4;
export const BOT_TOKEN_USAGE = 'bot_token_usage';
/** Tokens read at a time when all of an athlete's are listed. */
const LIST_PAGE = 200;

export type BotTokenListing = BotTokenDoc & { last_used_at: string | null };

export class BotTokenService {
  readonly #events: EventStore;
  readonly #reads: ReadStore;
  readonly #clock: Clock;
  readonly #usage: UsageLog;

  constructor(events: EventStore, reads: ReadStore, clock: Clock) {
    this.#events = events;
    this.#reads = reads;
    this.#clock = clock;
    this.#usage = new UsageLog(reads, clock, BOT_TOKEN_USAGE);
  }

  async ensureCollections(): Promise<void> {
    await this.#usage.ensureCollection();
  }

  /**
   * Creates a token; the returned secret is never shown again. With a `requestKey` (the web form's,
   * one per form shown) the same request sent twice (a double click) makes one token: the second
   * is refused as `already_exists`, whichever of the two appends first.
   */
  async create(athleteId: string, name: string, actor: Actor, requestKey?: string): Promise<{ token_id: string; token: string }> {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 100)
      throw new DomainError('invalid_input', 'a bot token needs a name of 1 to 100 characters', [{ path: 'name', message: '1 to 100 characters' }]);
    const token = PREFIX + randomBytes(32).toString('base64url');
    const tokenId = requestKey === undefined ? randomUUID() : nameUuid(`bot-token/${athleteId}/${requestKey}`);
    const created: BotTokenEvent = {
      type: 'bot_token.created',
      data: { token_id: tokenId, athlete_id: athleteId, name: trimmed, token_sha256: sha256Hex(token), token_prefix: token.slice(0, SHOWN_LENGTH) },
    };
    return this.#command(athleteId, actor, (history) => {
      // The same request sent twice (perhaps appended first by the other): refused, as one form makes one token.
      if (history.some((e) => e.type === 'bot_token.created' && (e.data as { token_id?: unknown }).token_id === tokenId)) {
        throw new DomainError('already_exists', 'this form already made its token');
      }
      return { events: [created], result: { token_id: tokenId, token } };
    });
  }

  async revoke(athleteId: string, tokenId: string, actor: Actor): Promise<void> {
    await this.#command(athleteId, actor, (history) => {
      const mine = history.filter((e) => (e.data as { token_id?: unknown }).token_id === tokenId);
      if (!mine.some((e) => e.type === 'bot_token.created') || mine.some((e) => e.type === 'bot_token.revoked'))
        throw new DomainError('not_found', 'no such active bot token');
      return { events: [{ type: 'bot_token.revoked', data: { token_id: tokenId, athlete_id: athleteId } }], result: undefined };
    });
  }

  /** Every one of the athlete's tokens, newest first, with when each was last used: read a page at a time, none left out. */
  async list(athleteId: string): Promise<BotTokenListing[]> {
    const tokens: BotTokenDoc[] = [];
    const query = { partition: BOT_TOKENS_PARTITION, index: 'by_athlete', prefix: [athleteId], direction: 'desc' as const, limit: LIST_PAGE };
    for await (const page of pagesOf<BotTokenDoc>(this.#reads, BOT_TOKENS, query, (t) => [t.created_at, t.id])) tokens.push(...page);
    return Promise.all(tokens.map(async (t) => ({ ...t, token_prefix: t.token_prefix ?? null, last_used_at: await this.#usage.lastUsedAt(athleteId, t.id) })));
  }

  /** The live token a presented secret is, with its athlete; null for anything else. */
  async find(token: string): Promise<{ athleteId: string; tokenId: string } | null> {
    if (!token.startsWith(PREFIX)) return null;
    const [doc] = await this.#reads.page<BotTokenDoc>(BOT_TOKENS, {
      partition: BOT_TOKENS_PARTITION,
      index: 'by_hash',
      prefix: [sha256Hex(token)],
      direction: 'asc',
      limit: 1,
    });
    if (!doc || doc.revoked_at) return null;
    return { athleteId: doc.athlete_id, tokenId: doc.id };
  }

  /** Notes a use of a token, for the list's "last used" (written at most once a minute). */
  noteUse(athleteId: string, tokenId: string): void {
    this.#usage.note(athleteId, tokenId);
  }

  /** Decides on the athlete's bot-token stream and appends at the revision decided against. */
  #command<T>(athleteId: string, actor: Actor, decide: (history: readonly StoredEvent[]) => { events: BotTokenEvent[]; result: T }): Promise<T> {
    return decideAndAppend(this.#events, this.#clock, {
      stream: streams.botTokens(athleteId),
      athleteId,
      actor,
      what: "the athlete's bot tokens",
      decide: (history) => {
        const { events, result } = decide(history);
        return { events: events.map((e) => botTokenEvent.parse(e)), result };
      },
    });
  }
}
