// The behaviour every KeyStore adapter must show. A store's purge reaches every key in it, so
// each case first destroys whatever earlier cases (or earlier runs against a shared server) left,
// and then counts only its own keys.
import { randomBytes, randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { EventStore } from '../../services/store/event-store.ts';
import { KeyConflictError, type KeyStore, type ProposalKey } from '../../services/store/key-store.ts';
import { serverSuite } from './container-runtime.ts';

export interface KeyStoreFixture {
  keys: KeyStore;
  /** The event log the keys are kept beside: the keys must not be part of it. */
  events: EventStore;
  /** Another store on the same data, as another process would open it. */
  another(): Promise<KeyStore>;
  close(): Promise<void>;
}

const DAY = 86_400_000;
/** Later than any key a case makes: destroying before it empties the store. */
const END_OF_TIME = new Date('2999-01-01T00:00:00.000Z');

function key(createdAt: string, athleteId: string = randomUUID()): ProposalKey {
  return { id: randomUUID(), athlete_id: athleteId, key: randomBytes(32), created_at: createdAt };
}

const at = (base: number, offsetMs: number) => new Date(base + offsetMs).toISOString();

export function keyStoreContract(label: string, open: () => Promise<KeyStoreFixture>, skipped: string | null = null): void {
  const t = serverSuite<{ fx: KeyStoreFixture }>(`key store contract: ${label}`, skipped, {} as { fx: KeyStoreFixture });
  t.before(async (ctx) => {
    ctx.fx = await open();
  });
  t.before.each(async (ctx) => {
    await ctx.fx.keys.destroyBefore(END_OF_TIME);
  });
  t.after(async (ctx) => {
    await ctx.fx?.close();
  });

  t('a stored key reads back exactly; an id never stored reads as null', async ({ fx }) => {
    const k = key('2026-05-01T10:00:00.000Z');
    await fx.keys.put(k);
    assert.equal(await fx.keys.get(k.id), k);
    assert.is(await fx.keys.get(randomUUID()), null);
  });

  t('storing the same key again changes nothing; another key under its id is refused and the first kept', async ({ fx }) => {
    const k = key('2026-05-01T10:00:00.000Z');
    await fx.keys.put(k);
    await fx.keys.put({ ...k, key: Buffer.from(k.key) });
    assert.equal(await fx.keys.get(k.id), k);
    const refused = await fx.keys.put({ ...k, key: randomBytes(32) }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(refused, KeyConflictError);
    assert.equal(await fx.keys.get(k.id), k, 'the stored key is kept');
    assert.is(await fx.keys.destroyBefore(END_OF_TIME), 1, 'one key, stored once');
  });

  t('destroyBefore destroys the keys made before the cutoff, not at or after it, and says how many', async ({ fx }) => {
    const cutoff = Date.parse('2026-06-01T12:00:00.000Z');
    const old = [key(at(cutoff, -40 * DAY)), key(at(cutoff, -1))];
    const kept = [key(at(cutoff, 0)), key(at(cutoff, DAY))];
    for (const k of [...old, ...kept]) await fx.keys.put(k);
    assert.is(await fx.keys.destroyBefore(new Date(cutoff)), 2);
    for (const k of old) assert.is(await fx.keys.get(k.id), null, `destroyed: ${k.created_at}`);
    for (const k of kept) assert.equal(await fx.keys.get(k.id), k, `kept: ${k.created_at}`);
    assert.is(await fx.keys.destroyBefore(new Date(cutoff)), 0, 'a second purge finds nothing more');
    assert.is(await fx.keys.destroyBefore(new Date(cutoff + DAY + 1)), 2, 'the rest, when their time comes');
    for (const k of kept) assert.is(await fx.keys.get(k.id), null);
  });

  t('the purge reaches every key past the cutoff, whatever order they were stored in (clocks of several instances)', async ({ fx }) => {
    const cutoff = Date.parse('2026-06-01T12:00:00.000Z');
    // Old and recent keys interleaved, the first stored being a recent one.
    const keys = Array.from({ length: 120 }, (_, i) => key(at(cutoff, (i % 3 === 0 ? 1 : -1) * (i + 1) * 60_000)));
    for (const k of keys) await fx.keys.put(k);
    const old = keys.filter((k) => Date.parse(k.created_at) < cutoff);
    assert.is(await fx.keys.destroyBefore(new Date(cutoff)), old.length);
    for (const k of keys) {
      const found = await fx.keys.get(k.id);
      if (Date.parse(k.created_at) < cutoff) assert.is(found, null, `destroyed: ${k.created_at}`);
      else assert.equal(found, k, `kept: ${k.created_at}`);
    }
    assert.is(await fx.keys.destroyBefore(new Date(cutoff)), 0);
  });

  t('another process reads the keys this one stored and not the ones it destroyed', async ({ fx }) => {
    const other = await fx.another();
    const [a, b] = [key('2026-05-01T10:00:00.000Z'), key('2026-05-20T10:00:00.000Z')];
    await fx.keys.put(a);
    await other.put(b);
    assert.equal(await other.get(a.id), a);
    assert.equal(await fx.keys.get(b.id), b);
    assert.is(await other.destroyBefore(new Date('2026-05-10T00:00:00.000Z')), 1);
    assert.is(await fx.keys.get(a.id), null);
    assert.equal(await fx.keys.get(b.id), b);
  });

  t('two processes storing the same key at once: both succeed, and it is one key', async ({ fx }) => {
    const other = await fx.another();
    const k = key('2026-05-01T10:00:00.000Z');
    await Promise.all([fx.keys.put(k), other.put({ ...k, key: Buffer.from(k.key) })]);
    assert.equal(await fx.keys.get(k.id), k);
    assert.is(await fx.keys.destroyBefore(END_OF_TIME), 1);
  });

  t('keys are no part of the event log: reading it and its head show only the events appended to it', async ({ fx }) => {
    const head = await fx.events.headPosition();
    const stream = `test-${randomUUID()}`;
    const meta = { occurred_at: '2026-01-01T00:00:00.000Z' };
    await fx.events.append(stream, [{ type: 'before', data: {}, metadata: meta }], 'no_stream');
    const k = key('2026-05-01T10:00:00.000Z');
    await fx.keys.put(k);
    const afterKey = await fx.events.headPosition();
    await fx.events.append(stream, [{ type: 'after', data: {}, metadata: meta }], 0);
    await fx.keys.destroyBefore(END_OF_TIME);
    const log = await fx.events.readAll(head, 1000);
    assert.equal(
      log.map((e) => [e.stream, e.type]),
      [
        [stream, 'before'],
        [stream, 'after'],
      ],
    );
    assert.is(afterKey, log[0]!.position, 'the head after storing a key is the last event of the log');
    assert.is(await fx.events.headPosition(), log[1]!.position, 'a destroyed key leaves no event in the log either');
    assert.not.match(JSON.stringify(log), k.key.toString('base64'));
  });

  t('destroyOf destroys the athlete’s keys, and those named, and no other', async ({ fx }) => {
    const athlete = randomUUID();
    const now = Date.now();
    const [mine1, mine2, other] = [key(at(now, 0), athlete), key(at(now, 1), athlete), key(at(now, 2))];
    for (const k of [mine1, mine2, other]) await fx.keys.put(k);
    // KurrentDB's list keeps no athlete: the caller names the keys too (from the record stream).
    assert.is(await fx.keys.destroyOf(athlete, [mine1.id, mine2.id]), 2);
    assert.is(await fx.keys.get(mine1.id), null);
    assert.is(await fx.keys.get(mine2.id), null);
    assert.equal((await fx.keys.get(other.id))?.key, other.key);
    assert.is(await fx.keys.destroyOf(athlete, [mine1.id, mine2.id]), 0, 'again: nothing left to destroy');
  });

  t('destroy destroys the named keys and no other, not even the same athlete’s', async ({ fx }) => {
    const athlete = randomUUID();
    const now = Date.now();
    const [named, same, other] = [key(at(now, 0), athlete), key(at(now, 1), athlete), key(at(now, 2))];
    for (const k of [named, same, other]) await fx.keys.put(k);
    assert.is(await fx.keys.destroy([named.id]), 1);
    assert.is(await fx.keys.get(named.id), null);
    assert.equal((await fx.keys.get(same.id))?.key, same.key);
    assert.equal((await fx.keys.get(other.id))?.key, other.key);
    assert.is(await fx.keys.destroy([named.id]), 0, 'again: nothing left to destroy');
  });

  t.run();
}
