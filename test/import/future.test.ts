// An export is of completed workouts: one that ends after now (a phone's clock set wrong, a date
// mistyped) or starts before 1900 (a mistyped year) is refused with its line, and nothing of the
// file is imported, as an agent's proposal of such a workout is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../services/domain/errors.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { importExport } from '../../services/import/run.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';

test('a workout after now refuses the file, naming its line; the same history in the past imports', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app, { timezone: 'Europe/London' });
    const athlete = (await t.app.athletes.get(athleteId))!;
    const file = (startDate: string) => ({
      app: 'hevy' as const,
      fileName: 'hevy.csv',
      bytes: Buffer.from(generateHevyExport({ workouts: 6, seed: 3, startDate })),
      parse: (text: string) => parseHevy(text, { timezone: 'Europe/London' }),
    });
    const refusal = await importExport(t.app, athlete, file('2026-05-25')).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(refusal, DomainError);
    assert.is((refusal as DomainError).code, 'invalid_input');
    assert.match(
      (refusal as DomainError).message,
      /^hevy\.csv line \d+: the workout ends 2026-06-0\d \d\d:\d\d UTC \(times read in Europe\/London\), in the future; only completed workouts are imported; nothing was imported$/,
    );
    assert.is((await t.app.records.load(athleteId)).state.items.size, 0, 'nothing of the file');

    const done = await importExport(t.app, athlete, file('2026-05-11'));
    assert.is(done.workouts_added, 6);
  } finally {
    await t.close();
  }
});

test('a workout before 1900 (a mistyped year) refuses the file, naming its line', async () => {
  const t = await openTestApp({ now: '2026-06-01T12:00:00.000Z' });
  try {
    const athleteId = await registerAthlete(t.app, { timezone: 'Europe/London' });
    const athlete = (await t.app.athletes.get(athleteId))!;
    const csv = generateHevyExport({ workouts: 3, seed: 3, startDate: '2026-05-11' });
    const lines = csv.trimEnd().split('\n');
    // The last row's workout moved to the year 1000: its times are the first two quoted fields.
    lines[lines.length - 1] = lines.at(-1)!.replace(/2026/g, '1000');
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const refusal = await importExport(t.app, athlete, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes,
      parse: (text: string) => parseHevy(text, { timezone: 'Europe/London' }),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(refusal, DomainError);
    assert.match(
      (refusal as DomainError).message,
      /^hevy\.csv line \d+: the workout starts 1000-\d\d-\d\d \d\d:\d\d UTC \(times read in Europe\/London\), before 1900-01-01; check the year; nothing was imported$/,
    );
    assert.is((await t.app.records.load(athleteId)).state.items.size, 0, 'nothing of the file');
  } finally {
    await t.close();
  }
});

test.run();
