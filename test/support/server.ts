// The real HTTP server on a throwaway embedded store, listening on a loopback port the system chose.
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { openApp, type App } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { systemClock, type Clock } from '../../services/domain/clock.ts';
import { buildServer } from '../../services/http/server.ts';
import { tempDir } from './app.ts';

export interface TestServer {
  app: App;
  server: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

/**
 * The app's base URL (the OAuth issuer, the links it writes) names its port, so the port is known
 * before the app is built: a Node HTTP server listens on port 0 first, and Fastify answers on it
 * (`serverFactory`, set up as Fastify sets up its own). No other process can take the port between
 * choosing it and listening, as it could when a port was picked, released and listened on later.
 * The data directory, unless given, is made here and removed by `close`.
 */
export async function startServer(options: { clock?: Clock; env?: Record<string, string>; dataDir?: string } = {}): Promise<TestServer> {
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeIdleConnections();
    });
  const { port } = http.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const dataDir = options.dataDir ?? tempDir();
  const removeData = () => {
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  let app: App | undefined;
  try {
    app = await openApp(
      loadConfig({ DATA_DIR: dataDir, PORT: String(port), BASE_URL: base, LOG_LEVEL: 'silent', ...options.env }),
      options.clock ?? systemClock,
    );
    const server = await buildServer(app, {
      logger: false,
      serverFactory: (handler, opts) => {
        // What Fastify does to a server it makes itself (lib/server.js), with its defaults filled in.
        const fastify = opts as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number; maxRequestsPerSocket?: number };
        http.keepAliveTimeout = fastify.keepAliveTimeout;
        http.requestTimeout = fastify.requestTimeout;
        http.setTimeout(fastify.connectionTimeout);
        if (fastify.maxRequestsPerSocket) http.maxRequestsPerSocket = fastify.maxRequestsPerSocket;
        http.on('request', handler);
        return http;
      },
    });
    await server.ready();
    const opened = app;
    return {
      app: opened,
      server,
      base,
      async close() {
        // Fastify leaves a server it did not listen on to its owner: stop taking connections and
        // let the requests in flight finish, then Fastify's close hooks, then the stores.
        await stopListening();
        await server.close();
        await opened.close();
        removeData();
      },
    };
  } catch (error) {
    await stopListening();
    await app?.close();
    removeData();
    throw error;
  }
}

/** Runs `run` against a fresh server (on `clock`, if given), closed however `run` ends. */
export async function withServer(run: (s: TestServer) => Promise<void>, clock?: Clock): Promise<void> {
  const s = await startServer(clock ? { clock } : {});
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

/** A minimal cookie-keeping client for form flows without a browser. */
export class FormClient {
  readonly base: string;
  /** The Origin its forms are sent from: the base, or the public address in front of it (a load balancer's). */
  readonly origin: string;
  readonly cookies = new Map<string, string>();
  constructor(base: string, origin = base) {
    this.base = base;
    this.origin = origin;
  }

  async get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(new URL(path, this.base), { headers: this.#cookieHeader(), redirect: 'manual' });
    this.#keep(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  async post(
    path: string,
    form: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; headers: Headers }> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, ...this.#cookieHeader(), ...headers },
      body: body.toString(),
      redirect: 'manual',
    });
    this.#keep(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** The CSRF token of the form on a page. */
  static csrf(pageHtml: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(pageHtml);
    if (!m) throw new Error('no CSRF token on the page');
    return m[1]!;
  }

  #cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  #keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, value] = pair!.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
  }
}
