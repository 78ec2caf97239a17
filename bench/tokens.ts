// Bearer tokens for the bench's requests, got the way a real client gets them: the OAuth flow
// with the sign-in and consent forms posted over HTTP (test/support/connect.ts).
import { connect } from '../test/support/connect.ts';
import { READ_API_RESOURCE } from './cases.ts';

const AREAS = ['training', 'recovery', 'nutrition', 'body_measurements'];

/**
 * Access tokens last 15 minutes. One older than this is replaced before a measurement starts, so
 * none expires during one (a measurement runs seconds, not minutes).
 */
const RENEW_AFTER_MS = 10 * 60_000;

export class Tokens {
  readonly #base: string;
  readonly #held = new Map<string, { token: string; obtainedAt: number }>();
  /** By athlete e-mail: bot tokens do not expire. */
  readonly #botTokens: ReadonlyMap<string, string>;

  constructor(base: string, botTokens: ReadonlyMap<string, string>) {
    this.#base = base;
    this.#botTokens = botTokens;
  }

  /** A token of `email`'s athlete for `resource` (the REST or the MCP resource URL, or READ_API_RESOURCE). */
  async bearer(email: string, resource: string): Promise<string> {
    if (resource === READ_API_RESOURCE) {
      const token = this.#botTokens.get(email);
      if (!token) throw new Error(`no bot token for ${email}`);
      return token;
    }
    const key = `${email} ${resource}`;
    const held = this.#held.get(key);
    if (held && Date.now() - held.obtainedAt < RENEW_AFTER_MS) return held.token;
    // A new connection rather than a refresh: simpler, and the bench never measures this path.
    const { tokens } = await connect(this.#base, resource, AREAS, AREAS.join(' '), email);
    this.#held.set(key, { token: tokens.access_token, obtainedAt: Date.now() });
    return tokens.access_token;
  }
}
