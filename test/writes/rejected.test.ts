// A rejected proposal keeps the instant the athlete rejected it: the agent reads it as decided_at
// (get_write_proposal over REST), the athlete's review page says when, and both read the same after
// the read models are rebuilt from the log. The clock moves on between the moves, so decided_at
// can be neither the preparation, nor the expiry, nor the moment of reading.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { signedInClient } from '../support/web-record.ts';
import { proposalBody, seedRecord, writer } from '../support/writes.ts';

const PREPARED = '2026-06-01T12:00:00.000Z';
const REJECTED = '2026-06-01T12:03:00.000Z';
/** The rejection in the athlete's zone (Europe/London, summer time), as the page writes it. */
const REJECTED_ON_PAGE = 'Rejected</strong> 1 Jun 2026, 13:03. Nothing was saved.';
const READ = '2026-06-01T12:05:00.000Z';

test('a rejected proposal reads decided_at = when it was rejected: over REST, on its page, and after a replay', async () => {
  const clock = fixedClock(PREPARED);
  const s = await startServer({ clock });
  try {
    const athleteId = await registerPro(s.app);
    await seedRecord(s.app, athleteId);
    const { api } = await writer(s, athleteId, ['training', 'recovery', 'nutrition', 'body_measurements'], [...WRITE_PERMISSIONS]);
    const body = proposalBody([
      {
        op: 'create',
        kind: 'meal',
        record: { eaten_at: '2026-06-01T11:00:00.000Z', name: 'Toast', calories_kcal: 200, protein_g: null, carbohydrate_g: null, fat_g: null },
      },
    ]);
    const prepared = await api.prepare(body);
    assert.is(prepared.status, 201, JSON.stringify(prepared.body));
    assert.is(prepared.body.data.proposal.decided_at, null, 'not decided yet');

    clock.set(REJECTED);
    assert.is((await s.app.proposals.reject(athleteId, body.command_id)).outcome, 'rejected');
    clock.set(READ);
    const page = await signedInClient(s.base, 'ada@example.com');

    const read = async (when: string) => {
      const answer = await api.proposal(body.command_id);
      assert.is(answer.status, 200, `${when}: ${JSON.stringify(answer.body)}`);
      const proposal = answer.body.data.proposal as { status: string; prepared_at: string; decided_at: string | null };
      assert.is(proposal.status, 'rejected', when);
      assert.is(proposal.prepared_at, PREPARED, when);
      assert.is(proposal.decided_at, REJECTED, `${when}: get_write_proposal's decided_at is the rejection`);

      const review = await page.get(`/proposals/${body.command_id}`);
      assert.is(review.status, 200, `${when}: the review page answered ${review.status}`);
      assert.ok(
        review.text.includes(REJECTED_ON_PAGE),
        `${when}: the review page says "${REJECTED_ON_PAGE}": ${/<div class="notice[^"]*"[^>]*>.*?<\/div>/s.exec(review.text)?.[0] ?? review.text.slice(0, 400)}`,
      );
    };

    await read('as projected');
    await s.app.runner.replay();
    await read('after a replay of the projections');
  } finally {
    await s.close();
  }
});

test.run();
