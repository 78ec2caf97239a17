// The OAuth keys file on a volume that several replicas share: replicas starting at once on a fresh
// volume all end up with the one set of keys on disk, none ever reads a partial file, a damaged
// file is refused rather than replaced, and a creator that crashed leaves nothing that stops the
// next start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOrCreateKeys, type OAuthKeys } from '../../services/oauth/keys.ts';
import { thrown } from '../support/thrown.ts';

const KEYS_MODULE = pathToFileURL(join(import.meta.dirname, '..', '..', 'services', 'oauth', 'keys.ts')).href;
const root = mkdtempSync(join(tmpdir(), 'repledger-keys-file-'));
test.after(() => rmSync(root, { recursive: true, force: true }));

let made = 0;
/** A path in a directory that does not exist yet, as on a fresh volume. */
const freshPath = () => join(root, `volume-${++made}`, 'secrets', 'oauth-keys.json');
const onDisk = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as OAuthKeys;

test('a fresh file is made readable by this user only, in a directory only this user can enter', () => {
  const path = freshPath();
  const keys = loadOrCreateKeys(path);
  assert.equal(onDisk(path), keys);
  if (process.platform !== 'win32') {
    assert.is(statSync(path).mode & 0o777, 0o600);
    assert.is(statSync(join(path, '..')).mode & 0o777, 0o700);
  }
});

test('an existing file is read as it is, not made again', () => {
  const path = freshPath();
  const first = loadOrCreateKeys(path);
  const text = readFileSync(path, 'utf8');
  assert.equal(loadOrCreateKeys(path), first);
  assert.is(readFileSync(path, 'utf8'), text);
});

test('a replica starting while another has written its keys but not yet placed them gets whole keys, the same as the other', () => {
  const path = freshPath();
  let during: OAuthKeys | undefined;
  // The held creator's keys are complete in its temporary file; a start now must not see them
  // half-written at `path`, and whichever set is placed first is the one both keep.
  const held = loadOrCreateKeys(path, { beforePlacing: () => (during = loadOrCreateKeys(path)) });
  assert.ok(during, 'the creator was held before placing its file');
  assert.equal(held, during);
  assert.equal(onDisk(path), held);
});

/**
 * Starts `replicas` worker threads that, `rounds` times over, meet at a barrier and then all call
 * loadOrCreateKeys on the same fresh path; answers each round's path and outcomes (the keys as
 * JSON, or the error), one per replica.
 */
async function startTogether(replicas: number, rounds: number): Promise<{ path: string; outcomes: string[] }[]> {
  const shared = new Int32Array(new SharedArrayBuffer(8)); // [round released, replicas arrived]
  const paths = Array.from({ length: rounds }, freshPath);
  // Each replica waits for the last one to arrive before every round, so that their creations
  // overlap as those of replicas started by one `docker compose up --scale` do.
  const body = `
    const { parentPort, workerData: { shared, paths, replicas } } = require('node:worker_threads');
    import(${JSON.stringify(KEYS_MODULE)}).then(({ loadOrCreateKeys }) => {
      const outcomes = [];
      for (let round = 0; round < paths.length; round++) {
        if (Atomics.add(shared, 1, 1) === replicas * (round + 1) - 1) {
          Atomics.store(shared, 0, round + 1);
          Atomics.notify(shared, 0);
        } else {
          while (Atomics.load(shared, 0) <= round) Atomics.wait(shared, 0, round);
        }
        try {
          outcomes.push(JSON.stringify(loadOrCreateKeys(paths[round])));
        } catch (error) {
          outcomes.push('refused: ' + error.message);
        }
      }
      parentPort.postMessage(outcomes);
    });`;
  const perReplica = await Promise.all(
    Array.from({ length: replicas }, () => {
      const worker = new Worker(body, { eval: true, workerData: { shared, paths, replicas } });
      return new Promise<string[]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }).finally(() => worker.terminate());
    }),
  );
  return paths.map((path, round) => ({ path, outcomes: perReplica.map((outcomes) => outcomes[round]!) }));
}

test('replicas starting at once on a fresh volume all get the keys on disk', async () => {
  // Many rounds: a creator that shows its file before it has written it leaves a window of
  // microseconds, and it has to be hit to be seen.
  const rounds = await startTogether(4, 300);
  const disagreeing = rounds.map(({ path, outcomes }) => outcomes.filter((o) => o !== readFileSync(path, 'utf8'))).filter((wrong) => wrong.length > 0);
  assert.is(
    disagreeing.length,
    0,
    `in ${disagreeing.length} of ${rounds.length} rounds a replica did not get the keys on disk; first: ${disagreeing[0]?.join(' | ').slice(0, 300)}`,
  );
});

for (const [what, damage] of [
  ['empty', () => ''],
  ['cut short', (whole: string) => whole.slice(0, Math.floor(whole.length / 2))],
  ['JSON but not keys', () => '{"signing":{}}'],
] as const) {
  test(`a keys file that is ${what} is refused, naming it, and left as it is`, () => {
    const path = freshPath();
    const whole = JSON.stringify(loadOrCreateKeys(path));
    writeFileSync(path, damage(whole));
    const error = thrown(Error, () => loadOrCreateKeys(path));
    assert.match(error.message, path);
    assert.match(error.message, /not a RepLedger OAuth keys file/);
    assert.is(readFileSync(path, 'utf8'), damage(whole));
  });
}

test('a creator killed before placing its file leaves nothing that stops the next start', () => {
  const path = freshPath();
  const crash = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { loadOrCreateKeys } from ${JSON.stringify(KEYS_MODULE)};
       loadOrCreateKeys(${JSON.stringify(path)}, { beforePlacing: () => process.kill(process.pid, 'SIGKILL') });`,
    ],
    { encoding: 'utf8' },
  );
  assert.is(crash.signal, 'SIGKILL', crash.stderr);
  const directory = join(path, '..');
  const leftovers = readdirSync(directory);
  assert.is(leftovers.length, 1, `the crashed creator's temporary file: ${leftovers.join(', ')}`);
  assert.not.ok(leftovers.includes('oauth-keys.json'));
  // A crash in the middle of writing leaves part of the keys behind.
  truncateSync(join(directory, leftovers[0]!), 20);

  const keys = loadOrCreateKeys(path);
  assert.equal(onDisk(path), keys);
  assert.equal(loadOrCreateKeys(path), keys);
});

test.run();
