// The event store contract against KurrentDB: the server at KURRENTDB_URL if set, else a
// container (testcontainers). Without either, the suites are registered as skipped.
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { KurrentEventStore } from '../../services/store/kurrentdb/event-store.ts';
import { KurrentKeyStore } from '../../services/store/kurrentdb/key-store.ts';
import { serverSuite, whyNoContainerRuntime } from './container-runtime.ts';
import { eventStoreContract, type EventStoreFixture } from './event-store.contract.ts';
import { keyStoreContract, type KeyStoreFixture } from './key-store.contract.ts';

// The version docker-compose.yml pins: the suite checks the settings it runs with.
const IMAGE = process.env.KURRENTDB_IMAGE ?? 'docker.kurrent.io/kurrent-lts/kurrentdb:26.0.3';
const url = process.env.KURRENTDB_URL;
/** The container's maximum append size: small enough to test quickly, within every version's bound. */
const CONTAINER_MAX_APPEND = 8 * 1024 * 1024;
/**
 * A server of the user's: its maximum append size as configured (KURRENTDB_MAX_APPEND_SIZE, the
 * server's own variable), else the default of 25.1 and later (256 MiB; 1 MiB on 25.0).
 */
const maxAppendBytes = url ? Number(process.env.KURRENTDB_MAX_APPEND_SIZE ?? 256 * 1024 * 1024) : CONTAINER_MAX_APPEND;

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  if (url) return { url, stop: async () => {} };
  const { KurrentDbContainer } = await import('@testcontainers/kurrentdb');
  const container = await new KurrentDbContainer(IMAGE).withEnvironment({ KURRENTDB_MAX_APPEND_SIZE: String(CONTAINER_MAX_APPEND) }).start();
  return { url: container.getConnectionString(), stop: async () => void (await container.stop()) };
}

// One server for both suites: the contract's, then this adapter's own, which stops it.
let server: Promise<Server> | null = null;
const shared = () => (server ??= startServer());

async function open(): Promise<EventStoreFixture> {
  const store = new KurrentEventStore((await shared()).url);
  return { store, maxAppendBytes, close: () => store.close() };
}

/** Proposal keys beside the event log on the same server. */
async function openKeys(): Promise<KeyStoreFixture> {
  const { url: connection } = await shared();
  const keys = new KurrentKeyStore(connection);
  const events = new KurrentEventStore(connection);
  const others: KurrentKeyStore[] = [];
  return {
    keys,
    events,
    another: async () => {
      const other = new KurrentKeyStore(connection);
      others.push(other);
      return other;
    },
    close: async () => {
      for (const store of [keys, ...others]) await store.close();
      await events.close();
    },
  };
}

/** What this adapter adds to the contract: its positions agree between append, reads and $all. */
function kurrentSpecifics(skipped: string | null): void {
  const t = serverSuite<{ fx: EventStoreFixture }>('kurrentdb positions', skipped, {} as { fx: EventStoreFixture });
  t.before(async (ctx) => {
    ctx.fx = await open();
  });
  t.after(async (ctx) => {
    await ctx.fx?.close();
    await (await shared()).stop();
  });

  t('append reports the position that reads show for its last event, and readAll excludes `after`', async ({ fx }) => {
    const s = `test-${randomUUID()}`;
    const meta = { occurred_at: '2026-01-01T00:00:00.000Z' };
    const r = await fx.store.append(
      s,
      ['a', 'b', 'c'].map((type) => ({ type, data: {}, metadata: meta })),
      'no_stream',
    );
    const events = await fx.store.readStream(s);
    assert.is(r.position, events[2]!.position);
    assert.is(r.revision, 2);
    const next = await fx.store.readAll(events[0]!.position, 2);
    assert.equal(
      next.map((e) => [e.stream, e.type, e.position]),
      [
        [s, 'b', events[1]!.position],
        [s, 'c', events[2]!.position],
      ],
    );
  });

  t.run();
}

const reason = url ? null : await whyNoContainerRuntime();
const skipped = reason && `${reason}; set KURRENTDB_URL to use a server`;
if (skipped) console.log(`skipped: KurrentDB contract — ${skipped}`);
eventStoreContract('kurrentdb', open, skipped);
keyStoreContract('kurrentdb', openKeys, skipped);
// Last: its `after` stops the server the suites share.
kurrentSpecifics(skipped);
