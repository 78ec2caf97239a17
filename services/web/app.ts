// The athlete's web application: sign-up, sign-in, sign-out and the account page. Pages are
// server-rendered; every form carries the session's CSRF token and must come from our origin.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';
import type { App } from '../app.ts';
import { DomainError } from '../domain/errors.ts';
import { hashPassword, verifyPassword } from '../password.ts';
import { html, page, STYLE_HASH, type Html } from './html.ts';
import { AttemptLimiter } from './limiter.ts';
import { registerBotTokens } from './bot-tokens.ts';
import { registerConnections } from './connections.ts';
import { registerConsent } from './consent.ts';
import { csrfMatches, Sessions, type Session } from './sessions.ts';

/** Forms may post to this site, and (on the consent page) be redirected on to the client. */
export function contentSecurityPolicy(formTargets: string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export type Show = (reply: FastifyReply, title: string, session: Session | null, body: Html, status?: number) => FastifyReply;

const SIGN_IN_WINDOW_MS = 15 * 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | null;
  }
}

export async function registerWebApp(server: FastifyInstance, app: App, provider: Provider): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https://');
  const sessions = new Sessions(app.reads, app.clock, secure);
  await sessions.ensureCollection();
  const perEmail = new AttemptLimiter(5, SIGN_IN_WINDOW_MS, app.clock);
  const perAddress = new AttemptLimiter(20, SIGN_IN_WINDOW_MS, app.clock);
  // Compared against on sign-in for unknown e-mails, so that both answers take as long.
  const decoyHash = await hashPassword('not a real password, only a timing decoy');
  const origin = new URL(app.config.baseUrl).origin;

  await server.register(cookie);
  await server.register(formbody, { bodyLimit: 16 * 1024 });

  server.decorateRequest('session', null);

  const pages = async (web: FastifyInstance) => {
    web.addHook('onRequest', async (request) => {
      request.session = await sessions.current(request);
    });
    web.addHook('onSend', async (_request, reply) => {
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', contentSecurityPolicy());
        reply.header('X-Frame-Options', 'DENY');
        reply.header('Referrer-Policy', 'same-origin');
      }
    });
    // Forms post only from our own pages, with the token of the session that showed them.
    web.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST') return;
      const sentOrigin = request.headers.origin;
      const crossSite = request.headers['sec-fetch-site'] === 'cross-site' || (sentOrigin !== undefined && sentOrigin !== origin);
      const token = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (crossSite || !csrfMatches(request.session, token)) {
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(page({ title: 'Form expired' }, html`<div class="card"><h1>This form has expired</h1><p>For your safety the form could not be accepted. Go back, reload the page and try again.</p><a class="button" href="/account">Continue</a></div>`));
      }
    });

    const show: Show = (reply, title, session, body, status = 200) =>
      reply.code(status).type('text/html; charset=utf-8').send(page({ title, signedInAs: session?.athlete_id ?? null, csrf: session?.csrf ?? '' }, body));

    web.get('/', async (request, reply) => reply.redirect(request.session?.athlete_id ? '/account' : '/sign-in'));

    web.get('/sign-up', async (request, reply) => {
      const session = await sessions.currentOrNew(request, reply);
      return show(reply, 'Create your account', session, signUpForm(session.csrf, {}, null));
    });

    web.post('/sign-up', async (request, reply) => {
      const form = request.body as Record<string, string>;
      const session = request.session!;
      try {
        const { athlete_id } = await app.athletes.register(
          {
            email: form.email ?? '',
            password: form.password ?? '',
            tier: 'free',
            profile: {
              display_name: (form.display_name ?? '').trim(),
              timezone: form.timezone ?? '',
              unit_preference: form.unit_preference,
              height_unit_preference: form.unit_preference === 'lbs' ? 'ft_in' : 'cm',
              bodyweight_unit_preference: form.unit_preference,
            },
          },
          { type: 'athlete', id: 'sign-up' },
        );
        await sessions.start(reply, athlete_id, session);
        return reply.redirect('/account', 303);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const message = error.code === 'already_exists' ? 'An account with this e-mail already exists. Sign in instead.' : readable(error);
        return show(reply, 'Create your account', session, signUpForm(session.csrf, form, message), 400);
      }
    });

    web.get('/sign-in', async (request, reply) => {
      const session = await sessions.currentOrNew(request, reply);
      const returnTo = safeReturnTo((request.query as Record<string, string>).return_to);
      return show(reply, 'Sign in', session, signInForm(session.csrf, '', returnTo, null));
    });

    web.post('/sign-in', async (request, reply) => {
      const form = request.body as Record<string, string>;
      const email = (form.email ?? '').trim().toLowerCase();
      const returnTo = safeReturnTo(form.return_to);
      const session = request.session!;
      const wait = Math.max(perEmail.retryAfter(email), perAddress.retryAfter(request.ip));
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        return show(reply, 'Sign in', session, signInForm(session.csrf, email, returnTo, `Too many attempts. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.`), 429);
      }
      const athlete = await app.athletes.byEmail(email);
      const ok = await verifyPassword(form.password ?? '', athlete?.password_hash ?? decoyHash);
      if (!athlete || !ok) {
        perEmail.record(email);
        perAddress.record(request.ip);
        return show(reply, 'Sign in', session, signInForm(session.csrf, email, returnTo, 'That e-mail and password do not match an account.'), 401);
      }
      perEmail.reset(email);
      await sessions.start(reply, athlete.athlete_id, session);
      return reply.redirect(returnTo ?? '/account', 303);
    });

    web.post('/sign-out', async (request, reply) => {
      await sessions.end(reply, request.session);
      return reply.redirect('/sign-in', 303);
    });

    registerConsent(web, { app, provider, sessions, show });
    registerConnections(web, app, show);
    registerBotTokens(web, app, show);

    web.get('/account', async (request, reply) => {
      const session = request.session;
      if (!session?.athlete_id) return reply.redirect(`/sign-in?return_to=${encodeURIComponent('/account')}`);
      const athlete = await app.athletes.get(session.athlete_id);
      if (!athlete) {
        await sessions.end(reply, session);
        return reply.redirect('/sign-in');
      }
      return show(
        reply,
        'Your account',
        session,
        html`<div class="card"><h1>Hello, ${athlete.profile.display_name}</h1>
<p>Signed in as <strong>${athlete.email}</strong>.</p>
<p>Record timezone: ${athlete.profile.timezone}. Weights in ${athlete.profile.unit_preference}.</p>
<p>Plan: ${athlete.tier === 'pro' ? 'Pro — AI clients you approve can read the areas you choose.' : 'Free — connecting AI clients needs the Pro plan.'}</p>
<p><a href="/connections">Connected apps</a> · <a href="/bot-tokens">Bot tokens</a></p></div>`,
      );
    });
  };
  await server.register(pages);
}

/** Only paths on this site: never another origin, never a protocol-relative URL. */
function safeReturnTo(value: unknown): string | null {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : null;
}

function readable(error: DomainError): string {
  if (error.issues.length === 0) return error.message;
  const names: Record<string, string> = {
    email: 'E-mail',
    password: 'Password',
    'profile.display_name': 'Name',
    'profile.timezone': 'Timezone',
    'profile.unit_preference': 'Units',
  };
  return error.issues.map((i) => `${names[i.path] ?? i.path}: ${i.message}`).join('. ');
}

const TIME_ZONES = Intl.supportedValuesOf('timeZone');

function signUpForm(csrf: string, values: Record<string, string>, error: string | null): Html {
  const zone = values.timezone ?? 'UTC';
  return html`<div class="card"><h1>Create your account</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/sign-up">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="display_name">Name</label>
<input type="text" id="display_name" name="display_name" value="${values.display_name ?? ''}" required maxlength="100" autocomplete="name">
<label for="email">E-mail</label>
<input type="email" id="email" name="email" value="${values.email ?? ''}" required autocomplete="email">
<label for="password">Password</label>
<input type="password" id="password" name="password" required minlength="12" autocomplete="new-password">
<p class="hint">At least 12 characters.</p>
<label for="timezone">Your timezone</label>
<select id="timezone" name="timezone">${[...TIME_ZONES, 'UTC'].filter((z, i, all) => all.indexOf(z) === i).map((z) => html`<option value="${z}"${z === zone ? html` selected` : ''}>${z}</option>`)}</select>
<p class="hint">Days and weeks in your record follow this timezone.</p>
<label for="unit_preference">Weights in</label>
<select id="unit_preference" name="unit_preference">
<option value="kg"${values.unit_preference !== 'lbs' ? html` selected` : ''}>kilograms</option>
<option value="lbs"${values.unit_preference === 'lbs' ? html` selected` : ''}>pounds</option>
</select>
<button type="submit">Create account</button>
</form></div>
<p>Already have an account? <a href="/sign-in">Sign in</a></p>`;
}

function signInForm(csrf: string, email: string, returnTo: string | null, error: string | null): Html {
  return html`<div class="card"><h1>Sign in</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/sign-in">
<input type="hidden" name="_csrf" value="${csrf}">
${returnTo ? html`<input type="hidden" name="return_to" value="${returnTo}">` : ''}
<label for="email">E-mail</label>
<input type="email" id="email" name="email" value="${email}" required autocomplete="email">
<label for="password">Password</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
<button type="submit">Sign in</button>
</form></div>
<p>New to RepLedger? <a href="/sign-up">Create an account</a></p>`;
}

