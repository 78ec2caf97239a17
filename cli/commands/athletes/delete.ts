import { Flags } from '@oclif/core';
import { DomainError } from '../../../services/domain/errors.ts';
import { AppCommand } from '../../base.ts';
import { athleteFlag, findAthleteForDeletion } from '../../athlete.ts';

export default class AthletesDelete extends AppCommand {
  static override description =
    "Delete an athlete's account and everything of it: record, proposals and their keys, receipts, connections (their tokens revoked), bot tokens, " +
    'sessions and the e-mail, which can sign up again. It cannot be undone: --confirm must repeat the e-mail. An interrupted deletion is finished by running it again. ' +
    'Only a count of deleted accounts is kept (README, "Deleting an account").';
  static override examples = [
    '<%= config.bin %> athletes delete --athlete ada@example.com --confirm ada@example.com',
    '<%= config.bin %> athletes delete --athlete 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed --confirm ada@example.com --json',
  ];
  static override flags = {
    athlete: athleteFlag,
    confirm: Flags.string({ description: "the athlete's e-mail again: the deletion cannot be undone" }),
  };

  async run(): Promise<{ athlete_id: string; deleted: true; accounts_deleted: number }> {
    const { flags } = await this.parse(AthletesDelete);
    const app = await this.app();
    const athlete = await findAthleteForDeletion(app, flags.athlete).catch(async (error: unknown) => {
      // Run again for an account already deleted, whose store files could not be rewritten then.
      if (error instanceof DomainError && error.code === 'not_found' && (await app.accounts.wasDeleted(flags.athlete.trim().toLowerCase()))) return null;
      throw error;
    });
    if (!athlete) {
      const athleteId = flags.athlete.trim().toLowerCase();
      refuseUnerased(athleteId, await app.accounts.erase());
      this.log(`the account ${athleteId} was already deleted; the store's files now hold no copy of it`);
      return { athlete_id: athleteId, deleted: true, accounts_deleted: await app.accounts.count() };
    }
    // Compared as sign-in compares addresses: case and surrounding spaces aside.
    if (flags.confirm?.trim().toLowerCase() !== athlete.email) {
      const message = `nothing deleted: deleting an account cannot be undone; repeat its e-mail with --confirm ${athlete.email} to delete it`;
      throw new DomainError('invalid_input', message, [{ path: 'confirm', message }]);
    }
    const result = await app.accounts.delete(athlete.athlete_id, { type: 'operator', id: 'cli' });
    refuseUnerased(athlete.athlete_id, result.erase_problem);
    this.log(
      `deleted the account ${athlete.athlete_id} and everything of it (${result.accounts_deleted} account${result.accounts_deleted === 1 ? '' : 's'} deleted so far)`,
    );
    return { athlete_id: athlete.athlete_id, deleted: true, accounts_deleted: result.accounts_deleted };
  }
}

/** A deletion that committed but left copies in the store's files is not finished: exit 2, saying how to finish it. */
function refuseUnerased(athleteId: string, problem: string | null): void {
  if (problem)
    throw new DomainError(
      'busy',
      `the account ${athleteId} is deleted, but the store's files may still hold copies of it (${problem}); run \`repledger athletes delete --athlete ${athleteId}\` again to erase them`,
    );
}
