// The CLI's figures are wall times of processes started by a small launcher process, not by the
// bench's own process: starting one from a parent holding much memory costs more (bench/cli.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Launcher } from '../../bench/cli.ts';

test('each command is started by the launcher, not by the bench process, and answered in order', async () => {
  const launcher = new Launcher();
  try {
    const answers = [];
    for (const word of ['first', 'second', 'third']) answers.push(await launcher.run(['-e', `console.log(${JSON.stringify(word)}, process.ppid)`]));
    const [words, parents] = [answers.map((a) => a.stdout.split(' ')[0]), new Set(answers.map((a) => Number(a.stdout.split(' ')[1])))];
    assert.equal(words, ['first', 'second', 'third']);
    assert.is(parents.size, 1, 'one launcher started them all');
    assert.is.not([...parents][0], process.pid, 'the bench process started none of them');
    for (const a of answers) assert.ok(a.seconds > 0, 'each run is timed');
  } finally {
    launcher.close();
  }
});

test('a command that fails fails the run, with what it printed on stderr', async () => {
  const launcher = new Launcher();
  try {
    try {
      await launcher.run(['-e', "console.error('no such athlete'); process.exit(2)"]);
      assert.unreachable('a failed command must throw');
    } catch (error) {
      assert.match((error as Error).message, /exited 2: no such athlete/);
    }
    // The launcher goes on answering after a failure.
    assert.is((await launcher.run(['-e', "console.log('still here')"])).stdout.trim(), 'still here');
  } finally {
    launcher.close();
  }
});

test.run();
