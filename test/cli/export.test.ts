// `repledger export` and `repledger import repledger` as an operator runs them: the document
// round-trips into an empty account (exported again, it is the same document), and the import
// refuses, changing nothing, a non-empty target, another format version, a file that is not JSON
// and an invalid document (naming the JSON path); kill -9 in the middle leaves nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordChangeOf, streams } from '../../contracts/events.ts';
import { EXPORT_FORMAT, recordExport } from '../../contracts/export.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { importExport } from '../../services/import/run.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { openTestApp, registerAthlete, tempDir } from '../support/app.ts';
import { cli, cliJson, startCli } from '../support/cli.ts';

const dataDir = tempDir();
const env = { DATA_DIR: dataDir };
const WORKOUTS = 600;
/**
 * Workouts of the athlete whose export is interrupted: enough that the export is still writing
 * when the signal sent at its first progress line arrives, even on a loaded machine (with 600 it
 * once finished first, and the signal found no handler).
 */
const LONG_EXPORT = 2500;
let ids: { a: string; b: string; c: string; d: string; e: string };

/** Items the athlete's record stream holds or held. */
async function recordItems(athleteId: string): Promise<number> {
  const t = await openTestApp({ dataDir });
  try {
    return (await t.app.events.readStream(streams.record(athleteId))).filter((e) => recordChangeOf(e.type)).length;
  } finally {
    await t.close();
  }
}

test.before(async () => {
  const t = await openTestApp({ dataDir });
  try {
    const a = await registerAthlete(t.app, { email: 'a@example.com', timezone: 'Asia/Tokyo' });
    const athlete = (await t.app.athletes.get(a))!;
    await importExport(t.app, athlete, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes: Buffer.from(generateHevyExport({ workouts: WORKOUTS, seed: 5 })),
      parse: (text, who) => parseHevy(text, { timezone: who.profile.timezone }),
    });
    const meal = {
      id: '7d1b3c6e-0000-4000-8000-000000000001',
      eaten_at: '2026-05-30T12:00:00.000Z',
      name: 'Lunch',
      calories_kcal: 700,
      protein_g: 40,
      carbohydrate_g: null,
      fat_g: 20,
    };
    await t.app.records.change(a, [{ op: 'create', kind: 'meal', item: meal }], { type: 'athlete', id: a });
    await t.app.records.change(a, [{ op: 'update', kind: 'meal', item: { ...meal, calories_kcal: 650 }, base_revision: 1 }], { type: 'athlete', id: a });
    ids = {
      a,
      b: await registerAthlete(t.app, { email: 'b@example.com' }),
      c: await registerAthlete(t.app, { email: 'c@example.com' }),
      d: await registerAthlete(t.app, { email: 'd@example.com' }),
      e: await registerAthlete(t.app, { email: 'e@example.com' }),
    };
    const e = (await t.app.athletes.get(ids.e))!;
    await importExport(t.app, e, {
      app: 'hevy',
      fileName: 'long.csv',
      bytes: Buffer.from(generateHevyExport({ workouts: LONG_EXPORT, seed: 6 })),
      parse: (text, who) => parseHevy(text, { timezone: who.profile.timezone }),
    });
  } finally {
    await t.close();
  }
});

test('export, import repledger into an empty account, export again: the same document', async () => {
  const file = join(dataDir, 'a.json');
  const exported = await cliJson<{ items: number; sections: Record<string, number> }>(['export', '--athlete', 'a@example.com', '--file', file], env);
  const doc = recordExport.parse(JSON.parse(readFileSync(file, 'utf8')));
  assert.is(doc.format, EXPORT_FORMAT);
  assert.is(doc.record.workouts.length, WORKOUTS);
  assert.is(exported.sections.workouts, WORKOUTS);
  assert.is(exported.items, doc.record.exercises.length + WORKOUTS + 1);
  assert.equal(
    doc.record.meals.map((m) => [m.revision, m.item.calories_kcal]),
    [[2, 650]],
    'the edited meal at its revision',
  );

  const imported = await cliJson<{ items_added: number; profile_updated: boolean }>(['import', 'repledger', '--athlete', 'b@example.com', '--file', file], env);
  assert.equal(imported, {
    athlete_id: ids.b,
    items_added: exported.items,
    workouts_added: WORKOUTS,
    exercises_added: doc.record.exercises.length,
    profile_updated: true,
  });

  // Written to stdout this time; the progress and the summary go to stderr.
  const again = await cli(['export', '--athlete', ids.b, '--file', '-'], env);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, `Exported ${exported.items} items`);
  const [headA, ...bodyA] = readFileSync(file, 'utf8').split('\n');
  const [headB, ...bodyB] = again.stdout.split('\n');
  assert.equal(bodyB, bodyA, 'every item, its revision and its times');
  const { exported_at: _a, athlete_id: fromA, ...restA } = JSON.parse(`${headA}}}`);
  const { exported_at: _b, athlete_id: fromB, ...restB } = JSON.parse(`${headB}}}`);
  assert.equal([fromA, fromB], [ids.a, ids.b]);
  assert.equal(restB, restA, 'the same profile: timezone, units and name');
});

test('refusals name what was wrong and import nothing', async () => {
  const file = join(dataDir, 'a.json');
  const refused = async (athlete: string, path: string, expected: RegExp) => {
    const r = await cli(['import', 'repledger', '--athlete', athlete, '--file', path], env);
    assert.is(r.code, 2, `${path}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr.replace(/\s*›\s*/g, ' '), expected);
  };
  // B holds the import now.
  await refused('b@example.com', file, /record of b@example\.com is not empty .*nothing was imported/);

  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const v2 = join(dataDir, 'v2.json');
  writeFileSync(v2, JSON.stringify({ ...doc, format: 'repledger.export.v2' }));
  await refused('c@example.com', v2, /format "repledger\.export\.v2"; this RepLedger reads repledger\.export\.v1 only/);

  const broken = join(dataDir, 'broken.json');
  writeFileSync(broken, readFileSync(file, 'utf8').slice(0, 5000));
  await refused('c@example.com', broken, /broken\.json is not JSON/);

  const invalid = join(dataDir, 'invalid.json');
  doc.record.workouts[3].item.exercises[0].sets[0].reps = -2;
  writeFileSync(invalid, JSON.stringify(doc));
  await refused('c@example.com', invalid, /\$\.record\.workouts\[3\]\.item\.exercises\[0\]\.sets\[0\]\.reps: .*nothing was imported/);

  // Valid on its own, refused by the record's rules: a workout naming an exercise not in the file.
  doc.record.workouts[3].item.exercises[0].sets[0].reps = 5;
  doc.record.exercises = doc.record.exercises.filter((e: { item: { id: string } }) => e.item.id !== doc.record.workouts[3].item.exercises[0].exercise_id);
  writeFileSync(invalid, JSON.stringify(doc));
  await refused('c@example.com', invalid, /\$\.record\.workouts\[\d+\]\.item\.exercises\[\d+\]\.exercise_id: exercise .* is not in the athlete's catalog/);

  assert.is(await recordItems(ids.c), 0);
  const t = await openTestApp({ dataDir });
  try {
    assert.is((await t.app.athletes.get(ids.c))!.profile.timezone, 'Europe/London', 'a refused file changes no setting either');
  } finally {
    await t.close();
  }
});

test('Ctrl-C in the middle of an export leaves no file behind; the export then runs whole', async () => {
  const file = join(dataDir, 'interrupted.json');
  const { child, done } = startCli(['export', '--athlete', 'e@example.com', '--file', file], env);
  let interruptedAt: string | null = null;
  let seen = '';
  child.stderr!.on('data', (d: Buffer) => {
    seen += d.toString();
    const m = /\| (\d+)\/(\d+)/.exec(seen);
    if (interruptedAt === null && m && Number(m[1]) < Number(m[2])) {
      interruptedAt = m[0];
      child.kill('SIGINT');
    }
  });
  const result = await done;
  assert.ok(interruptedAt !== null, `the export never reported progress: ${result.stderr}`);
  assert.is(result.code, 130, result.stderr);
  assert.equal(
    readdirSync(dataDir).filter((f) => f.includes('interrupted')),
    [],
    `interrupted at ${interruptedAt}, yet a file is left`,
  );

  // SIGKILL cannot be handled: a partial file of a process that is gone is taken away by the next
  // export to the name; one of a live process (this test's own pid stands for it) is left alone.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(join(dataDir, `.interrupted.json.${dead}.partial`), '{"format"');
  writeFileSync(join(dataDir, `.interrupted.json.${process.pid}.partial`), '{"format"');
  const whole = await cliJson<{ items: number }>(['export', '--athlete', 'e@example.com', '--file', file], env);
  assert.is(recordExport.parse(JSON.parse(readFileSync(file, 'utf8'))).record.workouts.length, LONG_EXPORT);
  assert.ok(whole.items > LONG_EXPORT);
  assert.equal(
    readdirSync(dataDir)
      .filter((f) => f.includes('interrupted'))
      .sort(),
    [`.interrupted.json.${process.pid}.partial`, 'interrupted.json'],
    "the document, and only the live process's partial file",
  );
  unlinkSync(join(dataDir, `.interrupted.json.${process.pid}.partial`));
});

test('a reader that stops early (export --file - | head) ends the export quietly, with no EPIPE', async () => {
  const { child, done } = startCli(['export', '--athlete', 'a@example.com', '--file', '-'], env);
  child.stdout!.once('data', () => child.stdout!.destroy());
  const result = await done;
  assert.is(result.code, 0, result.stderr);
  assert.not.match(result.stderr, 'EPIPE');
});

test('kill -9 in the middle of an import leaves the record empty; the import then lands whole', async () => {
  const file = join(dataDir, 'a.json');
  const { child, done } = startCli(['import', 'repledger', '--athlete', 'd@example.com', '--file', file], env);
  let killedAt: string | null = null;
  let seen = '';
  child.stderr!.on('data', (d: Buffer) => {
    seen += d.toString();
    // Without a terminal the bar prints a line per update: `saving [===---] 40% | 240/624`.
    const m = /\| (\d+)\/(\d+)/.exec(seen);
    if (killedAt === null && m && Number(m[1]) > 0 && Number(m[1]) < Number(m[2])) {
      killedAt = m[0];
      child.kill('SIGKILL');
    }
  });
  const result = await done;
  assert.ok(killedAt !== null, `the import never reported progress: ${result.stderr}`);
  assert.is(result.signal, 'SIGKILL');
  assert.is(await recordItems(ids.d), 0, `killed at ${killedAt}, yet items landed`);

  const whole = await cli(['import', 'repledger', '--athlete', 'd@example.com', '--file', file], env);
  assert.is(whole.code, 0, whole.stderr);
  assert.ok((await recordItems(ids.d)) > WORKOUTS);
});

test.run();
