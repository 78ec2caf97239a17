// The layer rules (issue 38; DESIGN.md, "Layout inside services/"): imports point down only,
//   cli → http, web, oauth → api → reads, writes, identity, import, sync, export, commands, operations, audit, words
//       → domain, store, projections → contracts
// the composition root (services/app.ts) is imported by nothing below it, and no files form a
// cycle, type-only imports included. A small checker rather than dependency-cruiser or madge:
// both parse TypeScript with the `typescript` package, and neither takes TypeScript 7.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = join(import.meta.dirname, '..');

/** Each file's relative imports (static, dynamic, re-exports, type-only), as paths from the root. */
export function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(normalize(join(dirname(file), m[1]!)));
  return found;
}

const SERVICES = /^services\/(reads|writes|identity|import|sync|export|commands|operations|audit|words)\//;
const SURFACES = /^services\/(http|web|oauth)\//;
const API = /^services\/api\//;
const ROOT_FILE = /^services\/[^/]+\.ts$/;
const CONFIG = /^services\/config\.ts$/;
const CLI = /^cli\//;

interface Rule {
  name: string;
  from: RegExp;
  /** Targets it may not import. */
  to: RegExp[];
  /** Targets allowed despite `to`. */
  except?: RegExp;
}

export const RULES: Rule[] = [
  { name: 'contracts stand alone', from: /^contracts\//, to: [/^(services|projections|cli)\//] },
  { name: 'the domain is pure', from: /^services\/domain\//, to: [/^services\/(?!domain\/)/, /^projections\//, CLI] },
  { name: 'the stores are below the services', from: /^services\/store\//, to: [SERVICES, SURFACES, API, ROOT_FILE, /^projections\//, CLI] },
  { name: 'projections are below the services', from: /^projections\//, to: [SERVICES, SURFACES, API, ROOT_FILE, CLI] },
  { name: 'reads, writes and identity are below the API', from: SERVICES, to: [SURFACES, API, ROOT_FILE, CLI], except: CONFIG },
  { name: 'the API is below the surfaces', from: API, to: [SURFACES, ROOT_FILE, CLI], except: CONFIG },
  { name: 'the surfaces do not reach for the composition root', from: SURFACES, to: [ROOT_FILE, CLI], except: CONFIG },
];

/** Every broken rule, as "rule: from -> to". */
export function violations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      for (const rule of RULES)
        if (rule.from.test(from) && rule.to.some((r) => r.test(to)) && !rule.except?.test(to)) found.push(`${rule.name}: ${from} -> ${to}`);
    }
  }
  return found;
}

/** Each cycle (a strongly connected set of two or more files, or a file importing itself), its files sorted. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || graph.get(v)?.includes(v)) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

function projectGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ['contracts', 'services', 'projections', 'cli'].flatMap(sourceFiles))
    graph.set(file, importsOf(file, readFileSync(join(ROOT, file), 'utf8')));
  return graph;
}

test('imports point down only', () => {
  const graph = projectGraph();
  assert.ok(graph.size > 150, `${graph.size} files read`);
  assert.equal(violations(graph), []);
});

test('no files form a cycle, type-only imports included', () => {
  assert.equal(cycles(projectGraph()), []);
});

test('each rule fails on a wrong import, and the cycle check on a cycle', () => {
  const wrong: Array<[string, string]> = [
    ['contracts/write.ts', 'services/domain/record.ts'],
    ['services/domain/record.ts', 'services/store/event-store.ts'],
    ['services/store/event-store.ts', 'services/reads/workouts.ts'],
    ['projections/workouts.ts', 'services/writes/proposals.ts'],
    ['services/reads/workouts.ts', 'services/api/errors.ts'],
    ['services/api/router.ts', 'services/web/html.ts'],
    ['services/web/home.ts', 'services/app.ts'],
  ];
  for (const [[from, to], rule] of wrong.map((pair, i) => [pair, RULES[i]!] as const)) {
    assert.equal(violations(new Map([[from, [to]]])), [`${rule.name}: ${from} -> ${to}`]);
  }
  assert.equal(
    violations(new Map([['services/reads/workouts.ts', ['services/config.ts', 'services/domain/record.ts', 'contracts/write.ts']]])),
    [],
    'what a layer may import passes',
  );
  assert.equal(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  );
  assert.equal(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
  assert.equal(
    importsOf(
      'services/x/a.ts',
      "import type { A } from '../y/b.ts';\nimport {\n  C,\n} from './c.ts';\nexport * from '../../contracts/d.ts';\nconst e = await import('./e.ts');",
    ),
    ['services/y/b.ts', 'services/x/c.ts', 'contracts/d.ts', 'services/x/e.ts'],
  );
});

test.run();
