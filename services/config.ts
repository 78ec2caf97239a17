// Configuration from the environment. Nothing set means the embedded store under ./data,
// served on http://localhost:3000.
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { WRITE_POLICY } from '../contracts/policy.ts';
import type { PendingWorkLimits } from './domain/proposal.ts';
import type { QuotaPolicy } from './domain/quota.ts';

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('localhost'),
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  KURRENTDB_URL: z.string().min(1).optional(),
  OAUTH_KEYS_FILE: z.string().min(1).optional(),
  MONGODB_URL: z.string().min(1).optional(),
  /**
   * `worker`: on the embedded store, project in a worker (`projections run`, or `serve`'s own) as
   * distributed mode does, instead of in each append's transaction. For trying and testing the
   * worker without servers.
   */
  EMBEDDED_PROJECTIONS: z.enum(['inline', 'worker']).default('inline'),
  /** Quota units each Agent Access connection may spend per QUOTA_WINDOW_SECONDS; weights are in the operations table. */
  AGENT_ACCESS_QUOTA_UNITS: z.coerce.number().int().min(10).default(600),
  /** Quota units each Read API bot token may spend per QUOTA_WINDOW_SECONDS; weights are in the Read API's table. */
  READ_API_QUOTA_UNITS: z.coerce.number().int().min(10).default(600),
  /**
   * The caps on each Agent Access connection's pending work: proposals awaiting review at once,
   * and the bytes its proposals store in any 24 hours. The product's values are `WRITE_POLICY`'s;
   * these only raise them, so that a load test (the bench) can prepare far more than any agent.
   */
  PROPOSALS_PENDING_MAX: z.coerce.number().int().min(WRITE_POLICY.pendingProposalsPerConnection).default(WRITE_POLICY.pendingProposalsPerConnection),
  PROPOSAL_BYTES_PER_DAY_MAX: z.coerce.number().int().min(WRITE_POLICY.proposalBytesPerConnectionPerDay).default(WRITE_POLICY.proposalBytesPerConnectionPerDay),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Behind a load balancer or reverse proxy: `true`, or the proxies' addresses (comma-separated,
   * CIDR allowed), so that per-address limits count each client's address from X-Forwarded-For,
   * not the proxy's. Unset, only the socket's address counts and X-Forwarded-* are ignored.
   */
  TRUST_PROXY: z.string().min(1).optional(),
  /**
   * How long the projector lease lasts unless renewed (renewed every third of it): how long a
   * dead projector's read models wait before another process takes over. Shorter in tests.
   */
  PROJECTION_LEASE_MS: z.coerce.number().int().min(300).max(600_000).default(15_000),
  /** The bearer token `/metrics` asks for. Unset, `/metrics` answers 404: the metrics are not public. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** `/readyz` answers 503 while the slowest projection is more than this many events behind the log. */
  READY_MAX_LAG_EVENTS: z.coerce.number().int().min(0).max(10_000).default(1_000),
  /** How long each of `/readyz`'s checks (each store, the projections' lag) may take before it counts as failed. */
  READY_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  /** Hevy's public API (a test or a proxy may name another). */
  HEVY_API_URL: z.url().default('https://api.hevyapp.com'),
  /** How often each connected athlete's Hevy account is synced in the background; 0: never by itself (sync now only). */
  HEVY_SYNC_EVERY_MINUTES: z.coerce.number().int().min(0).max(1440).default(15),
  /** An OTLP/HTTP collector (e.g. http://collector:4318): set, each request is traced and its spans exported there. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  kurrentdbUrl: string | null;
  /** The authorization server's signing and cookie keys (oauth/keys.ts): DATA_DIR/secrets/oauth-keys.json unless OAUTH_KEYS_FILE names another. */
  oauthKeysFile: string;
  mongodbUrl: string | null;
  embeddedProjections: 'inline' | 'worker';
  logLevel: z.infer<typeof env>['LOG_LEVEL'];
  /** Per Agent Access connection. */
  quota: QuotaPolicy;
  /** Per Read API bot token. */
  readApiQuota: QuotaPolicy;
  /** Fastify's `trustProxy`: false, true, or the proxies' addresses. */
  trustProxy: boolean | string[];
  /** Per Agent Access connection: its proposals awaiting review, and the bytes they store a day. */
  proposalLimits: PendingWorkLimits;
  projectionLeaseMs: number;
  /** The Hevy sync: Hevy's API, and how often each connected athlete is synced (0: only when asked). */
  hevy: { apiUrl: string; everyMs: number };
  /** `/metrics`'s bearer token; null: `/metrics` is not served. */
  metricsToken: string | null;
  /** `/readyz`: the projections' lag it accepts, and how long each check may take. */
  ready: { maxLagEvents: number; timeoutMs: number };
  /** Where traces go (OTLP/HTTP); null: not traced. */
  otlpEndpoint: string | null;
}

export const QUOTA_WINDOW_SECONDS = 60;

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = env.safeParse(source);
  if (!parsed.success) {
    throw new Error(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    dataDir: resolve(e.DATA_DIR),
    kurrentdbUrl: e.KURRENTDB_URL ?? null,
    oauthKeysFile: resolve(e.OAUTH_KEYS_FILE ?? join(e.DATA_DIR, 'secrets', 'oauth-keys.json')),
    mongodbUrl: e.MONGODB_URL ?? null,
    embeddedProjections: e.EMBEDDED_PROJECTIONS,
    logLevel: e.LOG_LEVEL,
    quota: { units: e.AGENT_ACCESS_QUOTA_UNITS, windowMs: QUOTA_WINDOW_SECONDS * 1000 },
    readApiQuota: { units: e.READ_API_QUOTA_UNITS, windowMs: QUOTA_WINDOW_SECONDS * 1000 },
    proposalLimits: { pendingProposals: e.PROPOSALS_PENDING_MAX, proposalBytesPerDay: e.PROPOSAL_BYTES_PER_DAY_MAX },
    projectionLeaseMs: e.PROJECTION_LEASE_MS,
    metricsToken: e.METRICS_TOKEN ?? null,
    ready: { maxLagEvents: e.READY_MAX_LAG_EVENTS, timeoutMs: e.READY_TIMEOUT_MS },
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    hevy: { apiUrl: e.HEVY_API_URL.replace(/\/+$/, ''), everyMs: e.HEVY_SYNC_EVERY_MINUTES * 60_000 },
    trustProxy:
      e.TRUST_PROXY === undefined || e.TRUST_PROXY === 'false' ? false : e.TRUST_PROXY === 'true' ? true : e.TRUST_PROXY.split(',').map((a) => a.trim()),
  };
}
