// "Download my record": the signed-in athlete's whole record as one JSON file, the same document
// as `repledger export` (services/export/record-export.ts). A GET that changes nothing, so it needs
// no CSRF token; it answers only the session's own athlete, and is never cached.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../api/services.ts';
import { exportFileName, exportRecord } from '../export/record-export.ts';
import { signedInAthlete } from './record-pages.ts';

export const EXPORT_PATH = '/settings/export';

export function registerExport(web: FastifyInstance, app: Services): void {
  web.get(EXPORT_PATH, async (request, reply) => {
    const who = await signedInAthlete(app, request, reply);
    if (!who) return reply;
    const dump = await exportRecord(app, who.athlete.athlete_id);
    return reply
      .type('application/json; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${exportFileName(dump)}"`)
      .header('Cache-Control', 'no-store')
      .send(Readable.from(dump.chunks()));
  });
}
