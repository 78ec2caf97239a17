// The quota a connection has left, on every Agent Access answer to it (REST and MCP), and the quota
// a bot token has left, on every Read API answer to it, as the IETF RateLimit header fields state
// it (draft-ietf-httpapi-ratelimit-headers-11); the policy is named "connection" or "bot_token":
//   RateLimit-Policy: "connection";q=600;w=60   the budget: units per window, refilled continuously
//   RateLimit: "connection";r=594;t=1           units left now; seconds until the budget is whole
// On a 429, t is the Retry-After instead: the draft asks that Retry-After never point before the
// end of the effective window, and the refused call's weight is back by then.
import type { FastifyReply } from 'fastify';
import type { Quota } from '../api/quota.ts';

/** The policy's name in both fields: what the budget belongs to. */
export type RateLimitPolicy = 'connection' | 'bot_token';

export function rateLimitHeaders(quota: Quota, key: string, retryAfter: number, policy: RateLimitPolicy = 'connection'): Record<string, string> {
  const left = quota.left(key);
  return {
    'RateLimit-Policy': `"${policy}";q=${quota.policy.units};w=${quota.policy.windowMs / 1000}`,
    RateLimit: `"${policy}";r=${left.units};t=${retryAfter > 0 ? retryAfter : left.fullInSeconds}`,
  };
}

export function setRateLimitHeaders(reply: FastifyReply, quota: Quota, key: string, retryAfter: number, policy: RateLimitPolicy = 'connection'): void {
  reply.headers(rateLimitHeaders(quota, key, retryAfter, policy));
}
