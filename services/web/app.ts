// The athlete's web application: sign-up, sign-in, sign-out and the account page. Pages are
// server-rendered; every form carries the session's CSRF token and must come from our origin.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { WaitingItem } from '../../projections/proposals.ts';
import type { Services } from '../api/services.ts';
import { DomainError } from '../domain/errors.ts';
import { timeZoneChoices } from '../../contracts/common.ts';
import { readForm, requiredText, safeReturnTo, text } from './forms.ts';
import { html, page, TIME_ZONE_SCRIPT, type Html } from './html.ts';
import { pageHeaders, type Show } from './layout.ts';
import { addressKey, AttemptLimiter } from './limiter.ts';
import { registerBotTokens } from './bot-tokens.ts';
import { registerConnectionActivity } from './connection-activity.ts';
import { registerConnections } from './connections.ts';
import { registerProposals } from './proposals.ts';
import { registerPermissionForm } from './write-permissions.ts';
import { registerConsent } from './consent.ts';
import { registerPasswordChange } from './password.ts';
import { registerHome } from './home.ts';
import { registerRecordPages } from './record-pages.ts';
import { registerRecordEdits } from './record-edits.ts';
import { registerPreferencesPage } from './preferences-page.ts';
import { registerRecoveryBodyPages } from './recovery-body-pages.ts';
import { registerSettings } from './settings.ts';
import { registerImport } from './import.ts';
import { registerProgress } from './progress.ts';
import { registerExport } from './export.ts';
import { registerDeleteAccount } from './delete-account.ts';
import { registerHevy } from './hevy.ts';
import { csrfMatches, Sessions, type Session } from '../identity/sessions.ts';
import { NotYetProjected, projectedPast } from '../reads/projected.ts';
import { z } from 'zod';
import { SECURITY_POLICY } from '../../contracts/policy.ts';

/** Where the log stood after the athlete's last change, for the next page to wait for (worker mode). */
const SEEN_COOKIE = 'repledger_seen';
/** Expired web sessions are deleted this often. */
const SESSION_SWEEP_EVERY_MS = 10 * 60_000;

const signInFields = z.object({
  email: text('E-mail', 254),
  password: text('Password', 200),
  return_to: z.unknown().optional(),
});

const signUpFields = z.object({
  display_name: requiredText('Name', 100),
  email: requiredText('E-mail', 254),
  password: text('Password', 200),
  timezone: requiredText('Timezone', 100),
  unit_preference: z.enum(['kg', 'lbs'], { error: 'Weights in: choose kilograms or pounds' }),
});

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | null;
    /** For a signed-in athlete's pages: the proposals waiting for their review (the navigation counts them; Home and Proposals list them). */
    waiting: WaitingItem[];
  }
}

/** The largest form any page posts (sign-in, settings, a proposal's review), in bytes. Uploads have their own. */
export const FORM_BODY_LIMIT = SECURITY_POLICY.formBodyBytes;

export async function registerWebApp(server: FastifyInstance, app: Services, provider: Provider): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https://');
  const sessions = new Sessions(app.reads, app.clock, secure);
  await sessions.ensureCollection();
  const perEmail = new AttemptLimiter(SECURITY_POLICY.signInAttemptsPerAccount, SECURITY_POLICY.signInWindowMs, app.clock);
  const perAddress = new AttemptLimiter(SECURITY_POLICY.signInAttemptsPerAddress, SECURITY_POLICY.signInWindowMs, app.clock);
  const signUpsPerAddress = new AttemptLimiter(SECURITY_POLICY.signUpsPerAddress, SECURITY_POLICY.signUpWindowMs, app.clock);
  const sweeper = setInterval(
    () => void sessions.sweep().catch((err: unknown) => server.log.error({ err }, 'sweeping web sessions failed')),
    SESSION_SWEEP_EVERY_MS,
  );
  sweeper.unref();
  server.addHook('onClose', async () => clearInterval(sweeper));
  const origin = new URL(app.config.baseUrl).origin;

  await server.register(formbody, { bodyLimit: FORM_BODY_LIMIT });

  server.decorateRequest('session', null);
  // Read models that follow the log (a projection worker) are a moment behind it: a page after the
  // athlete's own change (any form posted) waits, bounded, until they show it, or says "one moment"
  // (503). Projected with each append, they always show it.
  const follows = app.projectionMode === 'worker';
  const projectionNames = app.runner.projections.map((p) => p.name);
  const seenOwnWrites = async (request: FastifyRequest, reply: FastifyReply) => {
    const seen = request.cookies[SEEN_COOKIE];
    if (request.method !== 'GET' || !seen || !/^[0-9]{1,15}$/.test(seen)) return;
    if (!(await projectedPast(app.reads, projectionNames, Number(seen)))) throw new NotYetProjected('your change');
    void reply.clearCookie(SEEN_COOKIE, { path: '/' });
  };
  // Set for every page request by the hook below; the default is never read (Fastify's decorators take no reference values).
  server.decorateRequest('waiting', null as unknown as WaitingItem[]);

  const pages = async (web: FastifyInstance) => {
    // Here, not at the root: the API surfaces take a bearer, never a cookie, and would otherwise
    // parse the Cookie header and run the plugin's hooks on every request.
    await web.register(cookie);
    web.addHook('onRequest', async (request, reply) => {
      request.session = await sessions.current(request);
      if (follows) await seenOwnWrites(request, reply);
      // One small document; a refused form's page shows the navigation's count too.
      request.waiting = request.session?.athlete_id ? await app.proposals.waiting(request.session.athlete_id) : [];
    });
    if (follows) {
      // After a form that changed something, the browser carries where the log stood then. A form
      // that wrote nothing (signing in, a refused change) carries nothing: its next page would
      // otherwise wait on other athletes' writes the worker has not reached.
      const headBefore = new WeakMap<FastifyRequest, number>();
      web.addHook('preHandler', async (request) => {
        if (request.method === 'POST') headBefore.set(request, await app.events.headPosition());
      });
      web.addHook('onSend', async (request, reply, payload) => {
        const before = headBefore.get(request);
        if (before === undefined || reply.statusCode >= 400) return payload;
        const head = await app.events.headPosition();
        if (head > before) void reply.setCookie(SEEN_COOKIE, String(head), { path: '/', httpOnly: true, sameSite: 'lax', secure });
        return payload;
      });
    }
    web.addHook('onSend', async (_request, reply) => {
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        reply.headers(pageHeaders(reply.hasHeader('Content-Security-Policy') ? String(reply.getHeader('Content-Security-Policy')) : null));
      }
    });
    // Forms post only from our own pages, with the token of the session that showed them.
    web.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST') return;
      const sentOrigin = request.headers.origin;
      const crossSite = request.headers['sec-fetch-site'] === 'cross-site' || (sentOrigin !== undefined && sentOrigin !== origin);
      const body = request.body;
      const token = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)._csrf : undefined;
      if (crossSite || !csrfMatches(request, token)) {
        // A form of a signed-in page whose session has since ended: say so, and come back to the
        // page it was sent from after signing in, rather than blame the form.
        const path = request.url.split('?')[0]!;
        if (!crossSite && typeof token === 'string' && !request.session?.athlete_id && path !== '/sign-in' && path !== '/sign-up') {
          const back = safeReturnTo(refererPath(request.headers.referer, origin), origin);
          const signIn = back ? `/sign-in?return_to=${encodeURIComponent(back)}` : '/sign-in';
          return reply
            .code(403)
            .type('text/html; charset=utf-8')
            .send(
              page(
                { title: 'Signed out' },
                html`<div class="card"><h1>You were signed out</h1><p>Your session ended, so nothing was sent. Sign in and try again.</p><a class="button" href="${signIn}">Sign in</a></div>`,
              ),
            );
        }
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(
            page(
              { title: 'Form expired' },
              html`<div class="card"><h1>This form has expired</h1><p>For your safety the form could not be accepted. Go back, reload the page and try again.</p><a class="button" href="/account">Continue</a></div>`,
            ),
          );
      }
    });

    const show: Show = (reply, title, session, body, status = 200, options = {}) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(
          page(
            {
              title,
              signedInAs: session?.athlete_id ?? null,
              csrf: session?.csrf ?? '',
              path: reply.request.url,
              wide: options.wide ?? false,
              pending: reply.request.waiting.length,
            },
            body,
          ),
        );

    web.get('/', async (request, reply) => reply.redirect(request.session?.athlete_id ? '/account' : '/sign-in'));

    web.get('/sign-up', async (request, reply) => show(reply, 'Create your account', null, signUpForm(sessions.csrfFor(request, reply), {}, null)));

    web.post('/sign-up', async (request, reply) => {
      const csrf = sessions.csrfFor(request, reply);
      const again = (values: Record<string, unknown>, message: string, status = 400) =>
        show(reply, 'Create your account', null, signUpForm(csrf, values, message), status);
      const values = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
      const address = addressKey(request.ip);
      const wait = signUpsPerAddress.retryAfter(address);
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        return again(values, `Too many accounts were created from your network. Try again in ${minutes(wait)}.`, 429);
      }
      signUpsPerAddress.record(address);
      const form = readForm(signUpFields, values);
      if (!form.ok) return again(values, form.message);
      const { display_name, email, password, timezone, unit_preference } = form.data;
      try {
        const { athlete_id } = await app.athletes.register(
          {
            email: email.trim(),
            password,
            tier: 'free',
            profile: {
              display_name: display_name.trim(),
              timezone,
              unit_preference,
              height_unit_preference: unit_preference === 'lbs' ? 'ft_in' : 'cm',
              bodyweight_unit_preference: unit_preference,
            },
          },
          { type: 'athlete', id: 'sign-up' },
        );
        await sessions.start(reply, athlete_id, request.session);
        return reply.redirect('/account', 303);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        // Saying so is the price of a sign-up page people can use; the per-address limit and an
        // answer as slow as a new account's keep it from being a fast way to test addresses.
        const message = error.code === 'already_exists' ? 'An account with this e-mail already exists. Sign in instead.' : readable(error);
        return again(values, message);
      }
    });

    web.get('/sign-in', async (request, reply) => {
      const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to, origin);
      return show(reply, 'Sign in', request.session, signInForm(sessions.csrfFor(request, reply), '', returnTo, null));
    });

    web.post('/sign-in', async (request, reply) => {
      const csrf = sessions.csrfFor(request, reply);
      const form = readForm(signInFields, request.body);
      // A refused form keeps what can be kept: the e-mail as typed and where sign-in was to return
      // (checked as ever), so that the athlete corrects the field at fault and still lands where they were going.
      const raw = (request.body ?? {}) as Record<string, unknown>;
      const values = form.ok
        ? form.data
        : {
            email: typeof raw.email === 'string' ? raw.email.slice(0, 254) : '',
            password: '',
            return_to: typeof raw.return_to === 'string' ? raw.return_to : undefined,
          };
      const email = values.email.trim().toLowerCase();
      const returnTo = safeReturnTo(values.return_to, origin);
      const again = (message: string, status: number) => show(reply, 'Sign in', request.session, signInForm(csrf, email, returnTo, message), status);
      if (!form.ok) return again(form.message, 400);
      const address = addressKey(request.ip);
      const wait = Math.max(perEmail.retryAfter(email), perAddress.retryAfter(address));
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        return again(
          `Too many attempts. Try again in ${minutes(wait)}. If you have forgotten your password, ask whoever runs this RepLedger to set a new one for you (repledger athletes set-password).`,
          429,
        );
      }
      // Counted before the password is checked, so that attempts sent together cannot all pass
      // the limit while each waits for its hash; a success takes its attempt back.
      perEmail.record(email);
      perAddress.record(address);
      const athlete = await app.athletes.authenticate(email, values.password);
      if (!athlete) {
        return again('That e-mail and password do not match an account.', 401);
      }
      perEmail.reset(email);
      perAddress.forgetLast(address);
      await sessions.start(reply, athlete.athlete_id, request.session);
      return reply.redirect(returnTo ?? '/account', 303);
    });

    web.post('/sign-out', async (request, reply) => {
      await sessions.end(reply, request.session);
      return reply.redirect('/sign-in', 303);
    });

    registerConsent(web, { app, provider, sessions, show });
    registerConnections(web, app, show);
    registerConnectionActivity(web, app, show);
    registerProposals(web, app, show);
    registerPermissionForm(web, app, show);
    registerBotTokens(web, app, sessions, show);
    registerPasswordChange(web, app, sessions, new AttemptLimiter(SECURITY_POLICY.signInAttemptsPerAccount, SECURITY_POLICY.signInWindowMs, app.clock), show);
    registerDeleteAccount(web, app, sessions, new AttemptLimiter(SECURITY_POLICY.signInAttemptsPerAccount, SECURITY_POLICY.signInWindowMs, app.clock), show);
    registerHevy(web, app, show);

    registerHome(web, app, sessions, show);
    registerRecordPages(web, app, show);
    registerRecordEdits(web, app, show);
    registerPreferencesPage(web, app, show);
    registerProgress(web, app, show);
    registerRecoveryBodyPages(web, app, show);
    registerSettings(web, app, show);
    registerImport(web, app, show);
    registerExport(web, app);
  };
  await server.register(pages);
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
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

const TIME_ZONES = timeZoneChoices();

function signUpForm(csrf: string, values: Record<string, unknown>, error: string | null): Html {
  const value = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
  // The zone the athlete chose, if the form is shown again; otherwise the browser's, picked by script.
  const chosen = value('timezone');
  const zone = chosen || 'UTC';
  return html`<div class="card"><h1>Create your account</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/sign-up">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="display_name">Name</label>
<input type="text" id="display_name" name="display_name" value="${value('display_name')}" required maxlength="100" autocomplete="name">
<label for="email">E-mail</label>
<input type="email" id="email" name="email" value="${value('email')}" required maxlength="254" autocomplete="email">
<label for="password">Password</label>
<input type="password" id="password" name="password" required minlength="12" maxlength="200" autocomplete="new-password">
<p class="hint">At least 12 characters.</p>
<label for="timezone">Your timezone</label>
<select id="timezone" name="timezone"${chosen ? html` data-chosen="1"` : ''}>${TIME_ZONES.map(
    (z) =>
      html`<option value="${z.name}"${z.aliases.length ? html` data-aliases="${z.aliases.join(' ')}"` : ''}${z.name === zone ? html` selected` : ''}>${z.name.replaceAll('_', ' ')}</option>`,
  )}</select>
<p class="hint">Days and weeks in your record follow this timezone.</p>
<label for="unit_preference">Weights in</label>
<select id="unit_preference" name="unit_preference">
<option value="kg"${value('unit_preference') !== 'lbs' ? html` selected` : ''}>kilograms</option>
<option value="lbs"${value('unit_preference') === 'lbs' ? html` selected` : ''}>pounds</option>
</select>
<button type="submit">Create account</button>
</form></div>
<p>Already have an account? <a href="/sign-in">Sign in</a></p>
<script>${TIME_ZONE_SCRIPT}</script>`;
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

/** The path (and query) of a same-origin Referer, or null. */
function refererPath(referer: string | undefined, origin: string): string | null {
  if (!referer) return null;
  try {
    const url = new URL(referer);
    return url.origin === origin ? `${url.pathname}${url.search}` : null;
  } catch {
    return null;
  }
}
