// An HTTP request sent as given, for edges a client library would smooth over: the path exactly
// as written (fetch normalises it), and a body sent chunked one write at a time.
import { Agent, request as httpRequest } from 'node:http';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** For a chunked body: how many of its chunks were written when the answer came. */
  chunksBeforeAnswer?: number;
}

/** A request with the path sent exactly as given; a body given as chunks is sent chunked, one write at a time. */
export function sendRaw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer[]): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        // A chunked body gets a connection of its own, kept alive: on a shared one, the last request's
        // body still on the wire would delay this answer, and without keep-alive the server closes as
        // soon as it answers.
        ...(Array.isArray(body) ? { agent: new Agent({ keepAlive: true }) } : {}),
        headers: { ...headers, ...(typeof body === 'string' ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        // Settled once the body is all sent too, so that no connection is left mid-request.
        res.on('end', () => {
          if (req.writableFinished || req.destroyed) return resolve(answer());
          for (const event of ['finish', 'close', 'error']) req.once(event, () => resolve(answer()));
        });
        const chunksBeforeAnswer = written;
        const answer = () => ({ status: res.statusCode ?? 0, headers: res.headers, body: text, ...(Array.isArray(body) ? { chunksBeforeAnswer } : {}) });
        // Node's client emits no 'drain' once the answer has ended: the rest goes out at once.
        res.on('end', () => {
          if (Array.isArray(body) && written < body.length) {
            while (written < body.length) req.write(body[written++]);
            req.end();
          }
        });
      },
    );
    req.on('error', reject);
    let written = 0;
    if (Array.isArray(body)) {
      req.setHeader('transfer-encoding', 'chunked');
      // Each chunk after the last was taken: the answer comes while the client is still sending.
      const next = (): void => {
        if (written === body.length) return void req.end();
        if (req.write(body[written++])) setImmediate(next);
        else req.once('drain', next);
      };
      next();
    } else req.end(body);
  });
}
