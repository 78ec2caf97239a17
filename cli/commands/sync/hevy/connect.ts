import { Flags } from '@oclif/core';
import { AppCommand } from '../../../base.ts';
import { athleteFlag, findAthlete } from '../../../athlete.ts';
import { readInputFile } from '../../../input-file.ts';

export default class SyncHevyConnect extends AppCommand {
  static override description =
    "Connect an athlete's Hevy account with their API key (Hevy Pro: Settings > Developer), checked with Hevy and kept encrypted; replaces a key connected before";
  static override flags = {
    athlete: athleteFlag,
    // A file, not a flag's value: a key on the command line would be in the shell's history and the process list.
    'key-file': Flags.string({ required: true, description: 'a file holding the API key (- for stdin)' }),
  };

  async run(): Promise<{ athlete_id: string; hevy_user: { id: string; name: string | null } }> {
    const { flags } = await this.parse(SyncHevyConnect);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const key = (flags['key-file'] === '-' ? await readStdin() : await readInputFile(flags['key-file'])).toString('utf8').trim();
    const { hevy_user } = await app.hevy.connect(athlete.athlete_id, key, { type: 'operator', id: 'cli' });
    this.log(`connected Hevy${hevy_user.name ? ` (${hevy_user.name})` : ''}; run \`repledger sync hevy run --athlete ${flags.athlete}\` to sync now`);
    return { athlete_id: athlete.athlete_id, hevy_user };
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
