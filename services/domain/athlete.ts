// An athlete's account: registration, profile, subscription tier and password, on the
// `athlete-<id>` stream.
import type { AthleteEvent } from '../../contracts/events.ts';
import type { Profile } from '../../contracts/record.ts';
import { DomainError } from './errors.ts';

export type Tier = 'free' | 'pro';

export interface AthleteState {
  athlete_id: string;
  email: string;
  password_hash: string;
  profile: Profile;
  tier: Tier;
  /** Its deletion has begun: it is treated as gone everywhere but by the deletion finishing it. */
  deleting?: true;
}

export function evolveAthlete(state: AthleteState | null, event: AthleteEvent): AthleteState | null {
  switch (event.type) {
    case 'athlete.registered':
      return {
        athlete_id: event.data.athlete_id,
        email: event.data.email,
        password_hash: event.data.password_hash,
        profile: event.data.profile,
        tier: event.data.tier,
      };
    case 'athlete.profile_updated':
      return state && { ...state, profile: event.data.profile };
    case 'subscription.changed':
      return state && { ...state, tier: event.data.tier };
    case 'athlete.password_changed':
      return state && { ...state, password_hash: event.data.password_hash };
    case 'athlete.deletion_started':
      return state && { ...state, deleting: true };
    default:
      return state;
  }
}

export function decideTier(state: AthleteState | null, tier: Tier): AthleteEvent[] {
  if (!state) throw new DomainError('not_found', 'no such athlete');
  return state.tier === tier ? [] : [{ type: 'subscription.changed', data: { athlete_id: state.athlete_id, tier } }];
}

export function decideProfile(state: AthleteState | null, profile: Profile): AthleteEvent[] {
  if (!state) throw new DomainError('not_found', 'no such athlete');
  return JSON.stringify(state.profile) === JSON.stringify(profile)
    ? []
    : [{ type: 'athlete.profile_updated', data: { athlete_id: state.athlete_id, profile } }];
}

/** `passwordHash` is of a password already checked against the rule (see AthleteService). */
export function decidePassword(state: AthleteState | null, passwordHash: string): AthleteEvent[] {
  if (!state) throw new DomainError('not_found', 'no such athlete');
  return [{ type: 'athlete.password_changed', data: { athlete_id: state.athlete_id, password_hash: passwordHash } }];
}

/** An athlete's account as callers carry it: without its password hash. */
export type AthleteAccount = Omit<AthleteState, 'password_hash'>;
