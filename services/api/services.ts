// The services the surfaces (HTTP, the web app, the authorization server) are built on: what the
// composition root (services/app.ts) makes and hands them, each typed by the layer it comes from.
// The service layer below takes narrower ports of its own (`ProposalDeps`, `AgentAccessDeps`, …).
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { RecordService } from '../commands/record-service.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { AccountDeletion } from '../identity/account-deletion.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { BotTokenService } from '../identity/bot-tokens.ts';
import type { ConnectionService } from '../identity/connections.ts';
import type { AccessHistory } from '../operations/access-history.ts';
import type { Maintenance } from '../operations/maintenance.ts';
import type { Metrics } from '../operations/metrics.ts';
import type { Tracing } from '../operations/tracing.ts';
import type { EventStore } from '../store/event-store.ts';
import type { KeyStore } from '../store/key-store.ts';
import type { ReadStore } from '../store/read-store.ts';
import type { EditService } from '../writes/edits.ts';
import type { HevySync } from '../sync/hevy-sync.ts';
import type { ProposalService } from '../writes/proposals.ts';

export interface Services {
  config: Config;
  clock: Clock;
  events: EventStore;
  reads: ReadStore;
  /** Proposals' keys: primary data, kept with the events (KurrentDB's, or the embedded store's file). */
  keys: KeyStore;
  /**
   * `inline`: events and read models share one SQLite database and projections commit with each
   * append (a read right after a write sees it). `worker`: a projection worker follows the log.
   */
  projectionMode: 'inline' | 'worker';
  /**
   * Changes whenever anything is committed to the stores, by any process; null where the stores
   * cannot tell cheaply (KurrentDB, MongoDB), so that whatever is remembered against it is not.
   */
  changeVersion: (() => number) | null;
  runner: ProjectionRunner;
  records: RecordService;
  athletes: AthleteService;
  /** Deleting an account with everything of it (issue 42). */
  accounts: AccountDeletion;
  connections: ConnectionService;
  botTokens: BotTokenService;
  maintenance: Maintenance;
  proposals: ProposalService;
  /** The athlete's own edits from the web app. */
  edits: EditService;
  /** The Hevy sync (issue 41): connection, runs, status. */
  hevy: HevySync;
  /** What each connection read (counted in this process's memory, flushed) and proposed. */
  access: AccessHistory;
  /** This app's Prometheus metrics (served at `/metrics`). */
  metrics: Metrics;
  /** Traces of requests and their store calls; null unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: Tracing | null;
}
