// The read store refuses, at start-up, a MongoDB that cannot run transactions: a standalone server
// would let it start and then fail at the projector's first transaction, restarting in a loop.
// The check is a function of the server's `hello` reply, tested here on replies as the server
// gives them; a standalone server in a container shows that connecting runs it (skipped without
// a container runtime: MONGODB_URL, a replica set, cannot stand in for it).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoReadStore, whyNoTransactions } from '../../services/store/mongodb/read-store.ts';
import { serverSuite, whyNoContainerRuntime } from './container-runtime.ts';

const URL = 'mongodb://db.example:27017/repledger';
const COMMON = { topologyVersion: { processId: 'x', counter: 0 }, maxBsonObjectSize: 16777216, maxWireVersion: 25, localTime: new Date(), ok: 1 };

const STANDALONE = { isWritablePrimary: true, ...COMMON };
const PRIMARY = {
  isWritablePrimary: true,
  secondary: false,
  setName: 'rs0',
  setVersion: 1,
  hosts: ['mongodb:27017'],
  primary: 'mongodb:27017',
  me: 'mongodb:27017',
  ...COMMON,
};
const SECONDARY = { ...PRIMARY, isWritablePrimary: false, secondary: true, me: 'mongodb2:27017' };
const MONGOS = { isWritablePrimary: true, msg: 'isdbgrid', ...COMMON };
/** Started with --replSet, rs.initiate() not run yet. */
const UNINITIATED = { isWritablePrimary: false, secondary: false, info: 'Does not have a valid replica set config', isreplicaset: true, ...COMMON };

test('a replica set member, primary or not, and a mongos can run transactions', () => {
  for (const hello of [PRIMARY, SECONDARY, MONGOS]) assert.is(whyNoTransactions(hello, URL), null);
});

test('a standalone server is refused, saying why, naming the server and how to make it a one-node replica set', () => {
  const why = whyNoTransactions(STANDALONE, URL)!;
  assert.ok(why, 'refused');
  assert.match(why, `MongoDB at ${URL} is a standalone server`);
  assert.match(why, 'transactions need a replica set');
  assert.match(why, '--replSet rs0');
  assert.match(why, 'rs.initiate()');
});

test('the server is named without the credentials in its connection string', () => {
  const why = whyNoTransactions(STANDALONE, 'mongodb://repledger:hunter2@db.example:27017/repledger?authSource=admin')!;
  assert.match(why, 'MongoDB at mongodb://db.example:27017/repledger?authSource=admin is');
  assert.not.match(why, 'hunter2');
});

test('a replica set member never initiated is told to run rs.initiate()', () => {
  const why = whyNoTransactions(UNINITIATED, URL)!;
  assert.match(why, 'started with --replSet but its replica set is not initiated');
  assert.match(why, 'rs.initiate()');
});

test.run();

const IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:8.0.17';
const skipped = await whyNoContainerRuntime();
const server = serverSuite('mongodb standalone', skipped);

server('connecting to a standalone server fails at once with that message', async () => {
  const { GenericContainer, Wait } = await import('testcontainers');
  // No --replSet: the image's mongod is a standalone server.
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  try {
    const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/repledger`;
    try {
      await MongoReadStore.connect(url);
      assert.unreachable('a standalone server was accepted');
    } catch (error) {
      assert.match((error as Error).message, `MongoDB at ${url} is a standalone server`);
    }
  } finally {
    await container.stop();
  }
});

server.run();
