import { createInterface } from 'node:readline';
import { Flags } from '@oclif/core';
import { DomainError } from '../../../services/domain/errors.ts';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';

export default class AthletesSetPassword extends AppCommand {
  static override description =
    "Set an athlete's password, read from standard input (not a flag: flags show in `ps` and shell history). " +
    "For an athlete who forgot theirs; sign-in's lockout after wrong guesses still runs out on its own (see README).";
  static override examples = [
    `read -rs PW && printf '%s\\n' "$PW" | <%= config.bin %> athletes set-password --athlete ada@example.com --password-stdin`,
    `<%= config.bin %> athletes set-password --athlete 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed --password-stdin < new-password.txt`,
  ];
  static override flags = {
    athlete: athleteFlag,
    'password-stdin': Flags.boolean({
      required: true,
      description: 'read the new password (at least 12 characters) from the first line of standard input',
    }),
  };

  async run(): Promise<{ athlete_id: string; password_changed: true }> {
    const { flags } = await this.parse(AthletesSetPassword);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const password = await firstLine(process.stdin);
    if (password === null) throw new DomainError('invalid_input', 'no password on standard input: pipe it in, e.g. printf \'%s\\n\' "$PW" | …');
    await app.athletes.setPassword(athlete.athlete_id, password, { type: 'operator', id: 'cli' });
    this.log(`set a new password for ${athlete.email}`);
    return { athlete_id: athlete.athlete_id, password_changed: true };
  }
}

/** The first line of a stream without its line end, or null when the stream ends first. */
async function firstLine(input: NodeJS.ReadableStream): Promise<string | null> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return null;
  } finally {
    lines.close();
  }
}
