// How an operator names an athlete on the command line: the id `athletes create` printed, or
// the e-mail address.
import { Flags } from '@oclif/core';
import type { App } from '../services/app.ts';
import type { AthleteState } from '../services/domain/athlete.ts';
import { DomainError } from '../services/domain/errors.ts';

export const athleteFlag = Flags.string({ required: true, description: "the athlete's id (as `athletes create` prints it) or e-mail" });

const ATHLETE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The athlete `--athlete` names; an id has no `@`, so the two never mix up. */
export async function findAthlete(app: App, idOrEmail: string): Promise<AthleteState> {
  const ref = idOrEmail.trim();
  if (ATHLETE_ID.test(ref)) {
    const athlete = await app.athletes.get(ref.toLowerCase());
    if (!athlete) throw new DomainError('not_found', `no athlete with id ${ref}`);
    return athlete;
  }
  const athlete = await app.athletes.byEmail(ref);
  if (!athlete) throw new DomainError('not_found', `no athlete with e-mail ${ref}`);
  return athlete;
}

/** As `findAthlete`, an account whose deletion began and did not finish included: a deletion run again finishes it. */
export async function findAthleteForDeletion(app: App, idOrEmail: string): Promise<AthleteState> {
  const ref = idOrEmail.trim();
  const athlete = ATHLETE_ID.test(ref) ? await app.athletes.getForDeletion(ref.toLowerCase()) : await app.athletes.byEmailForDeletion(ref);
  if (!athlete) throw new DomainError('not_found', `no athlete with ${ATHLETE_ID.test(ref) ? 'id' : 'e-mail'} ${ref}`);
  return athlete;
}
