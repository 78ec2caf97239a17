// The athlete directory: profile, tier and e-mail, for sign-in, listings and record timezones.
import type { AthleteEvent } from '../contracts/events.ts';
import type { Profile } from '../contracts/record.ts';
import type { Documents } from '../services/store/read-store.ts';
import { occurredAt, type Projection } from './projection.ts';

export const ATHLETES = 'athletes';
export const ATHLETES_PARTITION = 'athletes';

export interface AthleteDoc extends Profile {
  id: string;
  email: string;
  tier: 'free' | 'pro';
  registered_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export const athletesProjection: Projection = {
  name: 'athletes',
  collections: [{ name: ATHLETES, indexes: [{ name: 'by_email', fields: ['email', 'id'] }] }],
  handles: (type) => type === 'athlete.registered' || type === 'athlete.profile_updated' || type === 'subscription.changed',
  async apply(stored, docs) {
    const event = stored as unknown as AthleteEvent & { metadata: unknown };
    const at = occurredAt(stored);
    if (event.type === 'athlete.registered') {
      const { athlete_id, email, profile, tier } = event.data;
      await docs.upsert(ATHLETES, ATHLETES_PARTITION, { id: athlete_id, email, ...profile, tier, registered_at: at, updated_at: at });
      return;
    }
    if (event.type !== 'athlete.profile_updated' && event.type !== 'subscription.changed') return;
    const current = await docs.get<AthleteDoc>(ATHLETES, ATHLETES_PARTITION, event.data.athlete_id);
    if (!current) return;
    const change = event.type === 'subscription.changed' ? { tier: event.data.tier } : event.data.profile;
    await docs.upsert(ATHLETES, ATHLETES_PARTITION, { ...current, ...change, updated_at: at });
  },
};

/** The record timezone; UTC for an athlete the directory does not know (never for real events). */
export async function timezoneOf(docs: Documents, athleteId: string): Promise<string> {
  const athlete = await docs.get<AthleteDoc>(ATHLETES, ATHLETES_PARTITION, athleteId);
  return athlete?.timezone ?? 'UTC';
}
