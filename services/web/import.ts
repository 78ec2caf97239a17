// Importing a Hevy or Strong export from the browser: the same import as `repledger import`
// (services/import/run.ts), so a file lands whole or not at all and a bad row is refused with
// its line number. Uploads are multipart forms, read into memory up to IMPORT_MAX_BYTES. The
// import runs in a worker thread while the upload waits for its answer (a year of training takes
// about half a second, a 10 MB file a few seconds; the server answers other requests meanwhile,
// see services/import/thread.ts), so there is no job to follow from another page; the form's
// script shows the upload's bytes, then that the file is being saved, then the summary.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Services } from '../api/services.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { DomainError } from '../domain/errors.ts';
import { importThreadOf } from '../import/thread.ts';
import { APP_NAMES } from '../import/types.ts';
import { DAY_TOTAL_NAME } from '../import/apple-health.ts';
import type { GarminResult } from '../import/garmin.ts';
import type { ImportResult } from '../import/run.ts';
import type { ImportApp } from '../../contracts/record.ts';
import { readForm } from './forms.ts';
import { discard, HEALTH_UPLOAD_MAX_BYTES, receiveHealthUpload, uploadsDirOf, type HealthUpload } from './health-upload.ts';
import { html, IMPORT_PROGRESS_SCRIPT, type Html } from './html.ts';
import { contentSecurityPolicy, type Show } from './layout.ts';
import { signedInAthlete } from './record-pages.ts';
import type { Session } from '../identity/sessions.ts';
import { count } from '../words/units.ts';

/** The largest export accepted: about 4,000 workouts of a Hevy export (~2.4 KB a workout; a year at six days a week is ~0.75 MB). */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
/** Room for the form's other fields and the multipart framing around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const HEALTH_PATH = '/import/apple-health';
const UNREADABLE = 'The upload could not be read as this form. Nothing was imported: choose the file again and send it from this page.';
const TOO_LARGE = `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB, the most one import takes. Nothing was imported.`;

export interface UploadedFile {
  name: string;
  bytes: Buffer;
}

/**
 * A multipart body as the form readers expect it: text fields as strings (a field sent twice as
 * an array, like the urlencoded parser), files as UploadedFile. Node's own fetch `Request`
 * parses it, so no multipart package is needed.
 */
async function readMultipart(request: FastifyRequest, body: Buffer): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  let form: FormData;
  try {
    form = await new Request('http://upload.invalid/', { method: 'POST', headers: { 'content-type': type }, body }).formData();
  } catch {
    throw Object.assign(new Error('the upload could not be read as a form'), { statusCode: 400 });
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    const item = typeof value === 'string' ? value : { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
    out[name] = name in out ? [out[name], item].flat() : item;
  }
  return out;
}

const file = z.custom<UploadedFile>((v) => typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).bytes), {
  error: 'File: choose the export file to upload',
});

const fields = z.object({
  app: z.enum(['hevy', 'strong', 'garmin'], { error: 'Exported from: choose Hevy or Strong' }),
  weight_unit: z.enum(['kg', 'lbs'], { error: 'Weights in the file: choose kilograms or pounds' }).optional(),
  distance_unit: z.enum(['km', 'mi'], { error: 'Distances in the file: choose kilometres or miles' }).optional(),
  file,
});

export function registerImport(web: FastifyInstance, app: Services, show: Show): void {
  /** The import form's page: its script sends the upload itself (connect-src), to show its progress. */
  const showImport = (reply: FastifyReply, session: Session, body: Html, status = 200) => {
    reply.header('Content-Security-Policy', contentSecurityPolicy([], true));
    return show(reply, 'Import your data', session, body, status);
  };
  // The file is read, decided and saved in a worker thread: the server answers meanwhile.
  const thread = importThreadOf(app);
  web.addHook('onClose', () => thread.close());
  web.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => readMultipart(request, body));

  // An upload larger than the route takes is refused before it is read, and one that is not the
  // multipart form it claims to be cannot be read: either is shown on the form, rather than as a
  // bare error page (or JSON, to a client that did not ask for a page). Every other error goes on
  // to the server's handler.
  web.setErrorHandler(async (error: { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    const session = request.session;
    const onForm = request.url.split('?')[0] === '/import' && [400, 413, 415].includes(status);
    const athlete = session && onForm ? await app.athletes.get(session.athlete_id) : null;
    if (!session || !athlete) throw error;
    return showImport(reply, session, importPage(athlete, session, null, status === 413 ? TOO_LARGE : UNREADABLE), status);
  });

  web.get('/import', async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    thread.warm();
    return showImport(reply, who.session, importPage(who.athlete, who.session, doneOf(request.query as Record<string, unknown>), null));
  });

  // The Health app's export, streamed to a file (./health-upload.ts) and imported from it in the worker.
  const uploads = uploadsDirOf(app.config.dataDir);
  void sweepUploads(uploads);
  web.register(async (health) => {
    health.removeContentTypeParser('multipart/form-data');
    health.addContentTypeParser('multipart/form-data', (request, payload, done) => {
      receiveHealthUpload(request, payload, uploads).then(
        (form) => done(null, form),
        (error: Error) => done(error),
      );
    });
    health.post(HEALTH_PATH, { bodyLimit: HEALTH_UPLOAD_MAX_BYTES + FORM_OVERHEAD_BYTES }, async (request, reply) => {
      const form = (request.body ?? {}) as HealthUpload;
      try {
        const session = request.session;
        const athlete = session ? await app.athletes.get(session.athlete_id) : null;
        if (!session || !athlete) return reply.redirect('/sign-in', 303);
        const refuse = (message: string, status = 400) => showImport(reply, session, importPage(athlete, session, null, message), status);
        const upload = form.file;
        if (!upload) return refuse('Apple Health: choose the export.zip the Health app made.');
        if (upload.tooLarge)
          return refuse(
            `Apple Health: the file is larger than ${HEALTH_UPLOAD_MAX_BYTES / 1024 / 1024 / 1024} GB, the most one import takes. Nothing was imported.`,
            413,
          );
        if (upload.bytes === 0) return refuse('Apple Health: the file is empty. Choose the export.zip the Health app made.');
        try {
          const result = await thread.run(athlete, { parse: { app: 'apple_health' }, fileName: upload.name.slice(0, 200), path: upload.path });
          return reply.redirect(summaryUrl('apple_health', result), 303);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return refuse(`Apple Health: ${error.message}`, error.code === 'busy' ? 503 : 400);
        }
      } finally {
        await discard(form.file);
      }
    });
  });

  web.post('/import', { bodyLimit: IMPORT_MAX_BYTES + FORM_OVERHEAD_BYTES }, async (request, reply) => {
    const session = request.session;
    const athlete = session ? await app.athletes.get(session.athlete_id) : null;
    if (!session || !athlete) return reply.redirect('/sign-in', 303);
    // A refused upload shows the form again as it was sent: a Strong file in pounds re-uploaded
    // after a fix must not go in as kilograms because the form fell back to the defaults.
    const chosen = choicesOf(request.body);
    const refuse = (message: string, status = 400) => showImport(reply, session, importPage(athlete, session, null, message, chosen), status);
    const form = readForm(fields, request.body);
    if (!form.ok) return refuse(form.message);
    const { app: from, file: upload } = form.data;
    if (upload.bytes.length === 0)
      return refuse(
        from === 'garmin'
          ? 'Garmin: the file is empty. Choose a .fit file, or a zip of them.'
          : 'File: the file is empty. Choose the CSV file the app exported.',
      );
    if (upload.bytes.length > IMPORT_MAX_BYTES) return refuse(TOO_LARGE, 413);
    const weightUnit = form.data.weight_unit ?? athlete.profile.unit_preference;
    const distanceUnit = form.data.distance_unit ?? (weightUnit === 'lbs' ? 'mi' : 'km');
    try {
      const result = await thread.run(athlete, {
        fileName: upload.name.slice(0, 200) || 'the file',
        bytes: upload.bytes,
        parse: from === 'strong' ? { app: 'strong', weightUnit, distanceUnit } : { app: from },
        importHints: { hevy: `choose ${APP_NAMES.hevy} above and upload it again`, strong: `choose ${APP_NAMES.strong} above and upload it again` },
      });
      return reply.redirect(summaryUrl(from, result), 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return refuse(`${from === 'garmin' ? 'Garmin: ' : ''}${error.message}`, error.code === 'busy' ? 503 : 400);
    }
  });
}

/** The Import page with an import's summary in its query (read back by `doneOf`). */
function summaryUrl(from: ImportApp, result: ImportResult | GarminResult): string {
  const q = `from=${from}&in_file=${result.workouts_in_file}&added=${result.workouts_added}&skipped=${result.workouts_skipped}&exercises=${result.exercises_added}`;
  const others = result.others
    ? `&measurements=${result.others.measurements_added}&meals=${result.others.meals_added}&others_skipped=${result.others.skipped}`
    : '';
  const fit = 'fit_files' in result ? `&fit_files=${result.fit_files}&fit_ignored=${result.fit_files_ignored}` : '';
  return `/import?${q}${others}${fit}`;
}

/** The summary of an import just made, as its redirect's query says it. */
interface Done {
  added: number;
  skipped: number;
  exercises: number;
  inFile: number;
  from: string;
  /** Measurements and meals (Apple Health), or measurements alone (Garmin: `meals` null). */
  others: { measurements: number; meals: number | null; skipped: number } | null;
  /** A Garmin upload's FIT files: read, and of other kinds passed over. */
  fit: { files: number; ignored: number } | null;
}

function doneOf(q: Record<string, unknown>): Done | null {
  const from = q.from;
  if (typeof q.added !== 'string' || typeof q.skipped !== 'string' || (from !== 'hevy' && from !== 'strong' && from !== 'apple_health' && from !== 'garmin'))
    return null;
  const n = (v: unknown) => Number(v) || 0;
  return {
    added: n(q.added),
    skipped: n(q.skipped),
    exercises: n(q.exercises),
    inFile: n(q.in_file),
    from: APP_NAMES[from],
    others:
      from === 'apple_health' || from === 'garmin'
        ? { measurements: n(q.measurements), meals: from === 'garmin' ? null : n(q.meals), skipped: n(q.others_skipped) }
        : null,
    fit: from === 'garmin' ? { files: n(q.fit_files), ignored: n(q.fit_ignored) } : null,
  };
}

/** Uploads a stopped server left behind (older than a day: none can still be importing). */
async function sweepUploads(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const dayAgo = Date.now() - 86_400_000;
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && info.mtimeMs < dayAgo) await rm(path, { force: true }).catch(() => undefined);
  }
}

/** What the form sent for its choices, each where the form's own schema takes it. */
type Choices = Partial<Pick<z.output<typeof fields>, 'app' | 'weight_unit' | 'distance_unit'>>;

function choicesOf(body: unknown): Choices {
  const sent = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { app, weight_unit, distance_unit } = fields.shape;
  return {
    app: app.safeParse(sent.app).data,
    weight_unit: weight_unit.safeParse(sent.weight_unit).data,
    distance_unit: distance_unit.safeParse(sent.distance_unit).data,
  };
}

/** The summary of a finished import: what the file held, what was added, what was already there. */
function summaryOf(done: Done): Html {
  const { others, fit } = done;
  const added = others
    ? others.meals === null
      ? ` and ${count(others.measurements, 'body measurement')}`
      : `, ${count(others.measurements, 'body measurement')} and ${count(others.meals, 'day')} of meals`
    : '';
  const held = fit
    ? `The upload held ${count(fit.files, 'FIT file')} (${count(done.inFile, 'workout')})${fit.ignored ? `; ${count(fit.ignored, 'FIT file')} of other kinds (settings, monitoring) ${fit.ignored === 1 ? 'was' : 'were'} passed over` : ''}. `
    : done.inFile
      ? `The file held ${count(done.inFile, 'workout')}. `
      : '';
  const othersSkipped = others?.skipped
    ? others.meals === null
      ? `${count(others.skipped, 'body measurement')} already in your record ${others.skipped === 1 ? 'was' : 'were'} skipped. `
      : `${count(others.skipped, 'measurement or meal', 'measurements or meals')} already in your record ${others.skipped === 1 ? 'was' : 'were'} skipped. `
    : '';
  return html`<div class="notice" role="status"><p><strong>Imported ${count(done.added, 'workout')}${added} from ${done.from}.</strong></p><p>${held}${
    done.skipped ? `${count(done.skipped, 'workout')} ${done.skipped === 1 ? 'was' : 'were'} already in your record and skipped. ` : ''
  }${othersSkipped}${done.exercises ? `${count(done.exercises, 'new exercise')} added.` : 'No new exercises.'}</p><p><a href="/workouts">See your workouts</a> · <a href="/progress">See your progress</a></p></div>`;
}

function importPage(athlete: AthleteState, session: Session, done: Done | null, error: string | null, chosen: Choices = {}): Html {
  // The CSV form's choice; a refused Garmin upload leaves it at Hevy.
  const from = chosen.app === 'strong' ? 'strong' : 'hevy';
  const weightUnit = chosen.weight_unit ?? athlete.profile.unit_preference;
  const distanceUnit = chosen.distance_unit ?? (weightUnit === 'lbs' ? 'mi' : 'km');
  const selected = (on: boolean) => (on ? html` selected` : '');
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<h1>Import your data</h1>
${done ? summaryOf(done) : ''}
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<section class="card" aria-labelledby="csv-title"><h2 id="csv-title">Hevy or Strong</h2>
<p>Bring your history from Hevy or Strong: export it as CSV in the app, then upload the file here. The whole file is imported, or none of it: a row RepLedger cannot read is named by its line, and nothing is saved. Importing the same file again, or a later export that overlaps it, adds only the workouts not yet in your record.</p>
<form id="import-form" method="post" action="/import" enctype="multipart/form-data" data-upload><input type="hidden" name="_csrf" value="${session.csrf}">
<fieldset><legend><strong>Exported from</strong></legend>
<label class="area"><input type="radio" name="app" value="hevy"${checked(from === 'hevy')}><span>Hevy <span class="hint">(in Hevy's settings, export your workouts as CSV; the file says itself whether it is in kilograms or pounds)</span></span></label>
<label class="area"><input type="radio" name="app" value="strong"${checked(from === 'strong')}><span>Strong <span class="hint">(in Strong's settings, export your data as CSV)</span></span></label>
</fieldset>
<fieldset><legend><strong>For a Strong file: its units</strong> <span class="hint">(Strong's file does not say)</span></legend>
<label for="weight_unit">Weights in the file</label>
<select id="weight_unit" name="weight_unit"><option value="kg"${selected(weightUnit === 'kg')}>kilograms</option><option value="lbs"${selected(weightUnit === 'lbs')}>pounds</option></select>
<label for="distance_unit">Distances in the file</label>
<select id="distance_unit" name="distance_unit"><option value="km"${selected(distanceUnit === 'km')}>kilometres</option><option value="mi"${selected(distanceUnit === 'mi')}>miles</option></select>
</fieldset>
<label for="file">Export file (CSV, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MB)</label>
<input type="file" id="file" name="file" accept=".csv,text/csv" required>
<p class="hint">Times in the file are read in your timezone, ${athlete.profile.timezone.replaceAll('_', ' ')}. After the upload, saving takes about a second for a year of training; the summary then appears here.</p>
<div id="import-progress" data-upload-progress hidden><progress id="import-bar" aria-labelledby="import-words"></progress><p id="import-words" aria-live="polite"></p></div>
<button type="submit">Import</button>
</form></section>
<section class="card" aria-labelledby="health-title"><h2 id="health-title">Apple Health</h2>
<p>Bring your workouts, body weight and body fat, and what you ate each day, from the Health app on your iPhone: tap your picture at the top right, then <strong>Export All Health Data</strong>, and upload the <strong>export.zip</strong> it makes (AirDrop or Files bring it to this device). Heart rate, steps and other samples are not kept. Each day's food becomes one meal, “${DAY_TOTAL_NAME}”; today's is left out until it is complete. Uploading a newer export later adds only what is new.</p>
<form id="health-form" method="post" action="${HEALTH_PATH}" enctype="multipart/form-data" data-upload><input type="hidden" name="_csrf" value="${session.csrf}">
<label for="health-file">The Health app's export (export.zip, at most ${HEALTH_UPLOAD_MAX_BYTES / 1024 / 1024 / 1024} GB)</label>
<input type="file" id="health-file" name="file" accept=".zip,.xml,application/zip,text/xml" required>
<div id="health-progress" data-upload-progress hidden><progress aria-labelledby="health-words"></progress><p id="health-words" aria-live="polite"></p></div>
<button type="submit">Import from Apple Health</button>
</form></section>
<section class="card" aria-labelledby="garmin-title"><h2 id="garmin-title">Garmin</h2>
<p>Bring activities and weigh-ins from a Garmin watch or scale: in Garmin Connect on the web, open an activity, choose the gear menu, then <strong>Export Original</strong>, and upload the .zip (or the .fit inside it); several .fit files zipped together go in at once. Strength training comes with its sets and exercises, other activities with their time and distance, and a scale's readings as body weight and body fat. The whole upload is imported, or none of it: a damaged .fit file is named, and nothing is saved. A file imported before is skipped.</p>
<form id="garmin-form" method="post" action="/import" enctype="multipart/form-data" data-upload><input type="hidden" name="_csrf" value="${session.csrf}"><input type="hidden" name="app" value="garmin">
<label for="garmin-file">FIT files (a .fit, or a .zip of them, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MB)</label>
<input type="file" id="garmin-file" name="file" accept=".fit,.zip,application/zip,application/vnd.ant.fit" required>
<div id="garmin-progress" data-upload-progress hidden><progress aria-labelledby="garmin-words"></progress><p id="garmin-words" aria-live="polite"></p></div>
<button type="submit">Import from Garmin</button>
</form></section>
<script>${IMPORT_PROGRESS_SCRIPT}</script>`;
}
