// Bot tokens for the Read API v1: looked up by hash on every bot request, listed per athlete.
import type { BotTokenEvent } from '../contracts/events.ts';
import type { Doc } from '../services/store/read-store.ts';
import { occurredAt, type Projection } from './projection.ts';

export const BOT_TOKENS = 'bot_tokens';
/** One partition for all athletes: a presented token names no athlete, only its hash. */
export const BOT_TOKENS_PARTITION = 'all';

export interface BotTokenDoc extends Doc {
  athlete_id: string;
  name: string;
  token_sha256: string;
  token_prefix: string | null;
  created_at: string;
  revoked_at: string | null;
}

export const botTokensProjection: Projection = {
  name: 'bot_tokens',
  collections: [
    {
      name: BOT_TOKENS,
      indexes: [
        { name: 'by_hash', fields: ['token_sha256', 'id'] },
        { name: 'by_athlete', fields: ['athlete_id', 'created_at', 'id'] },
      ],
    },
  ],
  handles: (type) => type.startsWith('bot_token.'),
  async apply(stored, docs) {
    const event = stored as unknown as BotTokenEvent;
    const at = occurredAt(stored);
    if (event.type === 'bot_token.created') {
      const { token_id, athlete_id, name, token_sha256, token_prefix } = event.data;
      await docs.upsert(BOT_TOKENS, BOT_TOKENS_PARTITION, {
        id: token_id,
        athlete_id,
        name,
        token_sha256,
        token_prefix: token_prefix ?? null,
        created_at: at,
        revoked_at: null,
      } satisfies BotTokenDoc);
      return;
    }
    const current = await docs.get<BotTokenDoc>(BOT_TOKENS, BOT_TOKENS_PARTITION, event.data.token_id);
    if (current) await docs.upsert(BOT_TOKENS, BOT_TOKENS_PARTITION, { ...current, revoked_at: at });
  },
};
