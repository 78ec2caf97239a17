// oclif answers --help and finds a command's module from oclif.manifest.json alone: a command,
// flag or description changed without `npm run manifest` would show stale help, or none.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildManifest, MANIFEST_PATH } from '../../cli/manifest.ts';

test('oclif.manifest.json says what the command modules say (run `npm run manifest` after changing a command)', async () => {
  // Parsed: the order of commands follows the file system's listing, which may differ by machine.
  assert.equal(JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')), JSON.parse(await buildManifest()));
});

test.run();
