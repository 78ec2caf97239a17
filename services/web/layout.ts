// What every page of the web app shares, and the authorization server's pages with it: the
// security headers, how a page is shown, and the error page browsers get.
import type { FastifyReply } from 'fastify';
import { cookieValue } from '../http/cookie-header.ts';
import { html, page, SCRIPT_HASH, STYLE_HASH, type Html } from './html.ts';
import { SESSION_COOKIE, type Session } from '../identity/sessions.ts';

/**
 * Forms may post to this site, and (on the consent page) be redirected on to the client. Only the
 * import status page's script reads from this site (`connectSelf`).
 */
export function contentSecurityPolicy(formTargets: string[] = [], connectSelf = false): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `script-src ${SCRIPT_HASH}`,
    "img-src 'self' data:",
    ...(connectSelf ? ["connect-src 'self'"] : []),
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The headers of every page: no framing, no referrer to other sites, and the policy above unless a page set its own. */
export function pageHeaders(existingPolicy: string | null = null): Record<string, string> {
  return { 'Content-Security-Policy': existingPolicy ?? contentSecurityPolicy(), 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' };
}

/** Shows a page with the app's layout, for the signed-in athlete (or a visitor). */
export type Show = (reply: FastifyReply, title: string, session: Session | null, body: Html, status?: number, options?: { wide?: boolean }) => FastifyReply;

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request',
  404: 'Page not found',
  413: 'Too large',
  415: 'Bad request',
  500: 'Something went wrong',
  503: 'One moment',
};

/** A refusal or failure as a page, for browsers: what happened, and a way on. */
export function errorPage(reply: FastifyReply, status: number, message: string, requestId: string): FastifyReply {
  const title = STATUS_TITLES[status] ?? 'Request refused';
  return reply
    .type('text/html; charset=utf-8')
    .headers(pageHeaders())
    .send(
      page(
        // The error handlers run before any session is looked up, and outside the pages where the
        // cookie plugin runs: a browser with a session cookie gets the navigation (its links lead
        // to sign-in if the session has ended).
        { title, navigation: cookieValue(reply.request.headers.cookie, SESSION_COOKIE) !== null },
        html`<div class="card"><h1>${title}</h1><p>${message}</p>${status >= 500 ? html`<p class="hint">If it keeps happening, quote this reference: ${requestId}</p>` : ''}<a class="button" href="/">Go to RepLedger</a></div>`,
      ),
    );
}
