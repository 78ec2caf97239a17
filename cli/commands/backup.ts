import { Flags } from '@oclif/core';
import { BACKUP_FORMAT, BACKUP_STEP_PAGES } from '../../contracts/policy.ts';
import { AppCommand } from '../base.ts';
import { progressBar } from '../progress.ts';

export default class Backup extends AppCommand {
  static override description =
    `Back up the embedded store while the service runs: a consistent copy of the event log, read models and proposal keys (SQLite's online backup, a step of pages at a time, never holding up writers), the OAuth keys, and a manifest (${BACKUP_FORMAT}: time, events and last position, each athlete's receipt chain head, each file's SHA-256, its own checksum), written to a new folder. \`restore\` proves and restores it. With KURRENTDB_URL or MONGODB_URL set it refuses: see README, "Backing up and restoring". Progress on stderr.`;

  static override flags = {
    file: Flags.string({ char: 'f', required: true, description: 'the folder to write the backup to (must not exist; never overwritten)' }),
    'step-pages': Flags.integer({ description: 'database pages copied per step', default: BACKUP_STEP_PAGES, min: 1, max: 1_000_000 }),
  };

  static override examples = ['<%= config.bin %> backup --file /backups/repledger-2026-06-01', '<%= config.bin %> backup --file /backups/nightly --json'];

  async run() {
    const [{ takeBackup }, { loadConfig }] = await Promise.all([import('../../services/backup/backup.ts'), import('../../services/config.ts')]);
    const { flags } = await this.parse(Backup);
    const bar = progressBar('Backing up', this.progressEnabled());
    let result: Awaited<ReturnType<typeof takeBackup>>;
    try {
      result = await takeBackup(loadConfig(), flags.file, { stepPages: flags['step-pages'], progress: (done, total) => bar.update(done, total) });
    } finally {
      bar.stop();
    }
    const { manifest } = result;
    const links = manifest.chains.reduce((n, c) => n + c.links, 0);
    this.log(
      `Backed up ${manifest.events} event(s) up to position ${manifest.last_position}, ${manifest.proposal_keys} proposal key(s) and ${manifest.chains.length} receipt chain(s) (${links} link(s)) to ${result.file}.`,
    );
    return { file: result.file, pages: result.pages, seconds: result.seconds, manifest };
  }
}
