// The reader of `npm run bench -- import-stall`, in a process of its own: sends GET <url> with the
// bearer token back to back, one at a time, and notes when each was sent (milliseconds since the
// epoch, comparable across processes) and how long its answer took. Prints `warm` once the first
// WARM_UP answers are in (the server has compiled the route), and, when stdin closes, every sample
// as one JSON line: [[sentAtMs, waitedMs], ...].
const [url, token] = process.argv.slice(2);
if (!url || !token) throw new Error('usage: import-stall-reader.ts <url> <bearer token>');
const WARM_UP = 300;
const samples: Array<[number, number]> = [];
let stop = false;
process.stdin.on('data', () => undefined);
process.stdin.once('end', () => (stop = true));
const now = () => performance.timeOrigin + performance.now();
for (let i = 0; !stop; i++) {
  const sent = now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  if (i >= WARM_UP) samples.push([sent, now() - sent]);
  if (i === WARM_UP) process.stdout.write('warm\n');
}
process.stdout.write(`${JSON.stringify(samples)}\n`);
