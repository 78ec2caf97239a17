// Write permissions (spec 4.3 rule 2, 5.3): a vocabulary of their own, apart from the read scopes.
// Per area of the record, one permission to create and edit, and a separate one to delete.
// Editing and deleting also need the area's read scope: an agent changes only what it may read.
import { z } from 'zod';
import { READ_SCOPES, type ReadScope } from './common.ts';
import type { RecordItem, RecordKind } from './record.ts';

export type WritePermission = `${ReadScope}:write` | `${ReadScope}:delete`;

export const WRITE_PERMISSIONS = READ_SCOPES.flatMap((area) => [`${area}:write`, `${area}:delete`] as const) as WritePermission[];
export const writePermission = z.enum(WRITE_PERMISSIONS as [WritePermission, ...WritePermission[]]);

/** The web-app form where the athlete grants a connection the permissions an agent asks for. */
export function permissionFormPath(grantId: string, permissions: readonly WritePermission[]): string {
  return `/connections/${grantId}/write-permissions/request?permissions=${encodeURIComponent(permissions.join(' '))}`;
}

/** How the settings page and the permission form name each permission. */
export function describePermission(permission: WritePermission, areaTitle: (area: ReadScope) => string): string {
  const [area, what] = permission.split(':') as [ReadScope, 'write' | 'delete'];
  return `${what === 'write' ? 'Suggest new and changed' : 'Suggest deleting'} ${areaTitle(area).toLowerCase()} records`;
}

/** The area each kind of record belongs to; goals, whose areas differ by type, are in `GOAL_AREAS`. */
const KIND_AREAS: Record<Exclude<RecordKind, 'goal'>, ReadScope> = {
  workout: 'training',
  exercise: 'training',
  feedback: 'training',
  routine: 'training',
  equipment_setup: 'training',
  fitness_preferences: 'training',
  checkin: 'recovery',
  meal: 'nutrition',
  body_measurement: 'body_measurements',
};

const GOAL_AREAS: Record<RecordItem<'goal'>['goal_type'], ReadScope> = {
  target_1rm: 'training',
  weekly_session_count: 'training',
  weekly_volume: 'training',
  target_bodyweight: 'body_measurements',
  daily_calories: 'nutrition',
  daily_protein: 'nutrition',
};

/** The area an item is in: by its kind, and for a goal by its type. */
export function areaOf(kind: RecordKind, item: { goal_type?: RecordItem<'goal'>['goal_type'] } | null): ReadScope {
  if (kind !== 'goal') return KIND_AREAS[kind];
  if (!item?.goal_type) throw new Error('a goal belongs to the area of its goal_type');
  return GOAL_AREAS[item.goal_type];
}

export interface Requirement {
  permissions: WritePermission[];
  /** Read scopes the change also needs: editing or deleting what the agent may read. */
  scopes: ReadScope[];
}

/**
 * What one change needs. `before` is the item as it is (for an update or a delete), `after` as
 * it will be (for a create or an update): an update that moves a goal to another area needs
 * both areas.
 */
export function requirementOf(op: 'create' | 'update' | 'delete', kind: RecordKind, before: object | null, after: object | null): Requirement {
  const areas = [...new Set([before, after].filter((i): i is object => i !== null).map((i) => areaOf(kind, i)))].sort();
  if (op === 'create') return { permissions: areas.map((a) => `${a}:write` as const), scopes: [] };
  return { permissions: areas.map((a) => `${a}:${op === 'delete' ? 'delete' : 'write'}` as const), scopes: areas };
}
