// The uploader of `npm run bench -- import-stall`, in a process of its own so that building and
// sending the 10 MB form costs the server's process nothing: reads the file, builds the form,
// prints `ready`, and on a line on stdin posts it to /import as the signed-in athlete's browser
// would. Prints `{"sentAtMs", "answeredAtMs", "status", "location"}` (epoch milliseconds).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [base, file, cookie, csrf] = process.argv.slice(2);
if (!base || !file || !cookie || !csrf) throw new Error('usage: import-stall-upload.ts <base> <file> <cookie header> <csrf>');
const form = new FormData();
form.append('_csrf', csrf);
form.append('app', 'hevy');
form.append('file', new Blob([readFileSync(file)], { type: 'text/csv' }), 'hevy.csv');
// Encoded once, before the signal: the request then only sends bytes.
const encoded = new Response(form);
const type = encoded.headers.get('content-type')!;
const body = await encoded.arrayBuffer();
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\n');
await lines.next();
const now = () => performance.timeOrigin + performance.now();
const sentAtMs = now();
const res = await fetch(`${base}/import`, { method: 'POST', body, redirect: 'manual', headers: { 'content-type': type, origin: base, cookie } });
await res.arrayBuffer();
process.stdout.write(`${JSON.stringify({ sentAtMs, answeredAtMs: now(), status: res.status, location: res.headers.get('location') })}\n`);
process.exit(0);
