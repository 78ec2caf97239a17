// Tampering with a store as someone with its database file could, for the tests that show what
// the auditor's tools and the athlete's pages make of it (issue 39).
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Rewrites the proposals read model's document (`rm_proposals`) of a proposal with `edit`, in the
 * embedded store's file, behind the app's back; `athleteId` picks one where two athletes have the
 * command id.
 */
export function tamperProposalDoc(dataDir: string, commandId: string, edit: (doc: string) => string, athleteId?: string): void {
  const db = new DatabaseSync(join(dataDir, 'repledger.db'));
  try {
    const rows = (db.prepare('SELECT partition, doc FROM rm_proposals WHERE id = ?').all(commandId) as Array<{ partition: string; doc: string }>).filter(
      (r) => athleteId === undefined || r.partition === athleteId,
    );
    if (rows.length !== 1) throw new Error(`${rows.length} documents of proposal ${commandId} to tamper with, not one`);
    const { partition, doc } = rows[0]!;
    const next = edit(doc);
    if (next === doc) throw new Error('the edit changed nothing');
    db.prepare('UPDATE rm_proposals SET doc = ? WHERE partition = ? AND id = ?').run(next, partition, commandId);
  } finally {
    db.close();
  }
}

/** `text` with one character changed to `by`: the one just after the first `marker` that follows `within`. */
export function oneByte(text: string, within: string, marker: string, by: string): string {
  const from = text.indexOf(within);
  const at = from < 0 ? -1 : text.indexOf(marker, from);
  if (at < 0) throw new Error(`no ${marker} after ${within} in ${text}`);
  const i = at + marker.length;
  if (by.length !== 1 || text[i] === by) throw new Error(`${by} does not change one character`);
  return `${text.slice(0, i)}${by}${text.slice(i + 1)}`;
}
