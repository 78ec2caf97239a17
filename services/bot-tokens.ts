// Named bearer tokens an athlete gives to bots for the read-only Read API v1. The token is shown
// once; the store keeps its SHA-256 (the token is 256 random bits, so a fast hash is enough).
import { randomBytes, randomUUID } from 'node:crypto';
import { botTokenEvent, streams, type Actor, type BotTokenEvent } from '../contracts/events.ts';
import { appendEvents } from './append.ts';
import { BOT_TOKENS, BOT_TOKENS_PARTITION, type BotTokenDoc } from '../projections/bot-tokens.ts';
import type { Clock } from './domain/clock.ts';
import { DomainError } from './domain/errors.ts';
import { sha256Hex } from './domain/ids.ts';
import type { EventStore } from './store/event-store.ts';
import type { ReadStore } from './store/read-store.ts';

const PREFIX = 'rlb_';

export class BotTokenService {
  readonly #events: EventStore;
  readonly #reads: ReadStore;
  readonly #clock: Clock;

  constructor(events: EventStore, reads: ReadStore, clock: Clock) {
    this.#events = events;
    this.#reads = reads;
    this.#clock = clock;
  }

  /** Creates a token; the returned secret is never shown again. */
  async create(athleteId: string, name: string, actor: Actor): Promise<{ token_id: string; token: string }> {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 100) throw new DomainError('invalid_input', 'a bot token needs a name of 1 to 100 characters', [{ path: 'name', message: '1 to 100 characters' }]);
    const token = PREFIX + randomBytes(32).toString('base64url');
    const tokenId = randomUUID();
    await this.#append(athleteId, { type: 'bot_token.created', data: { token_id: tokenId, athlete_id: athleteId, name: trimmed, token_sha256: sha256Hex(token) } }, actor);
    return { token_id: tokenId, token };
  }

  async revoke(athleteId: string, tokenId: string, actor: Actor): Promise<void> {
    const doc = await this.#reads.get<BotTokenDoc>(BOT_TOKENS, BOT_TOKENS_PARTITION, tokenId);
    if (!doc || doc.athlete_id !== athleteId || doc.revoked_at) throw new DomainError('not_found', 'no such active bot token');
    await this.#append(athleteId, { type: 'bot_token.revoked', data: { token_id: tokenId, athlete_id: athleteId } }, actor);
  }

  async list(athleteId: string): Promise<BotTokenDoc[]> {
    return this.#reads.page<BotTokenDoc>(BOT_TOKENS, { partition: BOT_TOKENS_PARTITION, index: 'by_athlete', prefix: [athleteId], direction: 'desc', limit: 200 });
  }

  /** The athlete a presented bot token belongs to, if it is a live one. */
  async athleteFor(token: string): Promise<string | null> {
    if (!token.startsWith(PREFIX)) return null;
    const [doc] = await this.#reads.page<BotTokenDoc>(BOT_TOKENS, { partition: BOT_TOKENS_PARTITION, index: 'by_hash', prefix: [sha256Hex(token)], direction: 'asc', limit: 1 });
    return doc && !doc.revoked_at ? doc.athlete_id : null;
  }

  async #append(athleteId: string, event: BotTokenEvent, actor: Actor): Promise<void> {
    await appendEvents(this.#events, this.#clock, streams.botTokens(athleteId), [botTokenEvent.parse(event)], 'any', actor);
  }
}
