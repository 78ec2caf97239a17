// The Read API's caller: a bot token (spec 5.5), live, of an athlete on Pro. Only the
// `Authorization: Bearer` header is read: an Agent Access token, a session cookie or any
// chat-channel header authorises nothing here, and a bot token is never looked up by Agent Access.
import type { AthleteAccount } from '../domain/athlete.ts';
import { ApiError } from './errors.ts';
import { Remembered } from './remembered.ts';

/** What checking a bot token reads. */
export interface BotAuthDeps {
  clock: Clock;
  athletes: AthleteService;
  botTokens: BotTokenService;
  changeVersion: (() => number) | null;
}
import type { Clock } from '../domain/clock.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { BotTokenService } from '../identity/bot-tokens.ts';

export interface BotCaller {
  athlete: AthleteAccount;
  /** The bot token's id: quotas are counted per token. */
  tokenId: string;
}

/** The challenge of a Read API 401 (RFC 6750); `error="invalid_token"` once a token was presented. */
export function botChallenge(presented: boolean, description: string): string {
  return `Bearer realm="RepLedger Read API"${presented ? `, error="invalid_token", error_description="${description}"` : ''}`;
}

export class BotAuth {
  readonly #app: BotAuthDeps;
  readonly #identified: Remembered<BotCaller>;

  constructor(app: BotAuthDeps) {
    this.#app = app;
    this.#identified = new Remembered(app.changeVersion);
  }

  /**
   * The caller a bot token stands for, or a 401. The token, its revocation and the athlete's plan
   * are as they are now: a revocation or a lapsed plan is a commit, which ends what is remembered
   * (see Remembered), so it stops the very next request.
   */
  async identify(token: string | null): Promise<BotCaller> {
    const version = this.#identified.version();
    const now = this.#app.clock.now().getTime();
    const known = token === null ? null : this.#identified.get(token, version, now);
    const caller = known ?? (await this.#lookUp(token));
    // Bot tokens do not expire; they are revoked. A null token never gets here (#lookUp refuses it).
    if (!known && token !== null) this.#identified.set(token, caller, version, Infinity);
    this.#app.botTokens.noteUse(caller.athlete.athlete_id, caller.tokenId);
    return caller;
  }

  async #lookUp(token: string | null): Promise<BotCaller> {
    const unauthorized = (description: string) => new ApiError('unauthorized', description, { challenge: botChallenge(token !== null, description) });
    if (!token) throw unauthorized('a bot token is needed (Authorization: Bearer rlb_…); the athlete creates one in RepLedger under Bot tokens');
    const found = await this.#app.botTokens.find(token);
    if (!found) throw unauthorized('the bot token is not valid: it may have been revoked');
    const athlete = await this.#app.athletes.get(found.athleteId);
    if (athlete?.tier !== 'pro') throw unauthorized('the Read API needs an active Pro subscription');
    const { password_hash: _hash, ...account } = athlete;
    return { athlete: account, tokenId: found.tokenId };
  }
}
