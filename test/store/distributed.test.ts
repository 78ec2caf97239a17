// Distributed mode end to end: events in KurrentDB, read models in MongoDB, projected by the
// runner (the projection runner contract) and by the `projections run` worker killed with
// SIGKILL and restarted. Against KURRENTDB_URL and MONGODB_URL when both are set (servers of the
// user's: `npm run test:distributed`), else against containers; else skipped with the reason.
import * as assert from 'uvu/assert';
import { projections } from '../../projections/index.ts';
import { CHECKPOINTS } from '../../projections/runner.ts';
import { KurrentEventStore } from '../../services/store/kurrentdb/event-store.ts';
import { MongoReadStore } from '../../services/store/mongodb/read-store.ts';
import { projectionRunnerContract } from '../projections/projection-runner.contract.ts';
import { startCli } from '../support/cli.ts';
import { copyLog, freshAthletes, only, readModelsOf, recordLog } from '../support/event-log.ts';
import { freshDatabase, sharedServers } from '../support/distributed-servers.ts';
import { serverSuite, whyNoContainerRuntime } from './container-runtime.ts';

function workerSuite(skipped: string | null): void {
  const t = serverSuite('distributed worker', skipped);
  t.after(async () => (await sharedServers()).stop());

  t('a worker SIGKILLed while applying and started again ends with the inline build: nothing twice, nothing missed', async () => {
    const { kurrentdb } = await sharedServers();
    const database = await freshDatabase();
    const events = new KurrentEventStore(kurrentdb);
    const reads = await MongoReadStore.connect(database.url);
    const env = { KURRENTDB_URL: kurrentdb, MONGODB_URL: database.url };
    const start = () => {
      const w = startCli(['projections', 'run'], env);
      let err = '';
      const following = new Promise<void>((resolve, reject) => {
        w.child.stderr!.on('data', (d: Buffer) => {
          err += d.toString();
          if (err.includes('following the event log')) resolve();
        });
        void w.done.then((r) => reject(new Error(`worker exited: ${JSON.stringify(r)}`)));
      });
      return { ...w, following };
    };
    const projectedTo = async (position: number) => {
      for (let i = 0; i < 600; i++) {
        const docs = await reads.getMany<{ id: string; position: number }>(
          CHECKPOINTS,
          'projections',
          projections.map((p) => p.name),
        );
        if (docs.length === projections.length && docs.every((d) => d.position >= position)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`not projected to ${position}`);
    };
    try {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      const third = Math.floor(copy.events.length / 3);
      await copyLog(copy.events.slice(0, third), events);
      let worker = start();
      await worker.following;
      const appending = copyLog(copy.events.slice(third, 2 * third), events);
      await new Promise((r) => setTimeout(r, 150));
      worker.child.kill('SIGKILL');
      assert.is((await worker.done).signal, 'SIGKILL');
      await appending;
      await copyLog(copy.events.slice(2 * third), events);
      worker = start();
      await worker.following;
      await projectedTo(await events.headPosition());
      worker.child.kill('SIGTERM');
      const stopped = await worker.done;
      assert.equal([stopped.code, stopped.signal], [0, null], stopped.stderr);
      assert.equal(only(await readModelsOf(reads), copy.ours), only(copy.expected(reference.readModels)));
    } finally {
      await events.close();
      await reads.close();
      await database.drop();
    }
  });

  t.run();
}

const haveUrls = Boolean(process.env.KURRENTDB_URL && process.env.MONGODB_URL);
const reason = haveUrls ? null : await whyNoContainerRuntime();
const skipped = reason && `${reason}; set KURRENTDB_URL and MONGODB_URL to use servers`;
if (skipped) console.log(`skipped: distributed mode — ${skipped}`);
projectionRunnerContract(
  'kurrentdb + mongodb',
  async () => {
    const database = await freshDatabase();
    const events = new KurrentEventStore((await sharedServers()).kurrentdb);
    const reads = await MongoReadStore.connect(database.url);
    return {
      events,
      reads,
      close: async () => {
        await events.close();
        await reads.close();
        await database.drop();
      },
    };
  },
  skipped,
);
workerSuite(skipped);
