// The import's write floor as a CLI process meets it: cold. A fresh process reads the import's
// events and the documents it ends with (bench/cli.ts saved them; reading them is not timed) and
// writes them once (bench/import-floor.ts): the write path run in a new V8, before any of it is
// compiled. Prints `{"seconds": …}`.
import { readFileSync } from 'node:fs';
import { timeImportWrites, type ImportWrites } from './import-floor.ts';

const [writesFile, dataDir] = process.argv.slice(2);
if (!writesFile || !dataDir) throw new Error('usage: import-floor-process.ts <writes.json> <empty data dir>');
const writes = JSON.parse(readFileSync(writesFile, 'utf8')) as ImportWrites;
process.stdout.write(`${JSON.stringify({ seconds: await timeImportWrites(writes, dataDir) })}\n`);
