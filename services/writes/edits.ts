// The athlete's own edits from the web app: save one, undo the last, and look at the last. Each
// move is a command on the record stream (guard: writes not paused; decide: athlete-edit.ts;
// append), with the athlete as its actor, so the record's history says who made the change.
import { randomUUID } from 'node:crypto';
import { WRITE_KINDS, writeKindOf, type WriteAction, type WriteKind } from '../../contracts/write.ts';
import type { RecordService } from '../commands/record-service.ts';
import { decideEdit, decideEditUndo, editKeys, type LastEdit } from '../domain/athlete-edit.ts';
import type { Clock } from '../domain/clock.ts';
import type { Maintenance } from '../operations/maintenance.ts';
import { itemKey } from '../domain/record.ts';
import type { ChangedBy } from '../words/changes.ts';
import { athleteActor, changedBy, refuseWhilePaused } from './moves.ts';
import { writeShape } from './proposals.ts';

export interface EditDeps {
  clock: Clock;
  records: RecordService;
  maintenance: Maintenance;
}

/** What a saved edit answers: its id (the one its undo names), the ids it gave new items by action, and the log position of its append. */
export interface SavedEdit {
  edit_id: string;
  created: Array<string | null>;
  position: number | null;
}

type Body = Record<string, unknown>;

/** An item as a form reads it: its write shape and revision, and its last change. */
export interface EditedItem {
  record: Body;
  revision: number;
  at: string | null;
  by: ChangedBy;
}

/** The athlete's last edit as a page tells it. */
export interface ShownEdit {
  edit_id: string;
  saved_at: string;
  /** The items it changed that a page names (a removed workout's feedback goes with the workout). */
  changes: Array<{ change: 'created' | 'updated' | 'deleted'; kind: WriteKind; id: string; before: Body | null; after: Body | null }>;
}

export class EditService {
  readonly #deps: EditDeps;

  constructor(deps: EditDeps) {
    this.#deps = deps;
  }

  /** Saves the athlete's edit as a whole, or refuses it (`WriteRefusal`) and saves nothing. */
  async save(athleteId: string, timezone: string, actions: WriteAction[]): Promise<SavedEdit> {
    await refuseWhilePaused(this.#deps);
    const editId = randomUUID();
    // Ids stay the same on every attempt, so that a retried append names the same new items.
    const ids: string[] = [];
    const { result, position } = await this.#deps.records.commandAt(athleteId, athleteActor(athleteId), async (loaded) => {
      let minted = 0;
      const newId = () => (ids[minted++] ??= randomUUID());
      const now = this.#deps.clock.now();
      const images = await loaded.images(editKeys(actions));
      const events = decideEdit({ editId, actions, now, timezone, newId }, loaded.state, images);
      let next = 0;
      const created = actions.map((a) => (a.op !== 'create' ? null : a.kind === 'fitness_preferences' ? athleteId : ids[next++]!));
      return { events, result: created };
    });
    return { edit_id: editId, created: result, position };
  }

  /** Undoes the athlete's last edit (`editId`) as a whole, or refuses (`ReviewRefusal`) and changes nothing. */
  async undo(athleteId: string, editId: string): Promise<{ position: number | null }> {
    await refuseWhilePaused(this.#deps);
    const { position } = await this.#deps.records.commandAt(athleteId, athleteActor(athleteId), async (loaded) => ({
      events: decideEditUndo({ now: this.#deps.clock.now(), record: loaded.state, last: await loaded.lastEdit(), editId }),
      result: undefined,
    }));
    return { position };
  }

  /**
   * An item as the record holds it now, in its kind's write shape, with its revision (what a form
   * is read at) and when and by whom it last changed; null for an item the record does not hold.
   */
  item(athleteId: string, kind: WriteKind, id: string): Promise<EditedItem | null> {
    return this.#deps.records.read(athleteId, async (loaded) => {
      const key = itemKey(WRITE_KINDS[kind], id);
      const image = (await loaded.images(new Set([key]))).get(key);
      if (!image?.item) return null;
      const change = await loaded.lastChange(key);
      return { record: writeShape(kind, image.item as Body), revision: image.revision, at: change?.at ?? null, by: await changedBy(loaded, change) };
    });
  }

  /** The athlete's last edit, while it is not undone. */
  last(athleteId: string): Promise<LastEdit> {
    return this.#deps.records.read(athleteId, (loaded) => loaded.lastEdit());
  }

  /** The athlete's last edit as a page tells it: each item it changed, before and as it is now (in write shapes); null when none. */
  lastShown(athleteId: string): Promise<ShownEdit | null> {
    return this.#deps.records.read(athleteId, async (loaded) => {
      const last = await loaded.lastEdit();
      if (!last) return null;
      const now = await loaded.images(new Set(last.affected.map((x) => itemKey(x.kind, x.id))));
      const changes = last.affected.flatMap((x, i) => {
        const kind = writeKindOf(x.kind);
        if (!kind) return [];
        const before = last.before[i]?.item ?? null;
        const after = now.get(itemKey(x.kind, x.id))?.item ?? null;
        return [{ change: x.change, kind, id: x.id, before: before && writeShape(kind, before), after: after && writeShape(kind, after) }];
      });
      return { edit_id: last.edit_id, saved_at: last.saved_at, changes };
    });
  }
}
