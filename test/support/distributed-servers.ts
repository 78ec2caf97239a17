// The KurrentDB and MongoDB servers the distributed suites share: KURRENTDB_URL and MONGODB_URL
// when both are set (`npm run test:distributed` against the user's servers), else containers
// started once per file through testcontainers. Callers skip first where no runtime exists
// (test/store/container-runtime.ts).
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';

const KURRENTDB_IMAGE = process.env.KURRENTDB_IMAGE ?? 'docker.kurrent.io/kurrent-lts/kurrentdb:26.0.3';
const MONGODB_IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:8.0.17';

export interface Servers {
  kurrentdb: string;
  mongodb: string;
  stop(): Promise<void>;
}

async function startServers(): Promise<Servers> {
  if (process.env.KURRENTDB_URL && process.env.MONGODB_URL) {
    return { kurrentdb: process.env.KURRENTDB_URL, mongodb: process.env.MONGODB_URL, stop: async () => {} };
  }
  const [{ KurrentDbContainer }, { MongoDBContainer }] = await Promise.all([import('@testcontainers/kurrentdb'), import('@testcontainers/mongodb')]);
  const [kurrent, mongo] = await Promise.all([new KurrentDbContainer(KURRENTDB_IMAGE).start(), new MongoDBContainer(MONGODB_IMAGE).start()]);
  return {
    kurrentdb: kurrent.getConnectionString(),
    mongodb: `${mongo.getConnectionString()}/?directConnection=true`,
    stop: async () => void (await Promise.all([kurrent.stop(), mongo.stop()])),
  };
}

let servers: Promise<Servers> | null = null;
/** This file's servers, started at the first call. */
export const sharedServers = (): Promise<Servers> => (servers ??= startServers());

/** The connection string with `database` as its database. */
function withDatabase(url: string, database: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/i.exec(url);
  if (!match) throw new Error(`not a MongoDB connection string: ${url}`);
  return `${match[1]}/${database}${match[2] ?? ''}`;
}

/** A fresh database on the shared MongoDB (`repledger_test_*`), and the way to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const url = withDatabase((await sharedServers()).mongodb, `repledger_test_${randomUUID().replaceAll('-', '')}`);
  return {
    url,
    drop: async () => {
      const client = await MongoClient.connect(url);
      try {
        await client.db().dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
