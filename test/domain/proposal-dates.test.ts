// "Today" for a proposal's dates is the athlete's local date at the injected instant, never UTC's:
// a check-in may be dated today and not after it, and routines are scheduled from today to the
// horizon. Each case sits next to a local midnight in a zone whose date differs from UTC's there
// (UTC+14, UTC+12/+13 with its summer time, UTC-9/-10), so a rule counted in UTC answers otherwise.
// Recorded instants (a workout's end, a meal, a measurement) are checked as instants against the
// clock, whatever the zone: an instant later today is still the future.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import { decidePrepare, itemKeysOf, ProposalState, WriteRefusal, type PrepareCommand } from '../../services/domain/proposal.ts';
import { initialRecordState, itemImages } from '../../services/domain/record.ts';
import { addDays } from '../../services/domain/time.ts';
import { validBody } from '../support/writes.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa7);
const GRANT = uid(0x90);
const HORIZON = WRITE_POLICY.schedulingHorizonDays;

/** Given an empty record, when one action is prepared at `now` for an athlete in `timezone`. */
function prepare(timezone: string, now: string, action: unknown) {
  let ids = 0;
  const command: PrepareCommand = {
    body: validBody([action], uid(0x500)),
    caller: {
      grantId: GRANT,
      clientId: 'client',
      clientName: 'Coach',
      scopes: ['training', 'recovery', 'nutrition', 'body_measurements'],
      writePermissions: WRITE_PERMISSIONS,
    },
    now: new Date(now),
    timezone,
    newId: () => uid(0x1000 + ++ids),
  };
  return decidePrepare(command, initialRecordState(ATHLETE), new ProposalState(), itemImages([], itemKeysOf(command.body)));
}

/** The refusal `run` throws; a run that is accepted fails the test, saying what should have been refused. */
function refused(run: () => unknown, what: string): WriteRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof WriteRefusal) return error;
    throw error;
  }
  assert.unreachable(`accepted ${what}`);
  throw new Error('unreachable');
}

/** Prepares, and fails the test with the refusal's words if `what` is refused. */
function accepted(run: () => ReturnType<typeof prepare>, what: string): void {
  try {
    assert.is(run().outcome, 'prepared', what);
  } catch (error) {
    if (error instanceof WriteRefusal) assert.unreachable(`refused ${what}: ${error.message}`);
    throw error;
  }
}

const checkin = (date: string) => ({ op: 'create', kind: 'recovery_checkin', record: { date, sleep_quality: 4, energy: 3, soreness: 2, stress: 2 } });
const routine = (...dates: string[]) => ({ op: 'create', kind: 'saved_routine', record: { title: 'Plan', exercises: [], scheduled_dates: dates } });

interface Case {
  zone: string;
  now: string;
  /** The athlete's date at `now`. */
  today: string;
  why: string;
}

/** Each a moment either side of a local midnight where the local date is not UTC's. */
const CASES: Case[] = [
  { zone: 'Pacific/Kiritimati', now: '2026-06-01T09:59:59.999Z', today: '2026-06-01', why: 'a moment before midnight at UTC+14' },
  {
    zone: 'Pacific/Kiritimati',
    now: '2026-06-01T10:30:00.000Z',
    today: '2026-06-02',
    why: 'half past midnight at UTC+14: already 2 June, still 1 June in UTC',
  },
  { zone: 'Pacific/Auckland', now: '2026-06-01T11:59:59.999Z', today: '2026-06-01', why: 'a moment before midnight in the New Zealand winter (UTC+12)' },
  { zone: 'Pacific/Auckland', now: '2026-06-01T12:00:00.000Z', today: '2026-06-02', why: 'midnight in the New Zealand winter (UTC+12)' },
  { zone: 'Pacific/Auckland', now: '2026-12-31T10:59:59.999Z', today: '2026-12-31', why: 'a moment before the new year in the New Zealand summer (UTC+13)' },
  {
    zone: 'Pacific/Auckland',
    now: '2026-12-31T11:00:00.000Z',
    today: '2027-01-01',
    why: 'the new year in the New Zealand summer (UTC+13), still 31 December in UTC',
  },
  {
    zone: 'America/Adak',
    now: '2026-06-01T08:30:00.000Z',
    today: '2026-05-31',
    why: 'half past eleven at night in the Aleutian summer (UTC-9): already 1 June in UTC',
  },
  { zone: 'America/Adak', now: '2026-06-01T09:00:00.000Z', today: '2026-06-01', why: 'midnight in the Aleutian summer (UTC-9)' },
  {
    zone: 'America/Adak',
    now: '2027-01-01T09:59:59.999Z',
    today: '2026-12-31',
    why: 'a moment before the new year in the Aleutian winter (UTC-10): 2027 in UTC',
  },
  { zone: 'America/Adak', now: '2027-01-01T10:00:00.000Z', today: '2027-01-01', why: 'the new year in the Aleutian winter (UTC-10)' },
];

test('the cases are where UTC and the athlete disagree about the date, or on the side where they agree again', () => {
  // Half the cases must have a local date that is not UTC's, or a rule counted in UTC passes them.
  const differing = CASES.filter((c) => c.now.slice(0, 10) !== c.today);
  assert.ok(differing.length >= 5, `${differing.length} cases where the local date is not UTC's`);
});

for (const c of CASES) {
  test(`${c.zone} at ${c.now} (${c.why}): a check-in may be dated ${c.today}, not the day after`, () => {
    accepted(() => prepare(c.zone, c.now, checkin(c.today)), `a check-in dated today (${c.today} in ${c.zone})`);
    const tomorrow = addDays(c.today, 1);
    const refusal = refused(() => prepare(c.zone, c.now, checkin(tomorrow)), `a check-in dated ${tomorrow}, the day after today (${c.today} in ${c.zone})`);
    assert.is(refusal.reason, 'invalid_action');
    assert.is(refusal.field, 'actions.0.record.date');
    assert.is(refusal.message, `${tomorrow} is after today (${c.today} in ${c.zone})`);
  });

  test(`${c.zone} at ${c.now} (${c.why}): routines are scheduled from ${c.today} to ${addDays(c.today, HORIZON)}`, () => {
    const last = addDays(c.today, HORIZON);
    accepted(
      () => prepare(c.zone, c.now, routine(c.today, last)),
      `a routine scheduled today (${c.today} in ${c.zone}) and on the horizon's last day (${last})`,
    );

    const yesterday = addDays(c.today, -1);
    const past = refused(
      () => prepare(c.zone, c.now, routine(c.today, yesterday)),
      `a routine scheduled on ${yesterday}, the day before today (${c.today} in ${c.zone})`,
    );
    assert.is(past.reason, 'beyond_horizon');
    assert.is(past.field, 'actions.0.record.scheduled_dates.1');
    assert.is(past.message, `${yesterday} is in the past; routines are scheduled from today (${c.today} in ${c.zone})`);

    const beyond = addDays(last, 1);
    const far = refused(
      () => prepare(c.zone, c.now, routine(c.today, beyond)),
      `a routine scheduled on ${beyond}, ${HORIZON + 1} days after today (${c.today} in ${c.zone})`,
    );
    assert.is(far.reason, 'beyond_horizon');
    assert.is(far.field, 'actions.0.record.scheduled_dates.1');
    assert.is(far.message, `${beyond} is more than ${HORIZON} days ahead; the last date that can be scheduled is ${last} (${c.zone})`);
  });
}

const at = (now: string, minutes: number) => new Date(Date.parse(now) + minutes * 60_000).toISOString();
const instants = {
  ended_at: (t: string) => ({ op: 'create', kind: 'completed_workout', record: { title: 'Run', started_at: null, ended_at: t, notes: null, exercises: [] } }),
  eaten_at: (t: string) => ({
    op: 'create',
    kind: 'meal',
    record: { eaten_at: t, name: 'Oats', calories_kcal: 350, protein_g: null, carbohydrate_g: null, fat_g: null },
  }),
  measured_at: (t: string) => ({ op: 'create', kind: 'body_measurement', record: { measured_at: t, metric: 'bodyweight', value: 80 } }),
};

test('a recorded instant may be up to five minutes ahead of the clock (a fast phone), not later, in every zone: later today is the future', () => {
  let laterToday = 0;
  for (const c of CASES) {
    for (const [field, action] of Object.entries(instants)) {
      const where = `${field} in ${c.zone} at ${c.now}`;
      accepted(() => prepare(c.zone, c.now, action(at(c.now, 5))), `${where}: five minutes ahead of the clock`);
      const ahead = refused(() => prepare(c.zone, c.now, action(at(c.now, 6))), `${where}: six minutes ahead of the clock`);
      assert.is(ahead.field, `actions.0.record.${field}`, where);
      assert.is(ahead.message, `${field} is in the future; only what has happened is recorded`, where);
      // Noon of the athlete's today, where that is still to come: dated today, and the future.
      const noon = at(c.now, 12 * 60);
      if (localDate(noon, c.zone) === c.today) {
        laterToday++;
        const later = refused(() => prepare(c.zone, c.now, action(noon)), `${where}: ${noon}, later on the athlete's today`);
        assert.is(later.field, `actions.0.record.${field}`, `${where}: ${noon} is later today, and the future`);
      }
    }
  }
  assert.ok(laterToday >= 15, `${laterToday} instants later on the athlete's today were tried`);
});

/** The local date of an instant in a zone, by Intl (not the code under test). */
const localDate = (iso: string, zone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));

test.run();
