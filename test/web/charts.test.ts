// The date axis of the progress charts: a label that would run into the one before it is left out
// (its tick stays), so that "Dec 2025" and "Mar" never print as "Dec 2025Mar".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dateTicks, labelWidth, niceTicks, placeLabels, valueLabel } from '../../services/web/charts.ts';

test('labels that would overlap the one before are left out; those with room are kept', () => {
  const placed = placeLabels([
    { label: 'Dec 2025', at: 70 },
    { label: 'Mar', at: 150 },
    { label: 'Jun', at: 240 },
    { label: 'Sep', at: 330 },
    { label: 'Dec', at: 500 },
  ]);
  assert.equal(placed, [{ anchor: 'start' }, null, { anchor: 'middle' }, { anchor: 'middle' }, { anchor: 'end' }]);
});

test('a year of months on the 442-unit plot: no two kept labels overlap', () => {
  for (const [from, to] of [
    ['2025-06-03', '2026-05-28'],
    ['2025-12-20', '2026-11-25'],
    ['2024-01-01', '2026-11-25'],
    ['2026-10-01', '2026-11-10'],
  ]) {
    const ticks = dateTicks(from!, to!);
    const span = Date.parse(to!) - Date.parse(from!);
    const at = (date: string) => 64 + ((Date.parse(date) - Date.parse(from!)) / span) * 442;
    const laid = ticks.map((t) => ({ label: t.label, at: at(t.date) }));
    const placed = placeLabels(laid);
    const extents = laid.flatMap((t, i) => {
      const p = placed[i];
      if (!p) return [];
      const w = labelWidth(t.label);
      const left = p.anchor === 'start' ? t.at : p.anchor === 'end' ? t.at - w : t.at - w / 2;
      return [[left, left + w] as const];
    });
    assert.ok(extents.length >= 2, `${from}..${to}: at least two labels kept`);
    for (let i = 1; i < extents.length; i++) assert.ok(extents[i]![0] >= extents[i - 1]![1], `${from}..${to}: label ${i} overlaps the one before`);
  }
});

test('over several years every tick in a new year says the year, whether or not it is a January', () => {
  assert.equal(
    dateTicks('2021-01-04', '2024-01-20').map((t) => t.label),
    ['Feb 2021', 'Feb 2022', 'Feb 2023'],
  );
  assert.equal(
    dateTicks('2025-06-03', '2026-11-25').map((t) => t.label),
    ['Jul 2025', 'Nov', 'Mar 2026', 'Jul', 'Nov'],
  );
});

test("value labels from 10,000 up are compact, so that they fit the margin at a phone's size", () => {
  assert.equal([0, 72.5, 9999, 10_000, 12_500, 250_000, 1_250_000].map(valueLabel), ['0', '72.5', '9999', '10K', '12.5K', '250K', '1.25M']);
  for (const v of niceTicks(0, 668_663)) assert.ok(labelWidth(valueLabel(v)) <= 64 - 8 + 11.5, `${valueLabel(v)} fits the margin`);
});

test('one value draws a span around it, however large (±1 is lost on 1e16, and the axis recursed)', () => {
  for (const v of [0, 72.5, 1e16, 2000]) {
    const ticks = niceTicks(v, v);
    assert.ok(ticks.length >= 2 && ticks[0]! <= v && ticks.at(-1)! >= v && ticks.at(-1)! > ticks[0]!, `${v}: ${ticks.join(', ')}`);
  }
});

test.run();
