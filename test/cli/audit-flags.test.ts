// `--since` and `--until` of `proposals list` and `receipts list`: what an auditor types is read
// the same on every machine (UTC unless the value says otherwise), and a day that does not exist
// is refused rather than rolled over into the next month.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { instantOf } from '../../cli/audit.ts';
import { DomainError } from '../../services/domain/errors.ts';

test('a date-time without an offset is UTC, whatever the machine timezone', () => {
  const zone = process.env.TZ;
  try {
    for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
      process.env.TZ = tz;
      assert.is(instantOf('since', '2026-06-01T12:04:00'), '2026-06-01T12:04:00.000Z', tz);
      assert.is(instantOf('until', '2026-06-01T12:04'), '2026-06-01T12:04:00.000Z', tz);
    }
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

test('a date is the whole UTC day; an offset is honoured', () => {
  assert.is(instantOf('since', '2026-06-01'), '2026-06-01T00:00:00.000Z');
  assert.is(instantOf('until', '2026-06-01'), '2026-06-01T23:59:59.999Z');
  assert.is(instantOf('since', '2026-06-01T12:00:00+02:00'), '2026-06-01T10:00:00.000Z');
  assert.is(instantOf('since', '2026-06-01T12:00:00.250Z'), '2026-06-01T12:00:00.250Z');
  assert.is(instantOf('since', undefined), undefined);
});

test('days and times that do not exist, and other text, are refused', () => {
  for (const value of [
    '2026-02-30',
    '2026-04-31T10:00Z',
    '2025-02-29',
    '2026-06-01T24:00',
    '2026-06-01T12:60',
    '2026-13-01',
    'yesterday',
    '2026-06-01 12:00',
    '1 June 2026',
  ]) {
    assert.throws(
      () => instantOf('since', value),
      (e: unknown) => e instanceof DomainError && e.code === 'invalid_input' && e.message.includes(`"${value}"`),
      value,
    );
  }
  assert.is(instantOf('since', '2024-02-29'), '2024-02-29T00:00:00.000Z', 'a leap day is a day');
});

test.run();
