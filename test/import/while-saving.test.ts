// An import on the embedded store is one transaction that takes seconds for a large file. The
// process must keep answering meanwhile (it serves every other athlete and agent), what it answers
// must be the store as it was before the import, and another athlete's write must wait for the
// import's commit instead of joining its open transaction. (That a write scheduled inside a
// transaction never joins another is test/store/sqlite-locking.test.ts.)
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WORKOUTS } from '../../projections/workouts.ts';
import type { AthleteState } from '../../services/domain/athlete.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { importExport } from '../../services/import/run.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { openTestApp, registerAthlete } from '../support/app.ts';
import { connect, registerPro } from '../support/connect.ts';
import { startServer } from '../support/server.ts';

const WORKOUT_COUNT = 100;

test('an import lets the process turn while it saves; reads meanwhile see the record without it; another write waits for its commit', async () => {
  const { app, close } = await openTestApp();
  try {
    const ada = await registerAthlete(app, { email: 'ada@example.com' });
    const bea = await registerAthlete(app, { email: 'bea@example.com' });
    const adaStream = `record-${ada}`;
    const eventsBefore = (await app.events.readStream(adaStream)).length;
    const csv = generateHevyExport({ workouts: WORKOUT_COUNT, seed: 11 });
    const athlete = (await app.athletes.get(ada))!;

    const finished: string[] = [];
    let importing = true;
    // Set once the import projects, which it does inside its open transaction.
    let saving = false;
    const seen: Array<{ events: number; workouts: number }> = [];
    let beaWrite: Promise<unknown> | null = null;
    // Stands in for other requests: each turn of the event loop runs it once, and only while the
    // import lets the loop turn. setImmediate, not a timer, so that the count does not depend on
    // how fast this machine is.
    const probe = async () => {
      if (!importing) return;
      seen.push({
        events: (await app.events.readStream(adaStream)).length,
        workouts: (await app.reads.page(WORKOUTS, { partition: ada, index: 'by_id', direction: 'asc', limit: 1000 })).length,
      });
      // From the probe's own async context, as a request's would be: started from the import's
      // progress callback, it would run inside the import's transaction (that is its context).
      if (saving)
        beaWrite ??= app.records
          .change(
            bea,
            [
              {
                op: 'create',
                kind: 'meal',
                item: {
                  id: randomUUID(),
                  eaten_at: '2026-05-30T12:00:00.000Z',
                  name: 'Lunch',
                  calories_kcal: 600,
                  protein_g: 30,
                  carbohydrate_g: null,
                  fat_g: null,
                },
              },
            ],
            { type: 'athlete', id: bea },
          )
          .then(() => finished.push('bea'));
      setImmediate(probe);
    };
    setImmediate(probe);

    const result = await importExport(app, athlete, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes: Buffer.from(csv),
      parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }),
      progress: () => (saving = true),
    });
    finished.push('import');
    importing = false;
    assert.ok(beaWrite, 'the probe ran while the import was saving');
    await beaWrite;

    assert.is(result.workouts_added, WORKOUT_COUNT);
    // One turn between parsing and deciding, then one per 25 events projected.
    assert.ok(seen.length >= 4, `the process turned ${seen.length} times while importing`);
    assert.equal(
      seen,
      seen.map(() => ({ events: eventsBefore, workouts: 0 })),
      'reads during the import saw none of it',
    );
    assert.equal(finished, ['import', 'bea'], "bea's write waited for the import's commit");
    assert.ok((await app.events.readStream(adaStream)).length > eventsBefore);
    assert.is((await app.reads.page(WORKOUTS, { partition: ada, index: 'by_id', direction: 'asc', limit: 1000 })).length, WORKOUT_COUNT);
    assert.is((await app.events.readStream(`record-${bea}`)).filter((e) => e.type === 'meal.created').length, 1);
  } finally {
    await close();
  }
});

test("an agent's request is answered while an import saves, though its connection's first use is noted with a write", async () => {
  const s = await startServer();
  try {
    const ada = await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const athlete = (await s.app.athletes.get(ada))!;
    const csv = generateHevyExport({ workouts: 450, seed: 12 });
    let importing = true;
    let saving = false;
    let answer: Promise<{ status: number; duringImport: boolean }> | null = null;
    // Sent from a context of its own once the import's transaction is open, as a client's would be.
    const probe = () => {
      if (!importing) return;
      if (saving) {
        answer ??= fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then(async (res) => {
          await res.arrayBuffer();
          return { status: res.status, duringImport: importing };
        });
      }
      setImmediate(probe);
    };
    setImmediate(probe);
    await importExport(s.app, athlete, {
      app: 'hevy',
      fileName: 'hevy.csv',
      bytes: Buffer.from(csv),
      parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }),
      progress: () => (saving = true),
    });
    importing = false;
    assert.ok(answer, 'the request was sent while the import was saving');
    assert.equal(await answer, { status: 200, duringImport: true });
  } finally {
    await s.close();
  }
});

test('two imports at once each report their own progress', async () => {
  const { app, close } = await openTestApp();
  try {
    const files = [
      { email: 'ada@example.com', workouts: 60, seed: 21 },
      { email: 'bea@example.com', workouts: 90, seed: 22 },
    ];
    const athletes: AthleteState[] = [];
    for (const f of files) athletes.push((await app.athletes.get(await registerAthlete(app, { email: f.email })))!);
    const reports = files.map(() => [] as Array<[number, number]>);
    const run = (i: number) =>
      importExport(app, athletes[i]!, {
        app: 'hevy',
        fileName: 'hevy.csv',
        bytes: Buffer.from(generateHevyExport({ workouts: files[i]!.workouts, seed: files[i]!.seed })),
        parse: (text, a) => parseHevy(text, { timezone: a.profile.timezone }),
        progress: (done, total) => reports[i]!.push([done, total]),
      });
    // The second starts while the first is projecting, from a context of its own (as another
    // request would): its progress must not take the first one's place.
    let second: Promise<unknown> | null = null;
    const probe = () => {
      if (reports[0]!.length > 0) second ??= run(1);
      else setImmediate(probe);
    };
    setImmediate(probe);
    await run(0);
    assert.ok(second, 'the second import started while the first was saving');
    await second;
    files.forEach((f, i) => {
      assert.ok(reports[i]!.length > 1, `${f.email} saw its progress`);
      assert.ok(
        reports[i]!.every(([, total]) => total === f.workouts),
        `${f.email} saw only its own file's total: ${JSON.stringify(reports[i])}`,
      );
      assert.equal(reports[i]!.at(-1), [f.workouts, f.workouts]);
    });
  } finally {
    await close();
  }
});

test.run();
