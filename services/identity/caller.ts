// Who calls Agent Access: an athlete's connection (an OAuth grant), with what it may read and
// propose as the connection holds it now. What the API checks a token into, and what reads,
// writes and the quota take from it.
import type { ReadScope } from '../../contracts/common.ts';
import type { WritePermission } from '../../contracts/write-permissions.ts';
import type { AthleteAccount } from '../domain/athlete.ts';

export interface Caller {
  athlete: AthleteAccount;
  grantId: string;
  clientId: string;
  /** The client's name as the athlete saw it when connecting. */
  clientName: string;
  /** The areas both the token and the connection (as it is now) allow. */
  scopes: ReadScope[];
  /** The changes it may propose, as the connection holds them now (spec 5.3). */
  writePermissions: WritePermission[];
}
