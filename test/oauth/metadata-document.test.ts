// Client ID metadata documents: a client_id that is an https URL makes the authorization server
// fetch it. A loopback, private or otherwise non-public address must never be connected to, and a
// name that resolves twice (DNS rebinding) must be dialled at the address that was checked.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress, OUTBOUND_MAX_BYTES, OUTBOUND_TIMEOUT_MS, OutboundRefused, pinnedFetch, publicAddressOf } from '../../services/oauth/outbound.ts';
import { startServer } from '../support/server.ts';

/** A TCP listener on loopback that counts the connections it is offered. */
async function countingListener(host = '127.0.0.1'): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => count,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('public addresses: only global unicast, IPv4 and IPv6, mapped addresses judged by their IPv4', () => {
  const refused = [
    '127.0.0.1',
    '127.255.0.1',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.0.8',
    '198.18.0.1',
    '192.0.2.1',
    '203.0.113.9',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '2001:db8::1',
    '2002:7f00:1::1',
    '2001:0:4136:e378::1',
    'fec0::1',
    'localhost',
    'not-an-ip',
    '',
  ];
  for (const address of refused) assert.not.ok(isPublicAddress(address), address);
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '2a00:1450:4001:80b::200e',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    assert.ok(isPublicAddress(address), address);
  }
});

test('a URL is refused unless https and every address its name resolves to is public', async () => {
  const resolveTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const refuses = async (url: string, resolve = resolveTo('8.8.8.8')) => {
    try {
      await publicAddressOf(new URL(url), resolve);
      assert.unreachable(url);
    } catch (error) {
      assert.instance(error, OutboundRefused, url);
    }
  };
  await refuses('http://client.example/doc.json');
  await refuses('https://user:pw@client.example/doc.json');
  await refuses('https://127.0.0.1/doc.json');
  await refuses('https://[::1]/doc.json');
  await refuses('https://[::ffff:127.0.0.1]/doc.json');
  await refuses('https://0x7f.1/doc.json'); // the URL parser makes it 127.0.0.1
  await refuses('https://2130706433/doc.json');
  await refuses('https://client.example/doc.json', resolveTo('10.0.0.5'));
  await refuses('https://client.example/doc.json', resolveTo('8.8.8.8', '192.168.0.1'));
  await refuses('https://client.example/doc.json', resolveTo());
  assert.equal(await publicAddressOf(new URL('https://client.example/doc.json'), resolveTo('8.8.8.8', '2606:4700::1111')), { address: '8.8.8.8', family: 4 });
});

test('a loopback or private client_id is never fetched: no connection is ever made', async () => {
  const listener = await countingListener('127.0.0.1');
  const s = await startServer();
  try {
    for (const host of [
      `127.0.0.1:${listener.port}`,
      `localhost:${listener.port}`,
      `[::ffff:127.0.0.1]:${listener.port}`,
      `0x7f.1:${listener.port}`,
      `127.1:${listener.port}`,
    ]) {
      const clientId = `https://${host}/client.json`;
      const url = new URL(`${s.base}/oauth/authorize`);
      const params = {
        client_id: clientId,
        response_type: 'code',
        redirect_uri: `https://${host}/cb`,
        scope: 'training',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      assert.is(res.status, 400, clientId);
      assert.match(await res.text(), /client/i);
    }
    assert.is(listener.connections(), 0, 'the server connected to a loopback address');
  } finally {
    await s.close();
    await listener.close();
  }
});

test('the connection goes to the address that was checked, even if the name then resolves elsewhere', async () => {
  const listener = await countingListener('127.0.0.1');
  try {
    // A rebinding resolver: the first answer is the one checked; a second lookup would get another.
    const answers = ['127.0.0.1', '10.9.9.9'];
    let lookups = 0;
    const resolve = async () => [{ address: answers[lookups++] ?? '10.9.9.9', family: 4 }];
    // For this test only, loopback counts as allowed, so that the dialled address can be observed.
    const fetchPinned = pinnedFetch({ resolve, isAllowed: (address) => address === '127.0.0.1' });
    await fetchPinned(`https://rebind.example:${listener.port}/client.json`).catch(() => undefined);
    assert.is(lookups, 1, 'resolved once');
    assert.is(listener.connections(), 1, 'dialled the checked address');

    const refuseAll = pinnedFetch({ resolve });
    try {
      await refuseAll(`https://rebind.example:${listener.port}/client.json`);
      assert.unreachable('a private answer was fetched');
    } catch (error) {
      assert.instance(error, OutboundRefused);
    }
    assert.is(listener.connections(), 1, 'no connection for a refused address');
  } finally {
    await listener.close();
  }
});

test('a server that accepts and never answers is given up on within the time limit', async () => {
  const held: import('node:net').Socket[] = [];
  const server = createServer((socket) => void held.push(socket));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  try {
    const started = performance.now();
    const fetchLoopback = pinnedFetch({ resolve: async () => [{ address: '127.0.0.1', family: 4 }], isAllowed: () => true });
    await fetchLoopback(`https://slow.example:${port}/client.json`).then(
      () => assert.unreachable('answered'),
      () => undefined,
    );
    const took = performance.now() - started;
    assert.ok(took >= OUTBOUND_TIMEOUT_MS - 50 && took < OUTBOUND_TIMEOUT_MS + 1000, `gave up after ${Math.round(took)} ms`);
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('over TLS: the document is read from the pinned address, verified for the name, and bounded in size', async () => {
  // A self-signed certificate for client.example, only for this test.
  const tls = join(import.meta.dirname, '..', 'fixtures', 'tls');
  const cert = readFileSync(join(tls, 'client-example.crt'));
  let seen = '';
  const server = createHttpsServer({ key: readFileSync(join(tls, 'client-example.key')), cert }, (req, res) => {
    seen = `${req.headers.host} ${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/big' ? 'x'.repeat(OUTBOUND_MAX_BYTES + 1) : '{"client_id":"ok"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  try {
    const fetchLocal = pinnedFetch({ resolve: async () => [{ address: '127.0.0.1', family: 4 }], isAllowed: () => true, ca: cert });
    const res = await fetchLocal(`https://client.example:${port}/client.json?v=1`, { headers: { accept: 'application/json' } });
    assert.is(res.status, 200);
    assert.equal(await res.json(), { client_id: 'ok' });
    assert.is(seen, `client.example:${port} /client.json?v=1`, 'Host and path are the named ones');
    const readBig = async () => (await fetchLocal(`https://client.example:${port}/big`)).text();
    await readBig().then(
      () => assert.unreachable('a body over the limit was read'),
      (error: unknown) => assert.match(String(error), /too large/),
    );
    await fetchLocal(`https://other.example:${port}/client.json`).then(
      () => assert.unreachable('a certificate for another name was accepted'),
      (error: unknown) => assert.match(String(error), /altnames|certificate/),
    );
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
