// The athlete's own edits from the web app: save one, undo the last, and look at the last. Each
// move is a command on the record stream (guard: writes not paused; decide: athlete-edit.ts;
// append), with the athlete as its actor, so the record's history says who made the change.
import { randomUUID } from 'node:crypto';
import type { WriteAction } from '../../contracts/write.ts';
import type { RecordService } from '../commands/record-service.ts';
import { decideEdit, decideEditUndo, editKeys, type LastEdit } from '../domain/athlete-edit.ts';
import type { Clock } from '../domain/clock.ts';
import type { Maintenance } from '../operations/maintenance.ts';
import { athleteActor, refuseWhilePaused } from './moves.ts';

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
      const images = await loaded.images(editKeys(actions, athleteId));
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

  /** The athlete's last edit, while it is not undone. */
  last(athleteId: string): Promise<LastEdit> {
    return this.#deps.records.read(athleteId, (loaded) => loaded.lastEdit());
  }
}
