// The Health app's export uploaded from the browser: often hundreds of megabytes, so the multipart
// body is streamed into a file of its own under the data directory, never held in memory (the CSV
// imports' uploads are, up to 10 MB). Only a signed-in athlete's upload is kept, and only once the
// form's token, which the form sends before the file, matches: anyone else's bytes are read and
// dropped. The file is removed once its import has answered (`discard`).
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { csrfMatches } from '../identity/sessions.ts';

/** The largest export the web app takes: a decade of a watch's samples zips to a few hundred MB. */
export const HEALTH_UPLOAD_MAX_BYTES = 1024 * 1024 * 1024;

export interface HealthUploadFile {
  name: string;
  path: string;
  bytes: number;
  /** Longer than HEALTH_UPLOAD_MAX_BYTES: cut off there, and refused. */
  tooLarge: boolean;
}

/** The form as the preHandler and the route read it: its token, and the file if one was kept. */
export interface HealthUpload {
  _csrf?: string;
  file?: HealthUploadFile;
}

/** Reads the multipart body of `request`, keeping its file under `dir` when the athlete may send it. */
export async function receiveHealthUpload(request: FastifyRequest, payload: Readable, dir: string): Promise<HealthUpload> {
  const form: HealthUpload = {};
  const writes: Promise<void>[] = [];
  let parser: BusboyInstance;
  try {
    // The content type is what routed the body here: it is a multipart one.
    parser = new Busboy({ headers: request.headers as BusboyHeaders, limits: { files: 1, fields: 10, fileSize: HEALTH_UPLOAD_MAX_BYTES } });
  } catch {
    throw Object.assign(new Error('the upload is not a multipart form'), { statusCode: 400 });
  }
  parser.on('field', (name, value) => {
    if (name === '_csrf') form._csrf = value;
  });
  parser.on('file', (_field, stream, filename) => {
    if (!request.session?.athlete_id || !csrfMatches(request, form._csrf)) {
      stream.resume();
      return;
    }
    const path = join(dir, `health-${randomUUID()}.upload`);
    const file: HealthUploadFile = { name: filename || 'the file', path, bytes: 0, tooLarge: false };
    form.file = file;
    stream.on('limit', () => (file.tooLarge = true));
    writes.push(
      mkdir(dir, { recursive: true })
        .then(() => pipeline(stream, createWriteStream(path, { mode: 0o600 })))
        .then(() => {
          file.bytes = stream.bytesRead;
        }),
    );
  });
  try {
    await pipeline(payload, parser);
    await Promise.all(writes);
  } catch (error) {
    if (form.file) await discard(form.file);
    throw Object.assign(new Error(`the upload could not be read (${(error as Error).message})`), { statusCode: 400 });
  }
  return form;
}

/** Removes an upload's file; never fails. */
export async function discard(file: HealthUploadFile | undefined): Promise<void> {
  if (file) await rm(file.path, { force: true }).catch(() => undefined);
}

/** Where uploads wait for their import: a folder of the data directory's own. */
export const uploadsDirOf = (dataDir: string) => join(dataDir, 'uploads');
