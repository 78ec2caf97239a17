// Cursors are bound to the operation, the athlete and the filters they were issued for; any other
// is refused as invalid input (the API answers it 400: test/http/read-api-refusals.test.ts).
import { createSecretKey, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeCursor, encodeCursor } from '../../services/reads/cursor.ts';
import { DomainError } from '../../services/domain/errors.ts';

const key = createSecretKey(randomBytes(32));
const ADA = '00000000-0000-4000-8000-0000000000a1';
const BEA = '00000000-0000-4000-8000-0000000000b2';
const window = { from: '2026-05-01', to: '2026-05-30' };

function refused(work: () => unknown, why: string): void {
  try {
    work();
    assert.unreachable(why);
  } catch (error) {
    assert.instance(error, DomainError, why);
    assert.is((error as DomainError).code, 'invalid_input', why);
  }
}

test('a cursor opens the next page of the operation, athlete and window it was issued for', () => {
  const cursor = encodeCursor(key, { operation: 'list_meals', athleteId: ADA, filters: window }, ['2026-05-20T08:00:00Z', 'id-1']);
  assert.equal(decodeCursor(key, { operation: 'list_meals', athleteId: ADA }, cursor), { after: ['2026-05-20T08:00:00Z', 'id-1'], filters: window });
});

test("another operation's cursor, even of the same shape, window and athlete, is refused", () => {
  const cursor = encodeCursor(key, { operation: 'list_meals', athleteId: ADA, filters: window }, ['2026-05-20T08:00:00Z', 'id-1']);
  refused(() => decodeCursor(key, { operation: 'list_body_measurements', athleteId: ADA }, cursor), 'a meals cursor on body measurements');
  refused(() => decodeCursor(key, { operation: 'list_meals', athleteId: BEA }, cursor), "another athlete's cursor");
  const [body, mac] = cursor.split('.') as [string, string];
  refused(() => decodeCursor(key, { operation: 'list_meals', athleteId: ADA }, `${body}x.${mac}`), 'an altered body');
  refused(() => decodeCursor(createSecretKey(randomBytes(32)), { operation: 'list_meals', athleteId: ADA }, cursor), 'signed with another key');
  refused(() => decodeCursor(key, { operation: 'list_meals', athleteId: ADA }, body), 'no signature');
});

test.run();
