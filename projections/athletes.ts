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
  /** When the password last changed; the hash itself stays out of the directory. */
  password_changed_at?: string;
  [field: string]: unknown;
}

type AthleteUpdate = Extract<AthleteEvent, { type: 'athlete.profile_updated' | 'subscription.changed' | 'athlete.password_changed' }>;
const UPDATES: ReadonlySet<string> = new Set<AthleteUpdate['type']>(['athlete.profile_updated', 'subscription.changed', 'athlete.password_changed']);
const isUpdate = (event: AthleteEvent): event is AthleteUpdate => UPDATES.has(event.type);

function changeOf(event: AthleteUpdate, at: string): Partial<AthleteDoc> {
  switch (event.type) {
    case 'athlete.profile_updated':
      return event.data.profile;
    case 'subscription.changed':
      return { tier: event.data.tier };
    case 'athlete.password_changed':
      return { password_changed_at: at };
  }
}

export const athletesProjection: Projection = {
  name: 'athletes',
  collections: [{ name: ATHLETES, indexes: [{ name: 'by_email', fields: ['email', 'id'] }], owner: 'id' }],
  handles: (type) => UPDATES.has(type) || type === 'athlete.registered',
  async apply(stored, docs) {
    const event = stored as unknown as AthleteEvent & { metadata: unknown };
    const at = occurredAt(stored);
    if (event.type === 'athlete.registered') {
      const { athlete_id, email, profile, tier } = event.data;
      await docs.upsert(ATHLETES, ATHLETES_PARTITION, { id: athlete_id, email, ...profile, tier, registered_at: at, updated_at: at });
      return;
    }
    if (!isUpdate(event)) return;
    const current = await docs.get<AthleteDoc>(ATHLETES, ATHLETES_PARTITION, event.data.athlete_id);
    if (!current) return;
    await docs.upsert(ATHLETES, ATHLETES_PARTITION, { ...current, ...changeOf(event, at), updated_at: at });
  },
};

/** The record timezone; UTC for an athlete the directory does not know (never for real events). */
export async function timezoneOf(docs: Documents, athleteId: string): Promise<string> {
  const athlete = await docs.get<AthleteDoc>(ATHLETES, ATHLETES_PARTITION, athleteId);
  return athlete?.timezone ?? 'UTC';
}
