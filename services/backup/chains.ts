// Each athlete's receipt chain head, recomputed from a copy of the embedded log alone (no read
// model, no app): what a backup's manifest records, and a restore must find again.
import type { DatabaseSync } from 'node:sqlite';
import { streams } from '../../contracts/events.ts';
import { ChainVerifier, type ChainEvent } from '../domain/receipt-chain.ts';
import type { ChainHead } from './manifest.ts';

const PAGE = 500;
const RECORD_PREFIX = streams.record('');

/** Heads of every record stream in `db` (an SQLite event log), by athlete id in order. A broken chain is an error: it is not a backup to keep. */
export function chainHeadsOf(db: DatabaseSync): ChainHead[] {
  const ids = (
    db.prepare(`SELECT DISTINCT stream FROM events WHERE substr(stream, 1, ?) = ? ORDER BY stream`).all(RECORD_PREFIX.length, RECORD_PREFIX) as Array<{
      stream: string;
    }>
  ).map((r) => r.stream.slice(RECORD_PREFIX.length));
  const page = db.prepare('SELECT position, revision, type, data, metadata FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?');
  return ids.map((athleteId) => {
    const verifier = new ChainVerifier(athleteId);
    for (let from = 0; ; ) {
      const rows = page.all(streams.record(athleteId), from, PAGE) as Array<{
        position: number;
        revision: number;
        type: string;
        data: string;
        metadata: string;
      }>;
      for (const r of rows) {
        const event: ChainEvent = { position: r.position, revision: r.revision, type: r.type, data: JSON.parse(r.data), metadata: JSON.parse(r.metadata) };
        verifier.add(event);
      }
      if (rows.length < PAGE) break;
      from = rows[rows.length - 1]!.revision + 1;
    }
    const report = verifier.report();
    if (report.broken)
      throw new Error(
        `the receipt chain of athlete ${athleteId} is broken at link #${report.broken.sequence}: ${report.broken.reason}; run \`repledger receipts verify\``,
      );
    return { athlete_id: athleteId, links: report.links, digest: report.head?.digest ?? null };
  });
}
