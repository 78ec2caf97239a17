// The quota a connection has left, on every Agent Access answer to it (REST and MCP), as the IETF
// RateLimit header fields state it (draft-ietf-httpapi-ratelimit-headers-11):
//   RateLimit-Policy: "connection";q=600;w=60   the budget: units per window, refilled continuously
//   RateLimit: "connection";r=594;t=1           units left now; seconds until the budget is whole
// On a 429, t is the Retry-After instead: the draft asks that Retry-After never point before the
// end of the effective window, and the refused call's weight is back by then.
import type { FastifyReply } from 'fastify';
import type { Quota } from '../api/quota.ts';

const POLICY = 'connection';

export function rateLimitHeaders(quota: Quota, grantId: string, retryAfter: number): Record<string, string> {
  const left = quota.left(grantId);
  return {
    'RateLimit-Policy': `"${POLICY}";q=${quota.policy.units};w=${quota.policy.windowMs / 1000}`,
    RateLimit: `"${POLICY}";r=${left.units};t=${retryAfter > 0 ? retryAfter : left.fullInSeconds}`,
  };
}

export function setRateLimitHeaders(reply: FastifyReply, quota: Quota, grantId: string, retryAfter: number): void {
  reply.headers(rateLimitHeaders(quota, grantId, retryAfter));
}
