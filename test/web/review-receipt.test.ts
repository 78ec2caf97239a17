// The receipt the athlete's review page and get_write_proposal show is the event log's (issue 39):
// with the proposals read model's copy edited behind the app's back, one byte at a time, both still
// show the receipt as the log holds it, the same as before the edit; so they do when the document
// names a revision that is not the proposal's commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';
import { tempDir } from '../support/app.ts';
import { registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';
import { oneByte, tamperProposalDoc } from '../support/tamper.ts';
import { signedInClient } from '../support/web-record.ts';
import { proposalBody, writer } from '../support/writes.ts';

test("the review page and get_write_proposal show the log's receipt, whatever the read model's copy says", async () => {
  const dataDir = tempDir();
  const s = await startServer({ dataDir });
  try {
    const athleteId = await registerPro(s.app);
    const { api } = await writer(s, athleteId, ['nutrition'], [...WRITE_PERMISSIONS]);
    const body = proposalBody([
      {
        op: 'create',
        kind: 'meal',
        record: {
          eaten_at: new Date(Date.now() - 3_600_000).toISOString(),
          name: 'Toast',
          calories_kcal: 200,
          protein_g: null,
          carbohydrate_g: null,
          fat_g: null,
        },
      },
    ]);
    assert.is((await api.prepare(body)).status, 201);
    assert.is((await s.app.proposals.approve(athleteId, body.command_id)).outcome, 'committed');
    const page = await signedInClient(s.base, 'ada@example.com');
    const read = async () => ({
      receipt: (await api.proposal(body.command_id)).body.data.proposal.receipt,
      page: (await page.get(`/proposals/${body.command_id}`)).text,
    });
    const before = await read();
    const client: string = before.receipt.client.name;
    assert.is(before.receipt.changes[0].revision_after, 1);
    assert.match(before.page, 'new → 1');
    assert.match(before.page, `suggested by ${client}.`);

    const edits: Array<[string, (doc: string) => string]> = [
      ["the receipt's revision", (doc) => oneByte(doc, '"receipt":', '"revision_after":', '7')],
      ["the receipt's client", (doc) => oneByte(doc, '"receipt":', '"name":"', 'X')],
      ['the revision of the commit', (doc) => doc.replace(/"committed_revision":\d+/, `"committed_revision":${JSON.parse(doc).prepared_revision}`)],
    ];
    for (const [what, edit] of edits) {
      tamperProposalDoc(dataDir, body.command_id, edit);
      const after = await read();
      assert.equal(after.receipt, before.receipt, `${what} edited: get_write_proposal shows the log's receipt`);
      assert.match(after.page, 'new → 1', `${what} edited: the page shows the log's revision`);
      assert.not.match(after.page, 'new → 7', what);
      assert.match(after.page, `suggested by ${client}.`, `${what} edited: the page names the log's client`);
    }
    // The edits are in the read model only: it says otherwise, and the log is unchanged.
    const doc = (await s.app.reads.get<{ id: string; receipt: { client: { name: string } } }>('proposals', athleteId, body.command_id))!;
    assert.is.not(doc.receipt.client.name, client);
  } finally {
    await s.close();
  }
});

test.run();
