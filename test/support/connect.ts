// Connects an OAuth client to an athlete through the real authorization flow, with the sign-in
// and consent forms posted over HTTP (the browser tests do the same in Chromium).
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { App } from '../../services/app.ts';
import { MemoryOAuthClient } from './oauth-client.ts';
import { FormClient } from './server.ts';

export const PASSWORD = 'correct horse battery';
export const REDIRECT = 'http://127.0.0.1:53682/callback';

export async function registerPro(app: App, email = 'ada@example.com', tier: 'pro' | 'free' = 'pro'): Promise<string> {
  const { athlete_id } = await app.athletes.register(
    {
      email,
      password: PASSWORD,
      tier,
      profile: { display_name: 'Ada', timezone: 'Europe/London', unit_preference: 'kg', height_unit_preference: 'cm', bodyweight_unit_preference: 'kg' },
    },
    { type: 'operator', id: 'test' },
  );
  return athlete_id;
}

/** Follows redirects within the site until one leads to the client's redirect URI. */
export async function follow(browser: FormClient, location: string): Promise<{ status: number; text: string; location: string }> {
  for (let hops = 0; hops < 10; hops++) {
    if (location.startsWith(REDIRECT)) return { status: 302, text: '', location };
    const res = await browser.get(location);
    const next = res.headers.get('location');
    if (!next) return { status: res.status, text: res.text, location };
    location = new URL(next, browser.base).href;
  }
  throw new Error('too many redirects');
}

/** Starts authorization with the MCP SDK; returns the client and the authorization URL. */
export async function beginAuthorization(resource: string, scope: string): Promise<MemoryOAuthClient> {
  const client = new MemoryOAuthClient(REDIRECT);
  const result = await auth(client, { serverUrl: resource, scope });
  if (result !== 'REDIRECT') throw new Error(`expected a redirect, got ${result}`);
  return client;
}

/** Signs in and consents to `areas` in the browser stand-in; returns the authorization code. */
export async function consent(base: string, client: MemoryOAuthClient, areas: string[], email = 'ada@example.com'): Promise<string> {
  const browser = new FormClient(base);
  let page = await follow(browser, client.authorizationUrl!.href);
  if (page.location.includes('/sign-in')) {
    const returnTo = new URL(page.location).searchParams.get('return_to')!;
    const signedIn = await browser.post('/sign-in', { email, password: PASSWORD, return_to: returnTo, _csrf: FormClient.csrf(page.text) });
    page = await follow(browser, new URL(signedIn.headers.get('location')!, base).href);
  }
  const action = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(page.text)?.[1];
  if (!action) throw new Error(`no consent form: ${/<h1>(.*?)<\/h1>/.exec(page.text)?.[1] ?? page.text.slice(0, 300)}`);
  const answer = await browser.post(action, { area: areas, _csrf: FormClient.csrf(page.text) });
  const done = await follow(browser, new URL(answer.headers.get('location')!, base).href);
  const code = new URL(done.location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${done.location}`);
  return code;
}

/** The whole flow: a token for `resource` carrying the ticked `areas`. */
export async function connect(
  base: string,
  resource: string,
  areas: string[],
  requested = 'training recovery nutrition body_measurements',
  email = 'ada@example.com',
) {
  const client = await beginAuthorization(resource, requested);
  const code = await consent(base, client, areas, email);
  const result = await auth(client, { serverUrl: resource, authorizationCode: code });
  if (result !== 'AUTHORIZED') throw new Error(`expected tokens, got ${result}`);
  return { client, tokens: client.saved! };
}
