// Bearer tokens for the bench's requests, got the way a real client gets them: the OAuth flow
// with the sign-in and consent forms posted over HTTP (test/support/connect.ts), then every write
// permission asked for with the link get_write_context gives and allowed by the athlete in the
// permission form, over HTTP as a browser would post it. The Read API's are bot tokens made before.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { WRITE_PERMISSIONS } from '../contracts/write-permissions.ts';
import { connect, follow, PASSWORD } from '../test/support/connect.ts';
import type { MemoryOAuthClient } from '../test/support/oauth-client.ts';
import { FormClient } from '../test/support/server.ts';
import { READ_API_RESOURCE, writeContextOf } from './cases.ts';

const AREAS = ['training', 'recovery', 'nutrition', 'body_measurements'];

/**
 * Access tokens last 15 minutes. One older than this is refreshed before a measurement starts, so
 * none expires during one (a measurement runs seconds, not minutes).
 */
const RENEW_AFTER_MS = 10 * 60_000;

/** A connection of one athlete's for one resource: its OAuth client, current token and grant. */
interface Held {
  client: MemoryOAuthClient;
  token: string;
  grantId: string;
  obtainedAt: number;
}

export class Tokens {
  readonly #base: string;
  readonly #held = new Map<string, Held>();
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
    return (await this.connection(email, resource)).token;
  }

  /**
   * The athlete's connection for `resource`, allowed every write permission. Renewed by a refresh,
   * not a new connection: proposals and permissions belong to the connection (its grant).
   */
  async connection(email: string, resource: string): Promise<{ token: string; grantId: string }> {
    const key = `${email} ${resource}`;
    const held = this.#held.get(key);
    if (held && Date.now() - held.obtainedAt < RENEW_AFTER_MS) return held;
    const renewed = held ? await this.#refresh(held, resource) : await this.#connect(email, resource);
    this.#held.set(key, renewed);
    return renewed;
  }

  async #connect(email: string, resource: string): Promise<Held> {
    const obtainedAt = Date.now();
    const { client, tokens } = await connect(this.#base, resource, AREAS, AREAS.join(' '), email);
    const grantId = await allowEveryWrite(this.#base, resource, tokens.access_token, email);
    return { client, token: tokens.access_token, grantId, obtainedAt };
  }

  async #refresh(held: Held, resource: string): Promise<Held> {
    const obtainedAt = Date.now();
    // With a refresh token saved, the SDK's auth() refreshes instead of starting a new authorization.
    if ((await auth(held.client, { serverUrl: resource })) !== 'AUTHORIZED' || !held.client.saved)
      throw new Error(`could not refresh the token for ${resource}`);
    return { ...held, token: held.client.saved.access_token, obtainedAt };
  }
}

/**
 * What a client does to be allowed to propose: it reads permissions_url from get_write_context and
 * sends the athlete there; the athlete signs in and ticks every permission the form offers.
 * Returns the connection's grant id, checked to hold every write permission afterwards.
 */
async function allowEveryWrite(base: string, resource: string, token: string, email: string): Promise<string> {
  const { permissions_url } = await writeContextOf(base, resource, token);
  const browser = new FormClient(base);
  let page = await follow(browser, permissions_url);
  if (page.location.includes('/sign-in')) {
    const returnTo = new URL(page.location).searchParams.get('return_to')!;
    const signedIn = await browser.post('/sign-in', { email, password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(page.text) });
    page = await follow(browser, new URL(signedIn.headers.get('location')!, base).href);
  }
  const action = /<form method="post" action="([^"]+\/write-permissions\/request)"/.exec(page.text)?.[1];
  const offered = [...page.text.matchAll(/name="allow" value="([^"]+)"/g)].map((m) => m[1]!);
  if (!action || offered.length === 0)
    throw new Error(`no permission form at ${permissions_url}: ${/<h1>(.*?)<\/h1>/.exec(page.text)?.[1] ?? page.text.slice(0, 300)}`);
  const saved = await browser.post(action, { _csrf: FormClient.csrf(page.text), allow: offered });
  if (saved.status !== 303) throw new Error(`the permission form answered ${saved.status}`);
  const after = await writeContextOf(base, resource, token);
  const missing = WRITE_PERMISSIONS.filter((p) => !after.permissions.includes(p));
  if (missing.length) throw new Error(`the connection for ${resource} still lacks ${missing.join(', ')}`);
  return after.grant_id;
}
