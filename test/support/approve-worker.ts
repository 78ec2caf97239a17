// A second process approving a proposal on a shared embedded store, as a second server instance
// would: prints "ready" once the store is open, then the approval's outcome as JSON.
import { openApp } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';

const [dataDir, athleteId, commandId] = process.argv.slice(2);
const app = await openApp(loadConfig({ DATA_DIR: dataDir!, LOG_LEVEL: 'silent' }));
process.stdout.write('ready\n');
try {
  const started = performance.now();
  const result = await app.proposals.approve(athleteId!, commandId!).catch((error: unknown) => ({ outcome: 'refused', reason: (error as Error).message }));
  process.stdout.write(`${JSON.stringify({ ...result, elapsed_ms: performance.now() - started })}\n`);
} finally {
  await app.close();
}
