// Signing in an AI client: the authorization server hands the athlete to these pages to sign in
// and to choose which areas of the record the client may read. Nothing is ticked for the athlete
// (spec 1.4, 5.2): only areas they tick are granted, and an answer with none is refused on the
// same page. The connection starts read-only and is recorded as an event.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import { READ_SCOPE_AREAS, READ_SCOPES, type ReadScope } from '../../contracts/common.ts';
import type { Services } from '../api/services.ts';
import { grantIdOf } from '../identity/connections.ts';
import { DomainError } from '../domain/errors.ts';
import { contentSecurityPolicy, type Show } from './layout.ts';
import { html, type Html } from './html.ts';
import type { Sessions } from '../identity/sessions.ts';

interface ConsentContext {
  app: Services;
  provider: Provider;
  sessions: Sessions;
  show: Show;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

export function registerConsent(web: FastifyInstance, ctx: ConsentContext): void {
  const { app, provider, show } = ctx;

  /** The interaction of this browser, or a page saying the sign-in has expired. */
  const details = async (request: FastifyRequest, reply: FastifyReply): Promise<Details | null> => {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch (error) {
      if (!(error instanceof errors.SessionNotFound)) throw error;
      show(
        reply,
        'Sign-in expired',
        request.session,
        html`<div class="card"><h1>This sign-in has expired</h1><p>Go back to the app that sent you here and connect again.</p></div>`,
        400,
      );
      return null;
    }
  };

  const finish = async (request: FastifyRequest, reply: FastifyReply, result: Parameters<Provider['interactionFinished']>[2], merge: boolean) => {
    reply.hijack();
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: merge });
  };

  web.get('/oauth/interaction/:uid', async (request, reply) => {
    const { uid } = request.params as { uid: string };
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    const athleteId = request.session?.athlete_id;
    if (!athleteId) return reply.redirect(`/sign-in?return_to=${encodeURIComponent(`/oauth/interaction/${uid}`)}`);
    if (interaction.prompt.name === 'login') return finish(request, reply, { login: { accountId: athleteId } }, false);
    if (interaction.session?.accountId !== athleteId) {
      // Signed in here as someone else than the authorization session: start that sign-in over.
      return finish(request, reply, { error: 'login_required', error_description: 'the athlete signed in as another account' }, false);
    }
    return consentPage(request, reply, interaction, null);
  });

  web.post('/oauth/interaction/:uid/consent', async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    // Already answered (a double click, or back and send again before the app got its code): the
    // same answer again, never a second grant and connection.
    if (interaction.result) return finish(request, reply, interaction.result, false);
    const athleteId = request.session?.athlete_id;
    if (!athleteId || interaction.session?.accountId !== athleteId || interaction.prompt.name !== 'consent') {
      return finish(request, reply, { error: 'access_denied', error_description: 'consent was not given by the signed-in athlete' }, false);
    }
    const athlete = await app.athletes.get(athleteId);
    if (athlete?.tier !== 'pro') return consentPage(request, reply, interaction, null);
    const requested = requestedAreas(interaction);
    const submitted = (request.body as Record<string, string | string[]>).area ?? [];
    const ticked = requested.filter((a) => (Array.isArray(submitted) ? submitted : [submitted]).includes(a));
    if (ticked.length === 0)
      return consentPage(request, reply, interaction, 'Nothing was allowed: tick at least one area the app may read, or choose Deny.', 400);

    const clientId = String(interaction.params.client_id);
    const grant = interaction.grantId ? (await provider.Grant.find(interaction.grantId))! : new provider.Grant({ accountId: athleteId, clientId });
    const rejected = READ_SCOPES.filter((s) => !ticked.includes(s));
    const oidcMissing = (interaction.prompt.details.missingOIDCScope ?? []) as string[];
    if (oidcMissing.includes('openid')) grant.addOIDCScope('openid');
    const oidcRejected = oidcMissing.filter((s) => s !== 'openid');
    if (oidcRejected.length) grant.rejectOIDCScope(oidcRejected.join(' '));
    // Areas left unticked are rejected explicitly, or the consent prompt would come back.
    for (const resource of Object.keys((interaction.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>)) {
      grant.addResourceScope(resource, ticked.join(' '));
      if (rejected.length) grant.rejectResourceScope(resource, rejected.join(' '));
    }
    const grantId = await grant.save();
    const client = await provider.Client.find(clientId);
    await app.connections.connect({
      oauthGrantId: grantId,
      athleteId,
      clientId,
      clientName: client?.clientName ?? clientId,
      redirectHost: redirectHostOf(String(interaction.params.redirect_uri)),
      scopes: ticked,
    });
    return finish(request, reply, { consent: { grantId } }, true);
  });

  web.post('/oauth/interaction/:uid/deny', async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    // Allowed, then denied before the app got its code: the connection the consent made goes too.
    const allowed = (interaction.result?.consent as { grantId?: string } | undefined)?.grantId;
    const athleteId = request.session?.athlete_id;
    if (allowed && athleteId && interaction.session?.accountId === athleteId) {
      await app.connections.disconnect(athleteId, grantIdOf(allowed)).catch((error: unknown) => {
        if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      });
    }
    return finish(request, reply, { error: 'access_denied', error_description: 'the athlete denied access' }, false);
  });

  async function consentPage(request: FastifyRequest, reply: FastifyReply, interaction: Details, error: string | null, status = 200) {
    const session = request.session!;
    const clientId = String(interaction.params.client_id);
    const client = await provider.Client.find(clientId);
    const redirectUri = String(interaction.params.redirect_uri);
    const athlete = (await app.athletes.get(session.athlete_id!))!;
    const requested = requestedAreas(interaction);
    const name = client?.clientName ?? 'An unnamed app';
    // The form's answer is a redirect to the client: the policy must let the form go there.
    reply.header('Content-Security-Policy', contentSecurityPolicy([new URL(redirectUri).origin]));
    const csrf = html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
    const deny = html`<form method="post" action="/oauth/interaction/${interaction.uid}/deny">${csrf}<button class="secondary" type="submit">Deny</button></form>`;
    let body: Html;
    if (athlete.tier !== 'pro') {
      body = html`<div class="card"><h1>Connecting AI clients needs Pro</h1>
<p><strong>${name}</strong> asked to read your training record. Your account (${athlete.email}) is on the Free plan, and connecting AI clients is part of Pro.</p>
<h2>What Pro gives you</h2>
<ul>
<li>AI clients you choose — Claude, ChatGPT, VS Code and others that support MCP — can read the areas of your record you tick: training, recovery, nutrition, body measurements.</li>
<li>An app may suggest changes to your record only if you also allow that, in a separate form; nothing changes until you approve each batch of suggestions here in RepLedger.</li>
<li>You see every connected app, what it may read and suggest, and can disconnect it at any time.</li>
</ul>
<h2>How to get it</h2>
<p>Plans are set by whoever runs this RepLedger. Ask them to move your account to Pro (they run <code>repledger subscriptions set --athlete ${athlete.email} --tier pro</code>). Then go back to ${name} and connect again.</p>
<p class="hint">Until then you can keep using RepLedger as before; nothing is shared with ${name}.</p>
<form method="post" action="/oauth/interaction/${interaction.uid}/deny">${csrf}<button type="submit">Go back to ${name}</button></form></div>`;
    } else {
      body = html`<div class="card"><h1>Allow ${name} to read your record?</h1>
<p>Signed in as <strong>${athlete.email}</strong>. The app will send you back to <strong>${redirectHostOf(redirectUri)}</strong>.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/oauth/interaction/${interaction.uid}/consent">${csrf}
<fieldset><legend>Tick each area it may read:</legend>
${requested.map(
  (area) =>
    html`<label class="area"><input type="checkbox" name="area" value="${area}"><span><strong>${READ_SCOPE_AREAS[area].title}</strong><span class="hint">${READ_SCOPE_AREAS[area].detail}</span></span></label>`,
)}</fieldset>
<p class="hint">The app reads only the areas you tick. It may suggest changes only if you later allow that in a separate form, and nothing changes until you approve each batch here in RepLedger. You can disconnect it at any time in your connection settings; copies it has already received stay with it.</p>
<button type="submit">Allow reading</button>
</form>
${deny}</div>`;
    }
    return show(reply, 'Connect an app', session, body, status);
  }
}

/** The read areas the client asked for; all of them when it named none. */
function requestedAreas(interaction: Details): ReadScope[] {
  const asked = String(interaction.params.scope ?? '').split(' ');
  const areas = READ_SCOPES.filter((s) => asked.includes(s));
  return areas.length > 0 ? areas : READ_SCOPES;
}

function redirectHostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri.slice(0, 300);
  }
}
