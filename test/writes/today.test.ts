// The proposal service counts "today" in the athlete's own zone, on the app's clock: what
// get_write_context tells the agent (today, the last date that can be scheduled) and what prepare
// accepts (a check-in dated today, a routine up to the horizon) agree, for an athlete ahead of UTC
// (Kiritimati, UTC+14) and one behind it (Adak, UTC-9 in June), each on a side of midnight where
// their date is not UTC's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import { WriteRefusal } from '../../services/domain/proposal.ts';
import { addDays } from '../../services/domain/time.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { agentCaller, validBody } from '../support/writes.ts';

const HORIZON = WRITE_POLICY.schedulingHorizonDays;

const ATHLETES = [
  { zone: 'Pacific/Kiritimati', now: '2026-06-01T10:30:00.000Z', today: '2026-06-02', email: 'kiri@example.com' },
  { zone: 'America/Adak', now: '2026-06-01T08:30:00.000Z', today: '2026-05-31', email: 'adak@example.com' },
];

async function refusal(work: Promise<unknown>, what: string): Promise<WriteRefusal> {
  try {
    await work;
  } catch (error) {
    if (error instanceof WriteRefusal) return error;
    throw error;
  }
  assert.unreachable(`accepted ${what}`);
  throw new Error('unreachable');
}

/** What `work` answers; a refusal fails the test with its words. */
async function accepted<T>(work: Promise<T>, what: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof WriteRefusal) assert.unreachable(`refused ${what}: ${error.message}`);
    throw error;
  }
}

test("get_write_context's today and horizon, and prepare's check-in and schedule rules, are the athlete's local date", async () => {
  const t = await openTestApp();
  try {
    for (const a of ATHLETES) {
      assert.is.not(a.now.slice(0, 10), a.today, 'a case where the local date is not UTC’s');
      t.clock.set(a.now);
      const athleteId = await registerAthlete(t.app, { email: a.email, timezone: a.zone });
      const caller = await agentCaller(t.app, athleteId);
      const last = addDays(a.today, HORIZON);

      const context = await t.app.proposals.context(caller);
      assert.equal(context.record, { timezone: a.zone, today: a.today, latest_scheduling_date: last }, `${a.zone} at ${a.now}`);

      const checkin = (date: string) =>
        validBody([{ op: 'create', kind: 'recovery_checkin', record: { date, sleep_quality: 4, energy: 3, soreness: 2, stress: 2 } }]);
      const routine = (...dates: string[]) =>
        validBody([{ op: 'create', kind: 'saved_routine', record: { title: 'Plan', exercises: [], scheduled_dates: dates } }]);

      const today = await accepted(t.app.proposals.prepare(caller, checkin(a.today)), `${a.zone}: a check-in dated today (${a.today})`);
      assert.is(today.status, 'prepared');
      const tomorrow = addDays(a.today, 1);
      const future = await refusal(t.app.proposals.prepare(caller, checkin(tomorrow)), `${a.zone}: a check-in dated ${tomorrow}, after today (${a.today})`);
      assert.is(future.message, `${tomorrow} is after today (${a.today} in ${a.zone})`);

      const plan = await accepted(t.app.proposals.prepare(caller, routine(a.today, last)), `${a.zone}: a routine from today (${a.today}) to ${last}`);
      assert.is(plan.status, 'prepared');
      const past = await refusal(
        t.app.proposals.prepare(caller, routine(addDays(a.today, -1))),
        `${a.zone}: a routine scheduled the day before today (${a.today})`,
      );
      assert.is(past.reason, 'beyond_horizon');
      const beyond = await refusal(t.app.proposals.prepare(caller, routine(addDays(last, 1))), `${a.zone}: a routine scheduled the day after ${last}`);
      assert.is(beyond.reason, 'beyond_horizon');
      assert.match(beyond.message, `the last date that can be scheduled is ${last} (${a.zone})`);
    }
  } finally {
    await t.close();
  }
});

test.run();
