// Deleting an account (issue 42): after athlete A is deleted, with B beside them, no byte of A's
// e-mail, name or record text is anywhere in the data directory (every file read as bytes:
// database, WAL and all), B's reads and receipts are as they were, A's connections and bot token
// are refused, and A's e-mail can sign up again.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listReceipts } from '../../services/audit/audit.ts';
import { streams } from '../../contracts/events.ts';
import { dumpReadModels } from '../support/app.ts';
import { PASSWORD, registerPro } from '../support/connect.ts';
import { FormClient, startServer } from '../support/server.ts';
import { validBody, writer } from '../support/writes.ts';

const A_EMAIL = 'zephyrine.quill@example.com';
const A_NAME = 'Zephyrine Quillfeather';
const A_MEAL = 'Quokkaberry porridge';
const A_PENDING = 'Marmoset muesli';
const B_EMAIL = 'grace@example.com';

/** The error `run` rejects with; fails when it resolves. */
async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const meal = (name: string) => ({
  op: 'create',
  kind: 'meal',
  record: { eaten_at: '2026-06-01T10:00:00.000Z', name, calories_kcal: 400, protein_g: 30, carbohydrate_g: null, fat_g: null },
});

/** Every file under `dir`, as bytes. */
function filesOf(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path) : [{ path, bytes: readFileSync(path) }];
  });
}

function foundIn(dir: string, texts: string[]): string[] {
  const found: string[] = [];
  for (const { path, bytes } of filesOf(dir)) {
    for (const t of texts) {
      // As UTF-8, and as UTF-16 in case any engine keeps text that way.
      if (bytes.includes(Buffer.from(t, 'utf8')) || bytes.includes(Buffer.from(t, 'utf16le'))) found.push(`${t} in ${path}`);
    }
  }
  return found;
}

test('deleting A removes every byte of theirs, leaves B as they were, refuses A’s clients, and frees the e-mail', async () => {
  const s = await startServer();
  try {
    const { app, base } = s;
    const a = await registerPro(app, A_EMAIL);
    await app.athletes.updateProfile(A_EMAIL, { ...(await app.athletes.get(a))!.profile, display_name: A_NAME }, { type: 'athlete', id: a });
    const b = await registerPro(app, B_EMAIL);

    // A: a REST connection that proposed (one approved, one pending), an MCP connection, a bot token, a web session.
    const rest = await writer(s, a, ['nutrition'], ['nutrition:write'], A_EMAIL);
    const committed = validBody([meal(A_MEAL)]);
    assert.is((await rest.api.prepare(committed)).status, 201);
    assert.is((await app.proposals.approve(a, committed.command_id)).outcome, 'committed');
    const pending = validBody([meal(A_PENDING)]);
    assert.is((await rest.api.prepare(pending)).status, 201);
    const mcp = await (await import('../support/connect.ts')).connect(base, `${base}/mcp`, ['training'], 'training', A_EMAIL);
    const bot = await app.botTokens.create(a, 'Zephyrine stats bot', { type: 'athlete', id: a });
    const browser = new FormClient(base);
    const signIn = await browser.get('/sign-in');
    assert.is((await browser.post('/sign-in', { email: A_EMAIL, password: PASSWORD, _csrf: FormClient.csrf(signIn.text) })).status, 303);

    // B: a connection with a committed change, so a receipt chain.
    const bRest = await writer(s, b, ['nutrition'], ['nutrition:write'], B_EMAIL);
    const bCommitted = validBody([meal('Grace’s toast')]);
    assert.is((await bRest.api.prepare(bCommitted)).status, 201);
    assert.is((await app.proposals.approve(b, bCommitted.command_id)).outcome, 'committed');
    await app.access.flush();

    const ofB = async () => {
      const models = await dumpReadModels(app);
      const bOnly = Object.fromEntries(
        Object.entries(models).map(([name, docs]) => [
          name,
          (docs as Array<{ partition: string; doc: Record<string, unknown> }>).filter((d) => d.partition === b || d.doc.athlete_id === b || d.doc.id === b),
        ]),
      );
      return {
        models: bOnly,
        receipts: await listReceipts(app, { athleteId: b }, 100),
        record: await app.events.readStream(streams.record(b)),
        athlete: await app.athletes.get(b),
      };
    };
    const before = await ofB();
    assert.ok(foundIn(s.app.config.dataDir, [A_EMAIL, A_NAME, A_MEAL]).length > 0, 'the scan finds A before the deletion');

    const result = await app.accounts.delete(a, { type: 'operator', id: 'test' });
    assert.is(result.accounts_deleted, 1);

    assert.equal(foundIn(s.app.config.dataDir, [A_EMAIL, A_NAME, A_MEAL, A_PENDING, 'Zephyrine']), [], 'no byte of A is left');
    // Nor their id, in any table of the database, but for the one event saying the account was
    // deleted (which projections forget it by).
    const db = new DatabaseSync(join(s.app.config.dataDir, 'repledger.db'), { readOnly: true });
    try {
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((t) => t.name);
      for (const table of tables) {
        const rows = (db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>).filter((r) => JSON.stringify(r).includes(a));
        if (table !== 'events') assert.equal(rows, [], `A's id is left in ${table}`);
        else
          assert.equal(
            rows.map((r) => [r.stream, r.type, JSON.parse(String(r.data))]),
            [['account_deletions', 'account.deleted', { athlete_id: a }]],
            "A's id is in the events only as the deletion's",
          );
      }
    } finally {
      db.close();
    }

    assert.equal(await ofB(), before, 'B reads as before');
    assert.is(before.receipts.length, 1, 'B has a receipt to compare');

    // A's clients are refused: REST, MCP, the Read API.
    assert.is((await rest.api.context()).status, 401, 'REST');
    const mcpAnswer = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcp.tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.is(mcpAnswer.status, 401, 'MCP');
    assert.is((await fetch(`${base}/api/v1/workouts`, { headers: { authorization: `Bearer ${bot.token}` } })).status, 401, 'Read API');
    // The pending proposal cannot be approved; the web session is gone.
    await rejection(() => app.proposals.approve(a, pending.command_id));
    const account = await browser.get('/account');
    assert.is(account.status, 302);
    assert.match(account.headers.get('location') ?? '', /^\/sign-in/);
    // B's own connection still works.
    assert.is((await bRest.api.context()).status, 200);

    // The e-mail signs up again, as a new account.
    const again = await registerPro(app, A_EMAIL);
    assert.is.not(again, a);
    assert.is((await app.athletes.byEmail(A_EMAIL))?.athlete_id, again);
    assert.is(await app.accounts.count(), 1);
  } finally {
    await s.close();
  }
});

test('a deletion stopped after its mark: the account is refused sign-in, and running it again finishes it', async () => {
  const s = await startServer();
  try {
    const a = await registerPro(s.app, A_EMAIL);
    await s.app.athletes.startDeletion(a, { type: 'operator', id: 'test' });
    assert.is(await s.app.athletes.authenticate(A_EMAIL, PASSWORD), null, 'no sign-in while being deleted');
    assert.is(await s.app.athletes.get(a), null);
    assert.match((await rejection(() => registerPro(s.app, A_EMAIL))).message, /exists/, 'the e-mail is not free until the deletion finishes');
    await s.app.accounts.delete(a, { type: 'operator', id: 'test' });
    assert.is(await s.app.athletes.getForDeletion(a), null);
    await registerPro(s.app, A_EMAIL);
    assert.match((await rejection(() => s.app.accounts.delete(randomUUID(), { type: 'operator', id: 'test' }))).message, /no athlete/);
  } finally {
    await s.close();
  }
});

test('a deletion that fails midway on the embedded store leaves nothing half-deleted, and running it again finishes it', async () => {
  const s = await startServer();
  try {
    const { app } = s;
    const a = await registerPro(app, A_EMAIL);
    const botToken = await app.botTokens.create(a, 'bot', { type: 'athlete', id: a });
    const store = app.events as typeof app.events & { deleteStream: (stream: string) => Promise<void> };
    const deleteStream = store.deleteStream.bind(store);
    let calls = 0;
    // The third stream's deletion fails, as a crash or a full disk would stop it there.
    store.deleteStream = async (stream) => {
      if (++calls === 3) throw new Error('the disk is full');
      return deleteStream(stream);
    };
    assert.match((await rejection(() => app.accounts.delete(a, { type: 'operator', id: 'test' }))).message, /disk is full/);
    // One transaction: the streams deleted before the failure are back, and the read models too.
    assert.ok(await app.athletes.getForDeletion(a), 'the account is still there, marked');
    assert.ok(await app.athletes.byEmailForDeletion(A_EMAIL), 'and its e-mail claim');
    assert.is((await app.events.readStream(streams.botTokens(a))).length, 1, 'the bot token stream is still there');
    assert.is((await app.botTokens.list(a)).length, 1, 'and its read model');
    // Marked: no sign-in, no Read API.
    assert.is(await app.athletes.authenticate(A_EMAIL, PASSWORD), null);
    assert.is((await fetch(`${s.base}/api/v1/workouts`, { headers: { authorization: `Bearer ${botToken.token}` } })).status, 401);

    store.deleteStream = deleteStream;
    await app.accounts.delete(a, { type: 'operator', id: 'test' });
    assert.is(await app.athletes.getForDeletion(a), null);
    assert.is((await app.events.readStream(streams.botTokens(a))).length, 0);
    assert.is((await app.botTokens.list(a)).length, 0);
    assert.equal(foundIn(app.config.dataDir, [A_EMAIL]), []);
  } finally {
    await s.close();
  }
});

test.run();
