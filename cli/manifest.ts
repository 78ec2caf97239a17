// oclif's manifest (oclif.manifest.json): every command's id, description, flags and module path.
// With it, oclif answers --help from the file and loads only the module of the command being run;
// without it, it loads every command module to learn the same things on each start.
// `npm run manifest` writes it after a command, flag or description changes; test/cli/manifest.test.ts
// fails while the file in the repository differs from what the commands say.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Plugin } from '@oclif/core';

export const ROOT = join(import.meta.dirname, '..');
export const MANIFEST_PATH = join(ROOT, 'oclif.manifest.json');

/** The manifest as oclif's own `oclif manifest` builds it: from the command modules, not from a manifest. */
export async function buildManifest(): Promise<string> {
  const plugin = new Plugin({ ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true, isRoot: true, root: ROOT, type: 'core' });
  await plugin.load();
  return `${JSON.stringify(plugin.manifest, null, 2)}\n`;
}

if (import.meta.main) writeFileSync(MANIFEST_PATH, await buildManifest());
