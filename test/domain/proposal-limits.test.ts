// A connection's pending work, bounded, decided purely on the proposals of the record stream:
// given the proposals a connection (and others) prepared, when it prepares another, then it is
// refused while it has as many awaiting review as it may, or while its proposals of the last 24
// hours would store more bytes than it may, each with the seconds until that is no longer so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_POLICY } from '../../contracts/policy.ts';
import type { WriteProposalBody } from '../../contracts/write.ts';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { operations } from '../../contracts/operations.ts';
import fc from 'fast-check';
import { CLOCK_SKEW_MS } from '../../services/domain/clock.ts';
import type { RecordStreamEvent } from '../../contracts/events.ts';
import {
  bodyDigest,
  evolveProposals,
  POLICY_LIMITS,
  refuseOverBytes,
  refuseOverPending,
  WriteRefusal,
  ProposalState,
  type PrepareCommand,
} from '../../services/domain/proposal.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { prepareDecider, sealedOf } from '../support/deciders.ts';
import { thrown } from '../support/thrown.ts';

const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const GRANT = uid(0x90);
const OTHER = uid(0x91);
const NOW = new Date('2026-06-01T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

const meal = {
  op: 'create',
  kind: 'meal',
  record: { eaten_at: '2026-06-01T08:00:00.000Z', name: 'Oats', calories_kcal: 300, protein_g: null, carbohydrate_g: null, fat_g: null },
};
const body = (n: number) => ({ version: 'agent-access-write.v1', command_id: uid(0x500 + n), actions: [meal] }) as WriteProposalBody;

interface Prepared {
  n: number;
  grant?: string;
  /** When, from NOW. */
  preparedAt: number;
  /** How long its sealed details are. */
  bytes?: number;
  decided?: 'proposal.rejected' | 'proposal.committed';
}

/**
 * Given: the events of proposals prepared by these connections, at these times, of these sizes,
 * and what became of them. Only what the limits read is real: a commit's receipt is left empty.
 */
function history(...proposals: Prepared[]): RecordStreamEvent[] {
  return proposals.flatMap((p): RecordStreamEvent[] => {
    const prepared = at(p.preparedAt);
    const data = {
      command_id: body(p.n).command_id,
      grant_id: p.grant ?? GRANT,
      client_id: 'client',
      client_name: 'Coach',
      body_sha256: bodyDigest(body(p.n)),
      prepared_at: prepared.toISOString(),
      expires_at: new Date(prepared.getTime() + WRITE_POLICY.proposalExpiryMinutes * MINUTE).toISOString(),
      changes: [{ index: 0, op: 'create' as const, kind: 'meal' as const, id: uid(0x1000 + p.n), area: 'nutrition' as const, base_revision: null }],
      dependencies: [],
      details: sealedOf(p.bytes ?? 100),
    };
    const decidedAt = prepared.toISOString();
    const decision: RecordStreamEvent[] =
      p.decided === 'proposal.rejected'
        ? [{ type: 'proposal.rejected', data: { command_id: data.command_id, rejected_at: decidedAt } }]
        : p.decided === 'proposal.committed'
          ? [{ type: 'proposal.committed', data: { command_id: data.command_id, committed_at: decidedAt, changes: [], affected: [], undo: sealedOf() } }]
          : [];
    return [{ type: 'proposal.prepared', data }, ...decision];
  });
}

/** Given: the proposals those events make, as the record's fold keeps them. */
function given(...proposals: Prepared[]): ProposalState {
  const state = new ProposalState();
  for (const event of history(...proposals)) evolveProposals(state, event);
  return state;
}

/** The proposal decider, specified on the record stream: given proposals' events, when one more is prepared. */
const prepare = DeciderSpecification.for(prepareDecider({ athleteId: uid(0xa7), occurredAt: NOW.toISOString() }));

function command(n: number, now = NOW): PrepareCommand {
  return {
    body: body(n),
    caller: { grantId: GRANT, clientId: 'client', clientName: 'Coach', scopes: ['nutrition'], writePermissions: WRITE_PERMISSIONS },
    now,
    timezone: 'Europe/London',
    newId: () => uid(0x1000 + n),
  };
}

const refusal = (run: () => unknown): WriteRefusal => thrown(WriteRefusal, run);

const tenPending = () => Array.from({ length: WRITE_POLICY.pendingProposalsPerConnection }, (_, i) => ({ n: i, preparedAt: -(20 - i) * MINUTE }));

test('given 9 awaiting review, with others expired, decided or of another connection, when one more is prepared, then it is prepared', () => {
  prepare
    .given(
      ...history(
        ...tenPending().slice(1),
        { n: 20, preparedAt: -31 * MINUTE },
        { n: 21, preparedAt: -5 * MINUTE, decided: 'proposal.rejected' },
        { n: 22, preparedAt: -5 * MINUTE, decided: 'proposal.committed' },
        ...Array.from({ length: 10 }, (_, i) => ({ n: 30 + i, grant: OTHER, preparedAt: -MINUTE })),
      ),
    )
    .when(command(99))
    .then((d) => assert.is(d.outcome, 'prepared'));
});

test('given 10 awaiting review, when one more is prepared, then it is refused until the soonest expires, and a replay of one of them still answers', () => {
  const ten = prepare.given(...history(...tenPending()));
  const refused = ten.when(command(99)).thenRefuses('pending_limit');
  // The first was prepared 20 minutes ago: it expires in 10.
  assert.is(refused.retryAfter, 10 * 60);
  assert.match(refused.message, '10 proposals awaiting');
  ten.when(command(3)).then({ outcome: 'replay', command_id: body(3).command_id });
  // A second before the soonest expires it is still refused, with 1 second to wait; at its expiry it is prepared.
  const justBefore = at(10 * MINUTE - 1000);
  assert.is(ten.when(command(99, justBefore)).thenRefuses('pending_limit').retryAfter, 1);
  assert.is(ten.when(command(99, at(10 * MINUTE - 1500))).thenRefuses('pending_limit').retryAfter, 2, 'a part of a second is a whole one');
  assert.is(ten.when(command(99, at(10 * MINUTE - 1))).thenRefuses('pending_limit').retryAfter, 1, 'and never 0');
  ten.when(command(99, at(10 * MINUTE))).then((d) => assert.is(d.outcome, 'prepared'));
  // The athlete rejecting one makes room at once.
  const rejected: RecordStreamEvent = { type: 'proposal.rejected', data: { command_id: body(5).command_id, rejected_at: NOW.toISOString() } };
  prepare
    .given(...history(...tenPending()), rejected)
    .when(command(99))
    .then((d) => assert.is(d.outcome, 'prepared'));
});

test("the bytes of a connection's last 24 hours: up to the limit exactly is allowed; beyond, refused until enough of the oldest leave the window", () => {
  const limit = POLICY_LIMITS.proposalBytesPerDay;
  const quarter = limit / 4;
  const proposals = given(
    // Outside the window (exactly 24 hours ago) and of another connection: not counted.
    { n: 1, preparedAt: -24 * HOUR, bytes: limit },
    { n: 2, grant: OTHER, preparedAt: -HOUR, bytes: limit },
    // Rejected or committed, the log keeps them: counted.
    { n: 3, preparedAt: -23 * HOUR, bytes: quarter, decided: 'proposal.rejected' },
    { n: 4, preparedAt: -22 * HOUR, bytes: quarter, decided: 'proposal.committed' },
    { n: 5, preparedAt: -2 * HOUR, bytes: quarter },
  );
  refuseOverBytes(proposals, GRANT, NOW, quarter, POLICY_LIMITS);
  const over = refusal(() => refuseOverBytes(proposals, GRANT, NOW, quarter + 1, POLICY_LIMITS));
  assert.is(over.reason, 'bytes_limit');
  // One byte over: the oldest in the window (23 hours ago) leaving makes room, in an hour.
  assert.is(over.retryAfter, 3600);
  // Half the limit more: the two oldest must leave, the second in two hours.
  assert.is(refusal(() => refuseOverBytes(proposals, GRANT, NOW, limit / 2 + 1, POLICY_LIMITS)).retryAfter, 2 * 3600);
  // And once the oldest has left, it fits.
  refuseOverBytes(proposals, GRANT, at(HOUR), quarter + 1, POLICY_LIMITS);
  assert.is(refusal(() => refuseOverBytes(proposals, GRANT, at(HOUR - 1), quarter + 1, POLICY_LIMITS)).retryAfter, 1);
});

test("the limits are WRITE_POLICY's, and the bytes limit holds the largest proposal a body can make several times over", () => {
  assert.equal(POLICY_LIMITS, { pendingProposals: 10, proposalBytesPerDay: 4 * 1024 * 1024 });
  // A body at its limit, sealed and base64-encoded (4/3), with room for the ids the server adds.
  assert.ok(POLICY_LIMITS.proposalBytesPerDay > (4 * (operations.prepare_write_proposal.bodyLimit! * 4)) / 3);
});

test('given 10 prepared, when checked minutes later and then by a clock 3 minutes behind (within the skew), then the second check still counts the ones it sees pending', () => {
  const proposals = given(...tenPending().map((p, i) => ({ ...p, preparedAt: i * MINUTE })), { n: 50, preparedAt: 33 * MINUTE });
  // A check at 33 minutes: the first four have expired by then; nine are pending (the one "at 33" too).
  assert.not.throws(() => refuseOverPending(proposals, GRANT, at(33 * MINUTE), POLICY_LIMITS));
  // At 30 minutes the first has just expired; the next nine, and the one prepared "at 33", are pending.
  const refused = refusal(() => refuseOverPending(proposals, GRANT, at(30 * MINUTE), POLICY_LIMITS));
  assert.is(refused.reason, 'pending_limit');
  assert.is(refused.retryAfter, 60);
});

/** What the limits answer for `grant` at `now`: nothing, or the refusal's reason, words and wait. */
function limitsOf(proposals: ProposalState, grant: string, now: Date, bytes: number) {
  const limits = { pendingProposals: 3, proposalBytesPerDay: 1000 };
  const answer = (run: () => void) => {
    try {
      run();
      return null;
    } catch (error) {
      const r = error as WriteRefusal;
      return { reason: r.reason, message: r.message, retryAfter: r.retryAfter };
    }
  };
  return [answer(() => refuseOverPending(proposals, grant, now, limits)), answer(() => refuseOverBytes(proposals, grant, now, bytes, limits))];
}

test("the limits read off each connection's kept lists answer as from every proposal the record holds, whatever checks came before (each no later than the next plus the clock skew)", () => {
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('prepare' as const),
      grant: fc.constantFrom(GRANT, OTHER),
      // Mostly minutes apart, sometimes hours; by instances whose clocks differ by a few minutes.
      advance: fc.oneof(fc.integer({ min: 0, max: 12 * MINUTE }), fc.integer({ min: 0, max: 10 * HOUR })),
      jitter: fc.integer({ min: -4 * MINUTE, max: 4 * MINUTE }),
      bytes: fc.integer({ min: 1, max: 400 }),
      decided: fc.constantFrom(null, 'proposal.rejected' as const, 'proposal.committed' as const, 'proposal.expired' as const),
    }),
    fc.record({
      kind: fc.constant('check' as const),
      advance: fc.oneof(fc.integer({ min: 0, max: 40 * MINUTE }), fc.integer({ min: 0, max: 2 * 24 * HOUR })),
      // A check's clock may be behind the others' by up to the skew allowed.
      jitter: fc.integer({ min: -CLOCK_SKEW_MS, max: 0 }),
      bytes: fc.integer({ min: 1, max: 600 }),
    }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const kept = new ProposalState();
      let clock = 0;
      steps.forEach((x, n) => {
        clock += x.advance;
        if (x.kind === 'prepare') {
          const prepared = at(clock + x.jitter);
          const data = {
            command_id: uid(0x3000 + n),
            grant_id: x.grant,
            body_sha256: 'd',
            prepared_at: prepared.toISOString(),
            expires_at: new Date(prepared.getTime() + WRITE_POLICY.proposalExpiryMinutes * MINUTE).toISOString(),
            details: { key_id: uid(0x77), iv: '', tag: '', ciphertext: 'x'.repeat(x.bytes) },
          };
          evolveProposals(kept, { type: 'proposal.prepared', data });
          if (x.decided) evolveProposals(kept, { type: x.decided, data: { command_id: data.command_id } });
          return;
        }
        // Every proposal, as a record without kept lists would walk them.
        const all = [...kept.values()];
        const everything = {
          openOf: (g: string) => all.filter((p) => p.grant_id === g && p.status === 'prepared'),
          recentOf: (g: string) => all.filter((p) => p.grant_id === g),
        } as unknown as ProposalState;
        const now = at(clock + x.jitter);
        for (const grant of [GRANT, OTHER]) assert.equal(limitsOf(kept, grant, now, x.bytes), limitsOf(everything, grant, now, x.bytes), `check ${n}`);
      });
    }),
    { numRuns: 2000 },
  );
});

test('a connection with 20,000 proposals: a check reads only the day before it', () => {
  const proposals = new ProposalState();
  for (let n = 0; n < 20_000; n++) {
    const prepared = at(n * 5 * MINUTE);
    evolveProposals(proposals, {
      type: 'proposal.prepared',
      data: {
        command_id: uid(0x10000 + n),
        grant_id: GRANT,
        body_sha256: 'd',
        prepared_at: prepared.toISOString(),
        expires_at: new Date(prepared.getTime() + 30 * MINUTE).toISOString(),
        details: { key_id: uid(0x77), iv: '', tag: '', ciphertext: 'x' },
      },
    });
    if (n % 2 === 0) evolveProposals(proposals, { type: 'proposal.committed', data: { command_id: uid(0x10000 + n) } });
  }
  assert.is(proposals.size, 20_000);
  // A day of prepares every 5 minutes, and the clock skew's worth more.
  const now = at(20_000 * 5 * MINUTE);
  assert.ok(proposals.recentOf(GRANT, now).length <= (24 * 60 + CLOCK_SKEW_MS / MINUTE) / 5 + 1, String(proposals.recentOf(GRANT, now).length));
  assert.ok(proposals.openOf(GRANT, now).length <= 10, String(proposals.openOf(GRANT, now).length));
});

test.run();
