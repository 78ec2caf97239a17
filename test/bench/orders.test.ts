// The bench measures an operation's runs in turns (bench/measure.ts); which run follows which must
// not favour one of them, or a ratio of two runs would measure their order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { balancedOrders } from '../../bench/measure.ts';

test('every run goes once in each position and follows every other run equally often', () => {
  for (let n = 1; n <= 7; n++) {
    const orders = balancedOrders(n);
    assert.is(orders.length, n % 2 === 0 || n === 1 ? n : 2 * n, `orders for ${n} runs`);
    for (const order of orders) assert.equal([...order].sort((a, b) => a - b), [...Array(n).keys()], `each order of ${n} runs holds each once`);
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

test.run();
