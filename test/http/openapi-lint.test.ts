// /openapi.json as a generated client meets it (issue 40): at most 120 KB; Spectral (spectral:oas,
// .spectral.yaml) and Redocly (recommended, redocly.yaml) find nothing, neither errors nor
// warnings; each operation's example passes its zod schema; and openapi-typescript's types of the
// document type-check a small client that holds every example, with tsc. A linter or generator
// that cannot run here is skipped, saying why.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationList } from '../../contracts/operations.ts';
import { readApiOperationList } from '../../contracts/read-api.ts';
import { startServer } from '../support/server.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const MAX_BYTES = 120_000;

type Described = {
  requestBody?: { content: { 'application/json': { example: unknown } } };
  responses: Record<string, { content?: { 'application/json': { example?: unknown } } }>;
};
type Document = { paths: Record<string, Record<string, Described>> };

/** A package's command, run with this Node (the system's may be older): null when not installed. */
function bin(name: string): string | null {
  const link = join(ROOT, 'node_modules/.bin', name);
  return existsSync(link) ? realpathSync(link) : null;
}

async function tool(name: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number } | string> {
  const path = bin(name);
  if (!path) return `${name} is not installed (npm install)`;
  try {
    const { stdout, stderr } = await run(process.execPath, [path, ...args], { cwd: ROOT, maxBuffer: 32 * 1024 * 1024, timeout: 60_000 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number | string };
    if (typeof e.code !== 'number') return `${name} could not run: ${String(e.code ?? error)}`;
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code };
  }
}

const skip = (what: string, reason: string) => console.log(`skipped: ${what} — ${reason}`);

test('/openapi.json: at most 120 KB, examples as the contracts say, no finding from Spectral or Redocly, and a generated client type-checks', async () => {
  const s = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'repledger-openapi-'));
  try {
    const res = await fetch(`${s.base}/openapi.json`);
    assert.is(res.status, 200);
    const text = await res.text();
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes <= MAX_BYTES, `/openapi.json is ${bytes} bytes, more than ${MAX_BYTES}`);
    const doc = JSON.parse(text) as Document;

    // One example per operation, which its schema accepts: the success answer, and the request body.
    for (const op of [...operationList, ...readApiOperationList]) {
      const method = 'method' in op ? op.method.toLowerCase() : 'get';
      const status = 'successStatus' in op ? String(op.successStatus) : '200';
      const described = doc.paths[op.path]![method]!;
      assert.equal(
        Object.keys(described.responses).filter((code) => code.startsWith('2')),
        [status],
        op.operationId,
      );
      const example = described.responses[status]!.content!['application/json'].example;
      const parsed = op.response.safeParse(example);
      assert.ok(parsed.success, `${op.operationId}: ${JSON.stringify(parsed.error?.issues)}`);
      if ('body' in op && op.body) {
        const body = op.body.safeParse(described.requestBody!.content['application/json'].example);
        assert.ok(body.success, `${op.operationId} body: ${JSON.stringify(body.error?.issues)}`);
      }
    }

    const file = join(dir, 'openapi.json');
    writeFileSync(file, text);
    const [spectral, redocly, generated] = await Promise.all([
      tool('spectral', ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', file]),
      tool('redocly', ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', file]),
      tool('openapi-typescript', [file, '--output', join(dir, 'api.ts')]),
    ]);

    if (typeof spectral === 'string') skip('Spectral', spectral);
    else {
      // JSON on stdout; an empty list when there is nothing to say.
      const findings = JSON.parse(spectral.stdout.trim() || '[]') as Array<{ code: string; message: string; path: string[] }>;
      assert.equal(
        findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`),
        [],
        'Spectral: 0 errors, 0 warnings',
      );
    }

    if (typeof redocly === 'string') skip('Redocly', redocly);
    else {
      const report = JSON.parse(redocly.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
      assert.equal(
        report.problems.map((p) => `${p.ruleId}: ${p.message}`),
        [],
        'Redocly: 0 errors, 0 warnings',
      );
      assert.equal(report.totals, { ...report.totals, errors: 0, warnings: 0 });
    }

    if (typeof generated === 'string') skip('the generated client', generated);
    else {
      assert.is(generated.code, 0, generated.stderr);
      // A client of the generated types: each example typed as its operation's answer (and the
      // prepare body as its request), and a call whose result type comes from the document.
      const lines = [
        "import type { components, paths } from './api.ts';",
        "type Json<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer B } }> } ? B : never;",
        'export async function getMe(base: string, token: string): Promise<Json<"/api/v1/me", "get", 200>["data"]> {',
        "  const res = await fetch(base + '/api/v1/me', { headers: { authorization: 'Bearer ' + token } });",
        '  if (!res.ok) throw new Error(((await res.json()) as components["schemas"]["ReadApiError"]).error.message);',
        '  return ((await res.json()) as Json<"/api/v1/me", "get", 200>).data;',
        '}',
      ];
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, described] of Object.entries(item)) {
          const [status, answer] = Object.entries(described.responses).find(([code]) => code.startsWith('2'))!;
          const name = `${method}_${path.replace(/\W+/g, '_')}`;
          lines.push(
            `export const ${name}: Json<${JSON.stringify(path)}, ${JSON.stringify(method)}, ${status}> = ${JSON.stringify(answer.content!['application/json'].example)};`,
          );
          if (described.requestBody)
            lines.push(
              `export const ${name}_body: paths[${JSON.stringify(path)}][${JSON.stringify(method)}]["requestBody"]["content"]["application/json"] = ${JSON.stringify(described.requestBody.content['application/json'].example)};`,
            );
        }
      writeFileSync(join(dir, 'client.ts'), `${lines.join('\n')}\n`);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'es2023',
            module: 'esnext',
            moduleResolution: 'bundler',
            allowImportingTsExtensions: true,
            lib: ['es2023', 'dom'],
            types: [],
          },
          files: ['client.ts'],
        }),
      );
      const tsc = await tool('tsc', ['-p', join(dir, 'tsconfig.json')]);
      if (typeof tsc === 'string') skip('type-checking the generated client', tsc);
      else assert.is(tsc.code, 0, `tsc: ${tsc.stdout}${tsc.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});

test.run();
