// Whose record a read serves: the athlete's id, and the timezone their local dates are in. What
// every surface knows of its caller (a connection, a bot token, the athlete's own session) and
// all a read needs of it.
export interface RecordOwner {
  athleteId: string;
  timezone: string;
}

/** The owner of the record an athlete's account holds. */
export function ownerOf(athlete: { athlete_id: string; profile: { timezone: string } }): RecordOwner {
  return { athleteId: athlete.athlete_id, timezone: athlete.profile.timezone };
}
