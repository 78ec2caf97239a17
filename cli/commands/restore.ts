import { Flags } from '@oclif/core';
import { AppCommand } from '../base.ts';
import { progressBar, type ProgressBar } from '../progress.ts';

export default class Restore extends AppCommand {
  static override description =
    `Restore a backup written by \`backup\` into an empty data directory (DATA_DIR; anything else is refused). Before anything is put in place it checks the manifest and every file's SHA-256, SQLite's integrity, that every receipt chain verifies and ends at the manifest's head, and that a replay of every projection equals the read models the backup brought; a damaged or cut backup is refused naming what is wrong, and the data directory stays empty. Progress on stderr.`;

  static override flags = {
    file: Flags.string({ char: 'f', required: true, description: 'the backup folder to restore' }),
  };

  static override examples = ['DATA_DIR=/srv/repledger-new <%= config.bin %> restore --file /backups/repledger-2026-06-01'];

  async run() {
    const [{ restoreBackup }, { loadConfig }] = await Promise.all([import('../../services/backup/restore.ts'), import('../../services/config.ts')]);
    const { flags } = await this.parse(Restore);
    // One bar per step, each labelled by what it does.
    let bar: ProgressBar | null = null;
    let step = '';
    let result: Awaited<ReturnType<typeof restoreBackup>>;
    try {
      result = await restoreBackup(loadConfig(), flags.file, (now, done, total) => {
        if (now !== step) {
          bar?.stop();
          step = now;
          bar = progressBar(now[0]!.toUpperCase() + now.slice(1), this.progressEnabled());
        }
        bar!.update(done, total);
      });
    } finally {
      (bar as ProgressBar | null)?.stop();
    }
    this.log(
      `Restored ${result.events} event(s) up to position ${result.last_position} into ${result.data_dir}: ${result.chains} receipt chain(s) verified at the manifest's heads, ${result.collections} read-model collection(s) equal to a replay.`,
    );
    if (result.oauth_keys_file) this.log(`OAuth keys restored to ${result.oauth_keys_file}.`);
    else this.logToStderr('The backup held no OAuth keys: the service makes new ones on start, and every client signs in again.');
    return result;
  }
}
