// Write proposals from an agent's side: a small record to propose changes to, a connection with
// the permissions a test names, and the four write operations over REST.
import { randomUUID } from 'node:crypto';
import { writeProposalBody, type WriteProposalBody } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS, type WritePermission } from '../../contracts/write-permissions.ts';
import type { Caller } from '../../services/identity/caller.ts';
import type { App } from '../../services/app.ts';
import { connect } from './connect.ts';
import { workoutSet } from './sets.ts';
import type { TestServer } from './server.ts';

const actor = { type: 'athlete', id: 'test' } as const;

export interface Seeded {
  exerciseId: string;
  workoutId: string;
  checkinId: string;
  mealId: string;
  checkinDate: string;
}

/** An exercise, a workout with feedback, yesterday's check-in and a meal, each at revision 1. */
export async function seedRecord(app: App, athleteId: string): Promise<Seeded> {
  const now = app.clock.now().getTime();
  const ago = (h: number) => new Date(now - h * 3_600_000).toISOString();
  const ids = { exerciseId: randomUUID(), workoutId: randomUUID(), checkinId: randomUUID(), mealId: randomUUID() };
  const checkinDate = ago(48).slice(0, 10);
  await app.records.change(
    athleteId,
    [
      { op: 'create', kind: 'exercise', item: { id: ids.exerciseId, name: 'Back Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } },
      {
        op: 'create',
        kind: 'workout',
        item: {
          id: ids.workoutId,
          title: 'Leg day',
          started_at: ago(27),
          ended_at: ago(26),
          notes: null,
          source: null,
          exercises: [{ exercise_id: ids.exerciseId, exercise_order: 0, superset_id: null, notes: null, sets: [workoutSet(0, { weight_kg: 100, reps: 5 })] }],
        },
      },
      { op: 'create', kind: 'feedback', item: { id: ids.workoutId, difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: ago(26) } },
      { op: 'create', kind: 'checkin', item: { id: ids.checkinId, date: checkinDate, sleep_quality: 3, energy: 3, soreness: 4, stress: 2 } },
      { op: 'create', kind: 'meal', item: { id: ids.mealId, eaten_at: ago(5), name: 'Oats', calories_kcal: 350, protein_g: 12, carbohydrate_g: 60, fat_g: 7 } },
    ],
    actor,
  );
  return { ...ids, checkinDate };
}

/**
 * A caller as Agent Access would identify it, for calling the proposal service directly: the
 * athlete's account (without its password hash) and a connection that reads and may propose
 * whatever the test says (by default everything).
 */
export async function agentCaller(app: App, athleteId: string, over: Partial<Pick<Caller, 'scopes' | 'writePermissions' | 'grantId'>> = {}): Promise<Caller> {
  const { password_hash: _hash, ...athlete } = (await app.athletes.get(athleteId))!;
  return {
    athlete,
    grantId: randomUUID(),
    clientId: 'https://agent.example/client.json',
    clientName: 'Agent',
    scopes: ['training', 'recovery', 'nutrition', 'body_measurements'],
    writePermissions: WRITE_PERMISSIONS,
    ...over,
  };
}

/** A connection over REST reading `areas`, holding `permissions`; returns its token and grant id. */
export async function writer(s: TestServer, athleteId: string, areas: string[], permissions: WritePermission[], email = 'ada@example.com') {
  const before = new Set((await s.app.connections.list(athleteId)).map((c) => c.id));
  const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, areas, 'training recovery nutrition body_measurements', email);
  const grantId = (await s.app.connections.list(athleteId)).find((c) => !before.has(c.id))!.id;
  if (permissions.length) await s.app.connections.setWritePermissions(athleteId, grantId, permissions, { onlyRemove: false });
  return { token: tokens.access_token, grantId, api: restWrites(s.base, tokens.access_token) };
}

export interface Answer {
  status: number;
  headers: Headers;
  /** `any`: JSON of many shapes, and each test asserts the fields it reads. */
  // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, asserted field by field
  body: Record<string, any>;
}

/** The write operations over REST with one token. */
export function restWrites(base: string, token: string) {
  const call = async (method: string, path: string, body?: unknown, raw?: string): Promise<Answer> => {
    const res = await fetch(`${base}/v1/agent-access${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    context: () => call('GET', '/writes/context'),
    record: (kind: string, id: string) => call('GET', `/writes/records?kind=${kind}&id=${id}`),
    /** get_write_record with any query: a check-in by date, the fitness preferences by kind alone. */
    recordBy: (query: Record<string, string>) => call('GET', `/writes/records?${new URLSearchParams(query)}`),
    prepare: (body: unknown) => call('POST', '/writes/proposals', body),
    prepareRaw: (raw: string) => call('POST', '/writes/proposals', undefined, raw),
    proposal: (commandId: string) => call('GET', `/writes/proposals?command_id=${commandId}`),
  };
}

export const proposalBody = (actions: unknown[], commandId: string = randomUUID()) => ({ version: 'agent-access-write.v1', command_id: commandId, actions });

/** A body that must be valid, parsed as the operation parses it: for calling the service directly. */
export const validBody = (actions: unknown[], commandId: string = randomUUID()): WriteProposalBody => writeProposalBody.parse(proposalBody(actions, commandId));
