// The bench measures an operation's runs in turns (bench/measure.ts) and takes the ratios its
// targets ask for from paired turns (bench/report.ts). Which run follows which must not favour one
// of them, or a ratio of two runs would measure their order; and a turn struck by other work on
// the machine must not decide a ratio.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { balancedOrders, median, type Measurement, type TurnFigures } from '../../bench/measure.ts';
import { mcpFloorAllows, operationResult, pairedRatio, summarise } from '../../bench/report.ts';

test('every run goes once in each position and follows every other run equally often', () => {
  for (let n = 1; n <= 7; n++) {
    const orders = balancedOrders(n);
    assert.is(orders.length, n % 2 === 0 || n === 1 ? n : 2 * n, `orders for ${n} runs`);
    for (const order of orders)
      assert.equal(
        [...order].sort((a, b) => a - b),
        [...Array(n).keys()],
        `each order of ${n} runs holds each once`,
      );
    for (let position = 0; position < n; position++) {
      const counts = new Map<number, number>();
      for (const order of orders) counts.set(order[position]!, (counts.get(order[position]!) ?? 0) + 1);
      assert.is(counts.size, n, `every run at position ${position} of ${n}`);
    }
    const follows = new Map<string, number>();
    for (const order of orders) for (let k = 1; k < n; k++) follows.set(`${order[k - 1]}>${order[k]}`, (follows.get(`${order[k - 1]}>${order[k]}`) ?? 0) + 1);
    assert.is(follows.size, n * (n - 1), `every ordered pair of ${n} runs is adjacent somewhere`);
    assert.is(new Set(follows.values()).size <= 1, true, `every pair of ${n} runs equally often`);
  }
});

const turn = (p50Ms: number): TurnFigures => ({ requestsPerSecond: 1000 / p50Ms, p50Ms, p99Ms: 2 * p50Ms, cpuUsPerResponse: 100 * p50Ms });
const measured = (turns: TurnFigures[] | undefined, p50Ms: number): Measurement => ({
  ...turn(p50Ms),
  responses: 1000,
  bytesPerResponse: 100,
  ...(turns ? { turns } : {}),
});

test('a ratio of runs measured in turns is the median of the ratios within each turn', () => {
  // Turns 3 and 6 of the long history were struck by other work (twice as slow); turn 2 of the short one.
  const short = [4, 4, 8, 4, 4, 4, 4, 4].map(turn);
  const long = [4.2, 4.2, 4.2, 8.4, 4.2, 4.2, 8.4, 4.2].map(turn);
  // The pooled figures read the struck turns: 5.3 / 4.5 would be 1.18.
  const ratio = pairedRatio(measured(short, 4.5), measured(long, 5.3), (t) => t.p50Ms)!;
  assert.ok(Math.abs(ratio - 1.05) < 1e-9, `p50 ratio ${ratio}`);
  const throughput = pairedRatio(measured(long, 5.3), measured(short, 4.5), (t) => t.requestsPerSecond)!;
  assert.ok(Math.abs(throughput - 1.05) < 1e-9, `throughput ratio ${throughput}`);
});

test('without paired turns, the ratio of the two figures; null where a figure is missing', () => {
  assert.is(
    pairedRatio(measured(undefined, 4), measured(undefined, 5), (t) => t.p50Ms),
    1.25,
  );
  // Turns that do not line up (measured apart) are not paired.
  assert.is(
    pairedRatio(measured([turn(4)], 4), measured([turn(5), turn(5)], 6), (t) => t.p50Ms),
    1.5,
  );
  assert.is(
    pairedRatio(measured([turn(4)], 4), measured([turn(5)], 5), () => null),
    null,
  );
});

test("what the MCP floor allows: REST's time per response plus what the MCP floor adds to the REST floor, over paired turns", () => {
  const turns = (ms: number, struck: number[] = []) => Array.from({ length: 8 }, (_, k) => turn(struck.includes(k) ? 2 * ms : ms));
  // REST answers in 0.1 ms; the MCP floor takes 0.05 ms more than the REST floor: 0.1 / 0.15 of REST.
  const rest = measured(turns(0.1), 0.1);
  // Pooled, the struck turns would count: 0.1 / (0.1 + 0.1125 - 0.05625) = 0.64.
  const restFloor = measured(turns(0.05, [2]), 0.05625);
  const mcpFloor = measured(turns(0.1, [5]), 0.1125);
  const allowed = mcpFloorAllows(rest, restFloor, mcpFloor)!;
  assert.ok(Math.abs(allowed - 2 / 3) < 1e-9, `allows ${allowed}, struck turns on either floor aside`);
  // Not measured in turns together: the pooled figures.
  const pooled = mcpFloorAllows(measured(undefined, 0.2), measured(undefined, 0.05), measured(undefined, 0.1))!;
  assert.ok(Math.abs(pooled - 0.8) < 1e-9, `pooled ${pooled}`);
  // An MCP floor no dearer than REST's allows all of REST's throughput, and more.
  assert.ok(mcpFloorAllows(rest, measured(turns(0.05), 0.05), measured(turns(0.04), 0.04))! > 1);
});

test('a list is also set against the floor that signs its cursor, and the summary names the lowest', () => {
  const turns = (ms: number, struck: number[] = []) => Array.from({ length: 6 }, (_, k) => turn(struck.includes(k) ? 3 * ms : ms));
  // The floor answers in 0.05 ms, 0.08 ms when it signs the cursor too (one turn struck, which the pairing sets aside).
  const floor = (signs: boolean) => ({
    athlete: '10000',
    storeCalls: ['reads.page'],
    measurement: measured(turns(0.05), 0.05),
    signing: signs ? measured(turns(0.08, [2]), 0.09) : null,
  });
  const list = (operation: string, ms: number) =>
    operationResult(
      operation,
      'rest',
      'read',
      null,
      [
        { athlete: '100', measurement: measured(turns(ms), ms) },
        { athlete: '10000', measurement: measured(turns(ms), ms) },
      ],
      null,
      floor(true),
    );
  const meals = list('list_meals', 0.12);
  const checkins = list('list_recovery_checkins', 0.2);
  const snapshot = operationResult(
    'get_training_snapshot',
    'rest',
    'read',
    null,
    [{ athlete: '10000', measurement: measured(turns(0.1), 0.1) }],
    null,
    floor(false),
  );
  const [short, long] = meals.cases;
  assert.ok(Math.abs(long!.ofFloor! - 0.05 / 0.12) < 1e-9, `of the floor ${long!.ofFloor}`);
  assert.ok(Math.abs(long!.ofSigningFloor! - 0.08 / 0.12) < 1e-9, `of the floor that signs ${long!.ofSigningFloor}`);
  assert.is(short!.ofSigningFloor, null, "the floor is the long history's: the short one is not set against it");
  assert.is(snapshot.cases[0]!.ofSigningFloor, null, 'an answer without a cursor has no floor that signs');
  // 0.08 / 0.2: the lowest, and under 0.5.
  const summary = summarise([meals, checkins, snapshot], []);
  assert.ok(Math.abs(summary.minOfSigningFloor!.value - 0.4) < 1e-9, `lowest ${summary.minOfSigningFloor!.value}`);
  assert.equal({ ...summary.minOfSigningFloor!, value: 0 }, { value: 0, operation: 'rest list_recovery_checkins', athlete: '10000', met: false });
  assert.is(summarise([meals, snapshot], []).minOfSigningFloor?.met, true, '0.67 of the floor that signs meets 0.5');
  assert.is(summarise([meals, snapshot], []).minOfFloor?.met, false, "the target stays the floor's: 0.42 of it misses 0.5");
});

test('the median of an even count is the mean of its two middle values', () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 3, 2]), 2.5);
});

test.run();
