// A second process writing through the app while a backup is taken, as the running service
// would: proposals prepared and approved (receipt chain links, proposal keys) and imports, one
// after another until its stdin ends. Prints "ready", then a line `{"kind","position"}` after each
// commit, then `{"done":{"proposals","imports"}}`.
import { randomUUID } from 'node:crypto';
import { openApp } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { importExport } from '../../services/import/run.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { registerPro } from './connect.ts';
import { agentCaller, validBody } from './writes.ts';

const [dataDir, athleteId] = process.argv.slice(2);
const app = await openApp(loadConfig({ DATA_DIR: dataDir!, LOG_LEVEL: 'silent' }));
let stopping = false;
process.stdin.on('data', () => undefined).on('end', () => (stopping = true));
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
say('ready');
const counts = { proposals: 0, imports: 0 };
try {
  const caller = await agentCaller(app, athleteId!);
  for (let i = 0; !stopping; i++) {
    if (i % 4 === 3) {
      // Each import into an athlete of its own: a file's workouts are new to their record.
      const importer = await registerPro(app, `importer-${i}-${randomUUID()}@example.com`);
      await importExport(app, (await app.athletes.get(importer))!, {
        app: 'hevy',
        fileName: `hevy-${i}.csv`,
        bytes: Buffer.from(generateHevyExport({ workouts: 3, seed: i })),
        parse: (text, who) => parseHevy(text, { timezone: who.profile.timezone }),
      });
      counts.imports++;
      say({ kind: 'import', position: await app.events.headPosition() });
    } else {
      const eaten = new Date(app.clock.now().getTime() - 3_600_000).toISOString();
      const body = validBody([
        { op: 'create', kind: 'meal', record: { eaten_at: eaten, name: `Meal ${i}`, calories_kcal: 500 + i, protein_g: 30, carbohydrate_g: 50, fat_g: 15 } },
      ]);
      await app.proposals.prepare(caller, body);
      const { outcome, position } = await app.proposals.approve(athleteId!, body.command_id);
      if (outcome !== 'committed') throw new Error(`the approval answered ${outcome}`);
      counts.proposals++;
      say({ kind: 'proposal', position });
    }
  }
  say({ done: counts });
} finally {
  await app.close();
}
