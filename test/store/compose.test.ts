// What docker-compose.yml, the Dockerfile, the README and docs/operations.md promise about
// distributed mode, checked where no container can run: pinned images (and the suites testing
// those same images), no KurrentDB setting outside the pinned version's bounds, databases published
// on this host only, OAuth keys on a named volume the service can write, and host-side MongoDB URLs
// that connect from the host.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const compose = read('docker-compose.yml');
/** The compose file without its comments. */
const settings = compose.replace(/(^|\s)#.*$/gm, '');

const images = [...settings.matchAll(/^\s*image:\s*(\S+)\s*$/gm)].map((m) => m[1]!);

test('every image is pinned to a full version, and the suites test the same images', () => {
  assert.is(images.length, 2, images.join(', '));
  for (const image of images) assert.match(image, /:\d+\.\d+\.\d+$/, `${image} is not pinned to a release`);
  for (const [suite, image] of [
    ['test/store/kurrentdb.test.ts', images.find((i) => i.includes('kurrentdb'))!],
    ['test/store/mongodb.test.ts', images.find((i) => i.startsWith('mongo:'))!],
    ['test/support/distributed-servers.ts', images.find((i) => i.includes('kurrentdb'))!],
    ['test/support/distributed-servers.ts', images.find((i) => i.startsWith('mongo:'))!],
  ] as const) {
    assert.ok(read(suite).includes(`'${image}'`), `${suite} does not default to ${image}`);
  }
});

test("KurrentDB's maximum append size is left at the pinned version's default or set within its bound", () => {
  const kurrent = images.find((i) => i.includes('kurrentdb'))!;
  const [major, minor] = kurrent.split(':')[1]!.split('.').map(Number) as [number, number];
  // KurrentDB sources: 25.0 validates MaxAppendSize <= 16 MiB - 10,000 bytes; 25.1 on, <= 256 MiB.
  const bound = major < 25 || (major === 25 && minor === 0) ? 16 * 1024 * 1024 - 10_000 : 256 * 1024 * 1024;
  const set = /KURRENTDB_MAX_APPEND_SIZE:\s*"?(\d+)"?/.exec(settings);
  if (set) assert.ok(Number(set[1]) <= bound, `KURRENTDB_MAX_APPEND_SIZE ${set[1]} is above ${bound}: the server would not start`);
});

/** Each service's block of settings, by service name. */
const services = new Map(
  [...(/^services:\s*\n((?:(?:[ \t]+.*|)\n)*)/m.exec(settings)?.[1] ?? '').matchAll(/^ {2}([a-z][\w-]*):\s*\n((?:(?: {4}.*|[ \t]*)\n)*)/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  ),
);
/** What a service publishes on the host, as compose's short syntax `[HOST_IP:]HOST:CONTAINER`. */
function publishedPorts(service: string): { hostIp: string | null; host: string; container: string }[] {
  const list = /^ {4}ports:\s*\n((?:(?: {6}.*|[ \t]*)\n)*)/m.exec(services.get(service) ?? '')?.[1] ?? '';
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const port = /^ {6}-\s*"?(?:([\d.]+):)?(\d+):(\d+)"?\s*$/.exec(line);
      // A form this cannot read (the long syntax, a range) fails rather than pass unchecked.
      assert.ok(port, `${service}: cannot read the published port ${line.trim()}`);
      return { hostIp: port![1] ?? null, host: port![2]!, container: port![3]! };
    });
}

test('KurrentDB and MongoDB, insecure as set up here, are published on this host only; the service may be public', () => {
  const databases = [...services.keys()].filter((name) => /^\s*image:\s*(\S*kurrentdb\S*|mongo:\S+)\s*$/m.test(services.get(name)!));
  assert.equal(databases.sort(), ['kurrentdb', 'mongodb']);
  for (const database of databases) {
    for (const port of publishedPorts(database)) {
      assert.is(port.hostIp, '127.0.0.1', `${database} publishes ${port.host} on ${port.hostIp ?? 'every interface'}`);
    }
  }
  assert.equal(
    publishedPorts('service').map((p) => p.container),
    ['3000'],
    'the service answers on port 3000 from outside (README: curl localhost:3000)',
  );
});

test('the OAuth keys live on a named volume that every replica mounts and the image lets it write', () => {
  const keysFile = /OAUTH_KEYS_FILE:\s*(\S+)/.exec(settings)?.[1];
  assert.ok(keysFile, 'the service sets OAUTH_KEYS_FILE');
  const mounts = [...settings.matchAll(/^\s*-\s*([a-z][\w-]*):(\/\S*)\s*$/gm)].map((m) => ({ source: m[1]!, target: m[2]! }));
  const mount = mounts.find((m) => keysFile!.startsWith(`${m.target}/`));
  assert.ok(mount, `no volume is mounted where ${keysFile} is`);
  const declared = /^volumes:\s*\n((?:[ \t]+.*\n?)*)/m.exec(settings)?.[1] ?? '';
  assert.match(declared, new RegExp(`^\\s+${mount!.source}:`, 'm'), `${mount!.source} is not a named volume`);
  // A new named volume takes the ownership of the image's directory: it must be the service user's.
  const dockerfile = read('Dockerfile');
  assert.match(dockerfile, new RegExp(`mkdir -p [^\\n]*${mount!.target}\\b`));
  assert.match(dockerfile, new RegExp(`chown node:node [^\\n]*${mount!.target}\\b`));
});

test('a MongoDB URL for the host connects directly: the replica set member is named for the compose network', () => {
  for (const [file, text] of [
    ['README.md', read('README.md')],
    ['docs/operations.md', read('docs/operations.md')],
    ['docker-compose.yml', compose],
  ] as const) {
    const hostUrls = [...text.matchAll(/mongodb:\/\/localhost[^\s'`"]*/g)].map((m) => m[0]);
    assert.ok(hostUrls.length > 0, `${file} shows a host URL`);
    for (const u of hostUrls) {
      assert.match(u, 'directConnection=true', `${file}: ${u}`);
      assert.not.match(u, 'replicaSet=', `${file}: ${u}`);
    }
  }
});

test.run();
