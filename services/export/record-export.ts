// The athlete's whole record as one JSON document (contracts/export.ts), for the web app's
// "Download my record" and `repledger export` alike. It is folded from the record's event stream,
// not the read models: one consistent revision of the record, with item bodies exactly as stored
// and no projection lag in distributed mode. The document is written an item a line, so a large
// record (10,000 workouts is tens of MB) is never one string.
import { streams } from '../../contracts/events.ts';
import { EXPORT_FORMAT, EXPORT_SECTIONS, type ExportEntry, type ExportSection } from '../../contracts/export.ts';
import { recordKinds, type RecordKind } from '../../contracts/record.ts';
import { DomainError } from '../domain/errors.ts';
import { itemImages } from '../domain/record.ts';
import type { AthleteService } from '../identity/athletes.ts';
import type { Clock } from '../domain/clock.ts';
import type { EventStore } from '../store/event-store.ts';

export interface RecordDump {
  athlete_id: string;
  exported_at: string;
  /** Items per section. */
  counts: Record<ExportSection, number>;
  items: number;
  /** The document, in pieces; `progress` hears how many items are written of how many. */
  chunks(progress?: (done: number, total: number) => void): AsyncGenerator<string>;
}

/** Reads the record once; the dump then writes it however slowly it is consumed. */
/** What an export reads. */
export interface ExportDeps {
  athletes: AthleteService;
  clock: Clock;
  events: EventStore;
}

export async function exportRecord(app: ExportDeps, athleteId: string): Promise<RecordDump> {
  const athlete = await app.athletes.get(athleteId);
  if (!athlete) throw new DomainError('not_found', `no athlete with id ${athleteId}`);
  // One read of the stream: one revision of the record, however many commands land meanwhile.
  const events = await app.events.readStream(streams.record(athleteId));
  const images = itemImages(events.map((e) => ({ type: e.type, data: e.data, occurred_at: String(e.metadata.occurred_at) })));
  const byKind = new Map<RecordKind, ExportEntry[]>(recordKinds.map((k) => [k, []]));
  // Live items in the order they were first created; deleted ones are not part of the record.
  for (const image of images.values()) {
    if (image.item) byKind.get(image.kind)!.push({ revision: image.revision, created_at: image.created_at, updated_at: image.updated_at, item: image.item });
  }
  // Workouts in the order the record projection walks them (end, then id): an import then labels
  // each set's records once, never re-labelling a later workout.
  byKind.get('workout')!.sort((a, b) => (endedAt(a) === endedAt(b) ? order(a.item.id, b.item.id) : order(endedAt(a), endedAt(b))));
  const counts = Object.fromEntries(recordKinds.map((k) => [EXPORT_SECTIONS[k], byKind.get(k)!.length])) as Record<ExportSection, number>;
  const items = Object.values(counts).reduce((a, b) => a + b, 0);
  const exportedAt = app.clock.now().toISOString();
  const head = { format: EXPORT_FORMAT, exported_at: exportedAt, athlete_id: athleteId, profile: athlete.profile };

  return {
    athlete_id: athleteId,
    exported_at: exportedAt,
    counts,
    items,
    async *chunks(progress) {
      yield `${JSON.stringify(head).slice(0, -1)},"record":{\n`;
      let done = 0;
      for (const [i, kind] of recordKinds.entries()) {
        const entries = byKind.get(kind)!;
        yield `${JSON.stringify(EXPORT_SECTIONS[kind])}:[${entries.length ? '\n' : ''}`;
        for (const [j, entry] of entries.entries()) {
          yield `${JSON.stringify(entry)}${j < entries.length - 1 ? ',' : ''}\n`;
          progress?.(++done, items);
        }
        yield `]${i < recordKinds.length - 1 ? ',' : ''}\n`;
      }
      yield '}}\n';
    },
  };
}

const endedAt = (e: ExportEntry) => String((e.item as Record<string, unknown>).ended_at);
const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The name a download is saved under, dated by the export's UTC day. */
export function exportFileName(dump: RecordDump): string {
  return `repledger-record-${dump.exported_at.slice(0, 10)}.json`;
}
