// The composition root: stores chosen by configuration, projections, and the services on top.
import { join } from 'node:path';
import type { Services } from './api/services.ts';
import { projections, retired } from '../projections/index.ts';
import { Follower, type FollowOptions } from '../projections/follower.ts';
import { ProjectorLease } from '../projections/lease.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import { AccessHistory } from './operations/access-history.ts';
import { AccountDeletion, deletableCollections } from './identity/account-deletion.ts';
import { AthleteService } from './identity/athletes.ts';
import { BOT_TOKEN_USAGE, BotTokenService } from './identity/bot-tokens.ts';
import { CONNECTION_USAGE } from './api/auth.ts';
import type { Config } from './config.ts';
import { ConnectionService } from './identity/connections.ts';
import { sessionCollections } from './identity/sessions.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { Maintenance } from './operations/maintenance.ts';
import { Metrics } from './operations/metrics.ts';
import { projectionLag } from './operations/readiness.ts';
import { Tracing } from './operations/tracing.ts';
import { RecordService } from './commands/record-service.ts';
import { ReadStoreFoldSnapshots } from './store/fold-snapshots.ts';
import { ProposalService } from './writes/proposals.ts';
import { EditService } from './writes/edits.ts';
import { HevySync } from './sync/hevy-sync.ts';
import { moveKeysOutOfReadStore } from './writes/sealed.ts';
import type { EventStore } from './store/event-store.ts';
import type { KeyStore } from './store/key-store.ts';
import type { ReadStore } from './store/read-store.ts';
import { openSqlite, type SqliteDatabase } from './store/sqlite/database.ts';
import { SqliteEventStore } from './store/sqlite/event-store.ts';
import { SqliteKeyStore } from './store/sqlite/key-store.ts';
import { SqliteReadStore } from './store/sqlite/read-store.ts';

export interface App extends Services {
  /**
   * Worker mode: follows the log if this process takes the projector lease, else waits to take it
   * over (projections/follower.ts). Stop it with `stop()`.
   */
  follow(options: FollowOptions): Promise<Follower>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Traces: by default to OTEL_EXPORTER_OTLP_ENDPOINT's collector when it is set (a test hands its own). */
  tracing?: Tracing | null;
}

export async function openApp(config: Config, clock: Clock = systemClock, options: OpenOptions = {}): Promise<App> {
  let sqlite: SqliteDatabase | null = null;
  const embedded = () => (sqlite ??= openSqlite(join(config.dataDir, 'repledger.db')));
  const tracing = options.tracing === undefined ? await Tracing.toCollector(config.otlpEndpoint) : options.tracing;
  // Traced, each store call in a request is a span of its trace.
  const traced = <T extends object>(port: T, name: string): T => (tracing ? tracing.traced(port, name) : port);

  const events: EventStore = traced(
    config.kurrentdbUrl ? new (await import('./store/kurrentdb/event-store.ts')).KurrentEventStore(config.kurrentdbUrl) : new SqliteEventStore(embedded()),
    'event_store',
  );
  const reads: ReadStore = traced(
    config.mongodbUrl ? await (await import('./store/mongodb/read-store.ts')).MongoReadStore.connect(config.mongodbUrl) : new SqliteReadStore(embedded()),
    'read_store',
  );
  // Keys go where the events go: the read store can be dropped and rebuilt, they cannot.
  const keys: KeyStore = config.kurrentdbUrl
    ? new (await import('./store/kurrentdb/key-store.ts')).KurrentKeyStore(config.kurrentdbUrl)
    : await SqliteKeyStore.open(embedded());

  const runner = new ProjectionRunner(projections, reads, events, retired);
  await runner.ensureCollections();
  await reads.ensureCollections([
    ...Maintenance.collections,
    ...ProposalService.collections,
    ...AccessHistory.collections,
    ...ReadStoreFoldSnapshots.collections,
    ...HevySync.collections,
  ]);
  // What MCP clients declared at initialize was kept per connection here for a while; a session id
  // carries it now (services/http/mcp-session.ts).
  await reads.dropCollections(['mcp_clients']);
  // Stores made before keys were kept with the events held them in the read store: moved before
  // anything opens a proposal. Sharing one file, the embedded stores do it in one transaction.
  if (keys instanceof SqliteKeyStore && reads instanceof SqliteReadStore) await keys.adoptReadModelKeys();
  else await moveKeysOutOfReadStore(reads, keys);
  const botTokens = new BotTokenService(events, reads, clock);
  await botTokens.ensureCollections();
  const allEmbedded = events instanceof SqliteEventStore && reads instanceof SqliteReadStore;
  const inline = allEmbedded && config.embeddedProjections === 'inline';
  if (inline) {
    const readStore = reads;
    events.setOnAppended((appended) => runner.apply(appended, readStore.inTransaction));
    // Projections changed or added since the last run, or an interrupted replay, catch up before serving.
    await runner.upgrade();
    await runner.catchUp();
  }

  const records = new RecordService(events, clock, new ReadStoreFoldSnapshots(reads));
  const athletes = new AthleteService(events, reads, clock);
  const maintenance = new Maintenance(reads, clock);
  const access = new AccessHistory(reads, clock);
  const accounts = new AccountDeletion({
    events,
    reads,
    keys,
    athletes,
    access,
    records,
    clock,
    collections: deletableCollections(
      projections,
      ProposalService.collections,
      AccessHistory.collections,
      ReadStoreFoldSnapshots.collections,
      sessionCollections,
      HevySync.collections,
      [
        { name: BOT_TOKEN_USAGE, indexes: [] },
        { name: CONNECTION_USAGE, indexes: [] },
      ],
    ),
    // One SQLite database holds the events, read models and keys: one transaction covers them all.
    atomically: allEmbedded ? (work) => reads.transaction(() => work()) : (work) => work(),
  });
  const metrics = new Metrics();
  metrics.measureLagWith(() => projectionLag({ events, runner }));
  return {
    config,
    clock,
    events,
    reads,
    keys,
    projectionMode: inline ? 'inline' : 'worker',
    // The embedded store keeps events and read models in one database, so one number covers both.
    changeVersion: allEmbedded ? embedded().changeVersion : null,
    runner,
    async follow(options) {
      const follower = new Follower(runner, events, new ProjectorLease(reads, clock, config.projectionLeaseMs), options);
      await follower.start();
      return follower;
    },
    records,
    athletes,
    accounts,
    connections: new ConnectionService(events, reads, clock),
    botTokens,
    maintenance,
    proposals: new ProposalService({ config, clock, reads, keys, records, maintenance, runner, onTransition: (t) => metrics.transition(t) }),
    edits: new EditService({ clock, records, maintenance }),
    hevy: new HevySync({ events, reads, keys, records, clock, maintenance, config: config.hevy }),
    access,
    metrics,
    tracing,
    async close() {
      // What this process counted and has not written yet, before the stores go. Counts that
      // cannot be written are lost, as in a crash: the stores close all the same.
      await access.flush().catch(() => undefined);
      await records.snapshotsWritten();
      await keys.close();
      await events.close();
      await reads.close(); // the SQLite read store closes the shared database
      if (sqlite && !(reads instanceof SqliteReadStore)) sqlite.close();
      await tracing?.shutdown();
    },
  };
}
