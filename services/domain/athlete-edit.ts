// The athlete's own changes to their record, made in the web app (spec 1.5: the athlete is the one
// person who changes it). An edit is a batch of the same actions an agent proposes (write shapes,
// a new exercise named by `ref`), checked by the same rules and decided by the same record
// decider, but saved at once: its record events and `edit.saved` in one append. `edit.saved`
// keeps what the items were before, so the athlete can undo their last edit under the rules of
// undoing a batch (within the undo window, and only while nothing it changed has changed since).
import type { EditEvent, EditSaved, RecordEvent } from '../../contracts/events.ts';
import { writeAction, type WriteAction } from '../../contracts/write.ts';
import { DomainError } from './errors.ts';
import { approvalKeys, decideReversal, ReviewRefusal, savedItems } from './proposal-review.ts';
import { checkDates, imageOf, normalise, recordChangesOf, refusalOf, refuseRepeatedItems, WriteRefusal } from './proposal.ts';
import { decideChanges, type ItemImage, type RecordState } from './record.ts';

export interface EditCommand {
  editId: string;
  actions: WriteAction[];
  now: Date;
  /** The athlete's timezone: what "today" is for a check-in's day and a routine's dates. */
  timezone: string;
  /** Ids for the items the edit creates. */
  newId: () => string;
}

/** The items whose current bodies an edit needs (`kind/id`): every item it updates or removes, and a removed workout's feedback. */
export function editKeys(actions: readonly WriteAction[]): Set<string> {
  return approvalKeys(actions.flatMap((a) => (a.op === 'create' || a.id === undefined ? [] : [{ op: a.op, kind: a.kind, id: a.id }])));
}

/**
 * Decides an edit on the record as it is: the record events and `edit.saved`, or a `WriteRefusal`
 * naming the action and field (`stale_revision` when an item changed since the form was read).
 * `images` holds the current body of every item in `editKeys`.
 */
export function decideEdit(command: EditCommand, record: RecordState, images: ReadonlyMap<string, ItemImage>): Array<RecordEvent | EditEvent> {
  if (command.actions.length === 0) throw new WriteRefusal('invalid_action', 'an edit changes at least one item');
  command.actions.forEach((action, index) => {
    const parsed = writeAction.safeParse(action);
    if (parsed.success) return;
    const issue = parsed.error.issues[0]!;
    throw new WriteRefusal('invalid_action', issue.message, { actionIndex: index, field: ['actions', index, ...issue.path].join('.') });
  });
  const actions = normalise(command.actions, record, command.newId);
  refuseRepeatedItems(actions);
  actions.forEach((action, index) => {
    const before = action.op === 'create' ? null : imageOf(images, action, index);
    checkDates(action, before, command, index);
  });
  const changes = recordChangesOf(actions, [], images);
  let recordEvents: RecordEvent[];
  try {
    recordEvents = decideChanges(changes, record);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw refusalOf(error, changes.length, []);
  }
  const { affected, before } = savedItems(recordEvents, record, images);
  const saved: EditSaved = { type: 'edit.saved', data: { edit_id: command.editId, saved_at: command.now.toISOString(), affected, before } };
  return [...recordEvents, saved];
}

/** The athlete's last edit, as the record stream holds it: null when they have none, or undid it. */
export type LastEdit = EditSaved['data'] | null;

/**
 * Undoes the athlete's last edit (`editId`, so that a page read before a newer edit does not undo
 * that one): the restoring record events and `edit.undone`, or a `ReviewRefusal`.
 */
export function decideEditUndo(input: { now: Date; record: RecordState; last: LastEdit; editId: string }): Array<RecordEvent | EditEvent> {
  const { last } = input;
  if (!last || last.edit_id !== input.editId) throw new ReviewRefusal('not_committed', 'only your last change can be undone, and this is not it');
  const decision = decideReversal({
    now: input.now,
    record: input.record,
    savedAt: last.saved_at,
    affected: last.affected,
    dependencies: [],
    before: last.before,
    noun: 'change',
  });
  return [...decision.recordEvents, { type: 'edit.undone', data: { edit_id: last.edit_id, undone_at: input.now.toISOString(), affected: decision.affected } }];
}
