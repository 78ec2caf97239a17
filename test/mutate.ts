// A mutation check by hand (docs/testing.md): puts one small bug into a production file, runs the
// tests that should catch it, and puts the file back, whatever happens. It answers whether the
// bug was caught (exit 0) or survived (exit 1), so that a new test is seen to fail before it is
// trusted.
//
//   npx node test/mutate.ts FILE FIND REPLACE [TESTS]
//
// FIND must occur exactly once in FILE (add context until it does); TESTS is test/run.ts's pattern
// (every test when left out). Example: `npx node test/mutate.ts services/api/quota.ts
// 'if (tat <= now) this.#tats.delete(key)' 'this.#tats.delete(key)' test/api/quota`.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const [file, find, replace, tests] = process.argv.slice(2);
if (!file || find === undefined || replace === undefined) {
  console.error('usage: npx node test/mutate.ts FILE FIND REPLACE [TESTS]');
  process.exit(2);
}

const path = join(root, file);
const original = readFileSync(path, 'utf8');
const found = original.split(find).length - 1;
if (found !== 1) {
  console.error(`"${find}" occurs ${found} times in ${file}: it must occur exactly once (add context)`);
  process.exit(2);
}

// Put back on every way out: the end of the run, Ctrl-C, a kill.
let restored = false;
const restore = () => {
  if (restored) return;
  writeFileSync(path, original);
  restored = true;
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    restore();
    process.exit(1);
  });
}
process.on('exit', restore);

writeFileSync(
  path,
  original.replace(find, () => replace),
);
console.log(`mutated ${file}: ${JSON.stringify(find)} -> ${JSON.stringify(replace)}; running ${tests ?? 'every test'}`);
const child = spawn(process.execPath, [join(root, 'test', 'run.ts'), ...(tests ? [tests] : [])], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString();
});
const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
restore();

const failing = [...output.matchAll(/^FAIL +(\S+)/gm)].map((m) => m[1]!);
const summary = output.trim().split('\n').at(-1) ?? '';
if (code !== 0 && failing.length) {
  console.log(`caught: ${summary}\n${failing.map((f) => `  failed: ${f}`).join('\n')}`);
  process.exit(0);
}
if (code !== 0) {
  console.log(`the run failed without a failing test (a crash, or no test ran?):\n${output.slice(-2000)}`);
  process.exit(2);
}
console.log(`SURVIVED: ${summary} — no test noticed this bug`);
process.exit(1);
