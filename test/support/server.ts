// The real HTTP server on a throwaway embedded store, listening on a free loopback port.
import type { FastifyInstance } from 'fastify';
import { openApp, type App } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { systemClock, type Clock } from '../../services/domain/clock.ts';
import { buildServer } from '../../services/http/server.ts';
import { tempDir } from './app.ts';
import { freePort } from './ports.ts';

export interface TestServer {
  app: App;
  server: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

export async function startServer(options: { clock?: Clock; env?: Record<string, string>; dataDir?: string } = {}): Promise<TestServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await openApp(loadConfig({ DATA_DIR: options.dataDir ?? tempDir(), PORT: String(port), BASE_URL: base, LOG_LEVEL: 'silent', ...options.env }), options.clock ?? systemClock);
  const server = await buildServer(app, { logger: false });
  await server.listen({ port, host: '127.0.0.1' });
  return {
    app,
    server,
    base,
    async close() {
      await server.close();
      await app.close();
    },
  };
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
  readonly cookies = new Map<string, string>();
  constructor(base: string) {
    this.base = base;
  }

  async get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(new URL(path, this.base), { headers: this.#cookieHeader(), redirect: 'manual' });
    this.#keep(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  async post(path: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.base, ...this.#cookieHeader(), ...headers },
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
