// The read store contract against MongoDB: the server at MONGODB_URL if set (it must be a replica
// set), else a one-node replica set in a container (testcontainers). Without either, the suite is
// registered as skipped. Each run uses a database of its own and drops it afterwards.
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../services/store/mongodb/read-store.ts';
import { skipSuites, whyNoContainerRuntime } from './container-runtime.ts';
import { readStoreContract, type ReadStoreFixture } from './read-store.contract.ts';

const IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:8';
const url = process.env.MONGODB_URL;

/** The container's replica set member is known by an internal host name: connect to it directly. */
function direct(connectionString: string): string {
  if (connectionString.includes('?')) return `${connectionString}&directConnection=true`;
  return `${connectionString.replace(/\/$/, '')}/?directConnection=true`;
}

async function open(): Promise<ReadStoreFixture> {
  let stopContainer = async () => {};
  let connectionString = url;
  if (!connectionString) {
    const { MongoDBContainer } = await import('@testcontainers/mongodb');
    const container = await new MongoDBContainer(IMAGE).start();
    connectionString = direct(container.getConnectionString());
    stopContainer = async () => void (await container.stop());
  }
  const database = `repledger_test_${randomUUID().replaceAll('-', '')}`;
  const store = await MongoReadStore.connect(connectionString, { database });
  return {
    store,
    close: async () => {
      try {
        await store.close();
        const client = await MongoClient.connect(connectionString);
        await client.db(database).dropDatabase();
        await client.close();
      } finally {
        await stopContainer();
      }
    },
  };
}

const reason = url ? null : await whyNoContainerRuntime();
if (reason) {
  skipSuites('MongoDB contract', `${reason}; set MONGODB_URL to use a server`, ['read store contract: mongodb']);
} else {
  readStoreContract('mongodb', open);
}
