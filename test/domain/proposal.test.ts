// The proposal decider, pure: given a record and its proposals, when an agent's batch is
// prepared, then a proposal (normalised actions, summaries, dependencies) or a refusal naming the
// action and field. Nothing here touches a store.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WriteProposalBody } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { bodyDigest, canonicalJson, statusAt, type PrepareCommand } from '../../services/domain/proposal.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { created, prepareDecider, preparedEvent, preparedProposal } from '../support/deciders.ts';
import { workoutSet } from '../support/sets.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const ATHLETE = uid(0xa7);
const SQUAT = uid(1);
const WORKOUT = uid(2);
const MEAL = uid(3);
const GRANT = uid(0x90);
const NOW = new Date('2026-06-01T12:00:00.000Z');

const set = workoutSet(0, { weight_kg: 100, reps: 5 });
const oats = { eaten_at: '2026-06-01T07:00:00.000Z', name: 'Oats', calories_kcal: 350, protein_g: 12, carbohydrate_g: null, fat_g: null };

/** The proposal decider, specified on the record stream: given its events (each occurred at NOW), when a batch is prepared. */
const prepare = DeciderSpecification.for(prepareDecider({ athleteId: ATHLETE, occurredAt: NOW.toISOString() }));

/** An exercise, a workout with feedback that uses it, and a meal, each at revision 1. */
const STANDARD = [
  created('exercise', { id: SQUAT, name: 'Back Squat', muscle_group: 'legs', tracking_type: 'weight_reps' }),
  created('workout', {
    id: WORKOUT,
    title: 'Leg day',
    started_at: null,
    ended_at: '2026-05-31T18:00:00.000Z',
    notes: null,
    source: null,
    exercises: [{ exercise_id: SQUAT, exercise_order: 0, superset_id: null, notes: null, sets: [set] }],
  }),
  created('feedback', { id: WORKOUT, difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: '2026-05-31T18:05:00.000Z' }),
  created('meal', { id: MEAL, ...oats }),
];

let ids = 0;
function command(actions: unknown[], overrides: Partial<PrepareCommand> = {}): PrepareCommand {
  return {
    body: { version: 'agent-access-write.v1', command_id: uid(0x500), actions } as WriteProposalBody,
    caller: {
      grantId: GRANT,
      clientId: 'client',
      clientName: 'Coach',
      scopes: ['training', 'recovery', 'nutrition', 'body_measurements'],
      writePermissions: WRITE_PERMISSIONS,
    },
    now: NOW,
    timezone: 'Europe/London',
    newId: () => uid(0x1000 + ++ids),
    ...overrides,
  };
}

test('given an exercise, when a batch creates an exercise by ref and a workout using both, then ids are assigned, the ref resolved, and the existing exercise is a dependency at its revision', () => {
  prepare
    .given(...STANDARD)
    .when(
      command([
        { op: 'create', kind: 'exercise', ref: 'lm', record: { name: 'Landmine Press', muscle_group: null, tracking_type: 'weight_reps' } },
        {
          op: 'create',
          kind: 'completed_workout',
          record: {
            title: 'Push',
            started_at: null,
            ended_at: '2026-06-01T10:00:00.000Z',
            notes: null,
            exercises: [
              { exercise_id: { ref: 'lm' }, exercise_order: 0, superset_id: null, notes: null, sets: [set] },
              { exercise_id: SQUAT, exercise_order: 1, superset_id: null, notes: null, sets: [set] },
            ],
          },
        },
      ]),
    )
    .then((decision) => {
      assert.is(decision.outcome, 'prepared');
      if (decision.outcome !== 'prepared') return;
      const [exercise, workout] = decision.proposal.actions;
      assert.is((workout!.record as { exercises: Array<{ exercise_id: string }> }).exercises[0]!.exercise_id, exercise!.id);
      assert.equal(decision.proposal.dependencies, [{ kind: 'exercise', id: SQUAT, revision: 1 }]);
      assert.is(decision.proposal.expires_at, '2026-06-01T12:30:00.000Z');
      assert.match(decision.proposal.changes[1]!.summary!, 'using exercises added in this proposal');
    });
});

test('given a workout with feedback, when it is deleted, then the summary says the feedback goes with it', () => {
  prepare
    .given(...STANDARD)
    .when(command([{ op: 'delete', kind: 'completed_workout', id: WORKOUT, base_revision: 1 }]))
    .then((decision) => {
      assert.is(decision.outcome === 'prepared' && decision.proposal.changes[0]!.summary, 'Delete completed workout "Leg day", with its feedback');
    });
});

test('given a meal, when it is updated, then the summary names only the fields that change, before and after', () => {
  prepare
    .given(...STANDARD)
    .when(command([{ op: 'update', kind: 'meal', id: MEAL, base_revision: 1, record: { ...oats, calories_kcal: 400, fat_g: 9 } }]))
    .then((decision) => {
      assert.is(decision.outcome === 'prepared' && decision.proposal.changes[0]!.summary, 'Change meal "Oats": calories_kcal 350 → 400, fat_g none → 9');
    });
});

test('given a proposal of this connection, when the same body comes again, then it is a replay; another body is refused; another connection is refused without details', () => {
  const c = command([{ op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 }]);
  const mine = preparedEvent(
    preparedProposal(
      prepare
        .given(...STANDARD)
        .when(c)
        .then((d) => assert.is(d.outcome, 'prepared')),
    ),
  );
  const withIt = prepare.given(...STANDARD, mine);
  withIt.when(c).then({ outcome: 'replay', command_id: c.body.command_id });
  const other = withIt.when(command([{ op: 'create', kind: 'meal', record: oats }])).thenRefuses('command_id_reused');
  assert.match(other.message, 'prepared at 2026-06-01T12:00:00.000Z');
  const foreign = withIt.when({ ...c, caller: { ...c.caller, grantId: uid(0x91) } }).thenRefuses('command_id_taken');
  assert.not.match(foreign.message, '2026');
});

test("given a record, when the record decider refuses a batch, then the refusal is told in the body's terms: the action index and the field", () => {
  const record = prepare.given(...STANDARD);
  const stale = record
    .when(
      command([
        { op: 'create', kind: 'meal', record: oats },
        { op: 'delete', kind: 'meal', id: MEAL, base_revision: 3 },
      ]),
    )
    .thenRefuses('stale_revision');
  assert.equal([stale.reason, stale.actionIndex, stale.field], ['stale_revision', 1, 'actions.1.base_revision']);
  const rule = record
    .when(
      command([
        {
          op: 'create',
          kind: 'completed_workout',
          record: { title: 'x', started_at: '2026-06-01T11:00:00.000Z', ended_at: '2026-06-01T10:00:00.000Z', notes: null, exercises: [] },
        },
      ]),
    )
    .thenRefuses('invalid_action');
  assert.equal([rule.reason, rule.field], ['invalid_action', 'actions.0.record.started_at']);
  const missing = record
    .when(
      command([
        {
          op: 'create',
          kind: 'saved_routine',
          record: {
            title: 'x',
            exercises: [{ position: 0, exercise_id: uid(0x999), sets: 3, reps: '5', target_rpe: null, rest_seconds: null }],
            scheduled_dates: [],
          },
        },
      ]),
    )
    .thenRefuses('invalid_action');
  assert.equal([missing.field], ['actions.0.record.exercises.0.exercise_id']);
  const permission = record
    .when(command([{ op: 'delete', kind: 'meal', id: MEAL, base_revision: 1 }], { caller: { ...command([]).caller, writePermissions: ['nutrition:write'] } }))
    .thenRefuses('write_permission_missing');
  assert.equal([permission.reason, permission.missingPermissions], ['write_permission_missing', ['nutrition:delete']]);
});

test('statusAt: a prepared proposal is expired from its expiry instant on, whatever is written', () => {
  const entry = { status: 'prepared' as const, expires_at: '2026-06-01T12:30:00.000Z' };
  assert.is(statusAt(entry, new Date('2026-06-01T12:29:59.999Z')), 'prepared');
  assert.is(statusAt(entry, new Date('2026-06-01T12:30:00.000Z')), 'expired');
  assert.is(statusAt({ ...entry, status: 'committed' }, new Date('2027-01-01T00:00:00.000Z')), 'committed');
});

test('bodyDigest: key order does not matter, any value does', () => {
  assert.is(bodyDigest({ a: 1, b: [{ c: 2, d: null }] }), bodyDigest({ b: [{ d: null, c: 2 }], a: 1 }));
  assert.is.not(bodyDigest({ a: 1 }), bodyDigest({ a: 2 }));
  assert.is.not(bodyDigest({ a: [1, 2] }), bodyDigest({ a: [2, 1] }));
});

/** canonicalJson as first written, which every stored receipt link was hashed with. */
function canonicalJsonAsFirstWritten(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJsonAsFirstWritten).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJsonAsFirstWritten(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

test('property: canonicalJson writes what it first wrote, so that links hashed before still verify', () => {
  const key = fc.string({ unit: 'binary', maxLength: 6 });
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, false, undefined, 0, -0, 1.5e300, Number.NaN),
      fc.double(),
      fc.string({ unit: 'binary' }),
      fc.array(tie('value')),
      fc.dictionary(key, tie('value')),
    ),
  }));
  fc.assert(
    fc.property(value, (v) => {
      assert.is(canonicalJson(v), canonicalJsonAsFirstWritten(v));
    }),
    { numRuns: 2000 },
  );
});

test.run();
