// docs/cli.md is every command's help, generated from the command modules: a command, flag or
// description changed without `npm run docs:cli` would leave the reference saying something else.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCliDoc, CLI_DOC_PATH } from '../../cli/readme.ts';

test('docs/cli.md says what the command modules say (run `npm run docs:cli` after changing a command)', async () => {
  const generated = await buildCliDoc();
  const checkedIn = readFileSync(CLI_DOC_PATH, 'utf8');
  if (checkedIn !== generated) {
    const at = [...checkedIn].findIndex((c, i) => c !== generated[i]);
    const line = checkedIn.slice(0, at).split('\n').length;
    assert.unreachable(`docs/cli.md is not current from line ${line}: run \`npm run docs:cli\` and commit it`);
  }
});

test('it names every command, each under its own heading', async () => {
  const doc = await buildCliDoc();
  for (const id of ['serve', 'status', 'export', 'athletes create', 'import hevy', 'projections run', 'receipts verify', 'maintenance pause']) {
    assert.ok(doc.includes(`\n## \`repledger ${id}\`\n`), id);
  }
});

test.run();
