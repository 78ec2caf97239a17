// A store with a real proposal history, made in-process with the services, for the operators' and
// auditors' CLI tests to read from another process: two athletes; Ada's agent creates a meal
// (approved, then undone), deletes another (approved), proposes one more (rejected) and one left
// awaiting review; Grace's agent creates a meal (approved).
import { openTestApp, registerAthlete } from './app.ts';
import { agentCaller, seedRecord, validBody } from './writes.ts';

export interface AuditStore {
  dataDir: string;
  ada: string;
  grace: string;
  /** Ada's proposals by what became of them. */
  undone: string;
  committed: string;
  rejected: string;
  pending: string;
  /** Grace's committed one. */
  graceCommitted: string;
}

export async function auditStore(): Promise<AuditStore> {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  const { app, clock } = t;
  const minutes = (m: number) => clock.set(new Date(Date.parse('2026-06-01T12:00:00.000Z') + m * 60_000).toISOString());
  const meal = (name: string) => ({
    op: 'create',
    kind: 'meal',
    record: { eaten_at: new Date(clock.now().getTime() - 3_600_000).toISOString(), name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
  });
  try {
    const ada = await registerAthlete(app, { email: 'ada@example.com' });
    const seeded = await seedRecord(app, ada);
    const caller = await agentCaller(app, ada);
    const undone = validBody([meal('Lentil soup')]);
    await app.proposals.prepare(caller, undone);
    minutes(1);
    await app.proposals.approve(ada, undone.command_id);
    minutes(2);
    await app.proposals.undo(ada, undone.command_id);
    minutes(3);
    const committed = validBody([{ op: 'delete', kind: 'meal', id: seeded.mealId, base_revision: 1 }]);
    await app.proposals.prepare(caller, committed);
    minutes(4);
    await app.proposals.approve(ada, committed.command_id);
    minutes(5);
    const rejected = validBody([meal('Chips')]);
    await app.proposals.prepare(caller, rejected);
    minutes(6);
    await app.proposals.reject(ada, rejected.command_id);
    minutes(7);
    const pending = validBody([meal('Porridge')]);
    await app.proposals.prepare(caller, pending);

    minutes(8);
    const grace = await registerAthlete(app, { email: 'grace@example.com' });
    const graceCaller = { ...(await agentCaller(app, grace)), clientId: 'https://other.example/client.json', clientName: 'Other agent' };
    const graceCommitted = validBody([meal('Rice')]);
    await app.proposals.prepare(graceCaller, graceCommitted);
    minutes(9);
    await app.proposals.approve(grace, graceCommitted.command_id);
    return {
      dataDir: t.dataDir,
      ada,
      grace,
      undone: undone.command_id,
      committed: committed.command_id,
      rejected: rejected.command_id,
      pending: pending.command_id,
      graceCommitted: graceCommitted.command_id,
    };
  } finally {
    await app.close();
  }
}
