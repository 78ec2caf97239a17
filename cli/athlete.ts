import type { App } from '../services/app.ts';
import type { AthleteState } from '../services/domain/athlete.ts';
import { DomainError } from '../services/domain/errors.ts';

export async function athleteByEmail(app: App, email: string): Promise<AthleteState> {
  const athlete = await app.athletes.byEmail(email);
  if (!athlete) throw new DomainError('not_found', `no athlete with e-mail ${email}`);
  return athlete;
}
