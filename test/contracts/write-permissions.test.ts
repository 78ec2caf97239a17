// The write-permission vocabulary: what each change needs (spec 4.3 rule 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_SCOPES } from '../../contracts/common.ts';
import { recordKinds } from '../../contracts/record.ts';
import { areaOf, requirementOf, WRITE_PERMISSIONS } from '../../contracts/write-permissions.ts';

test('two permissions per area, named for it, none shared with the read scopes', () => {
  assert.equal(WRITE_PERMISSIONS.length, READ_SCOPES.length * 2);
  for (const area of READ_SCOPES) assert.ok(WRITE_PERMISSIONS.includes(`${area}:write`) && WRITE_PERMISSIONS.includes(`${area}:delete`), area);
  assert.not.ok(WRITE_PERMISSIONS.some((p) => (READ_SCOPES as string[]).includes(p)));
});

test('every record kind has an area; goals by their type', () => {
  for (const kind of recordKinds.filter((k) => k !== 'goal')) assert.ok(READ_SCOPES.includes(areaOf(kind, null)), kind);
  assert.is(areaOf('meal', null), 'nutrition');
  assert.is(areaOf('checkin', null), 'recovery');
  assert.is(areaOf('body_measurement', null), 'body_measurements');
  assert.is(areaOf('equipment_setup', null), 'training');
  assert.is(areaOf('fitness_preferences', null), 'training');
  assert.is(areaOf('goal', { goal_type: 'target_bodyweight' }), 'body_measurements');
  assert.is(areaOf('goal', { goal_type: 'daily_protein' }), 'nutrition');
  assert.is(areaOf('goal', { goal_type: 'weekly_volume' }), 'training');
  assert.throws(() => areaOf('goal', null), /goal_type/);
});

test('creating needs the write permission; editing also the read scope; deleting its own permission and the read scope', () => {
  assert.equal(requirementOf('create', 'meal', null, {}), { permissions: ['nutrition:write'], scopes: [] });
  assert.equal(requirementOf('update', 'checkin', {}, {}), { permissions: ['recovery:write'], scopes: ['recovery'] });
  assert.equal(requirementOf('delete', 'workout', {}, null), { permissions: ['training:delete'], scopes: ['training'] });
});

test('an update that moves a goal to another area needs both areas', () => {
  assert.equal(requirementOf('update', 'goal', { goal_type: 'target_bodyweight' }, { goal_type: 'daily_calories' }), {
    permissions: ['body_measurements:write', 'nutrition:write'],
    scopes: ['body_measurements', 'nutrition'],
  });
  assert.equal(requirementOf('update', 'goal', { goal_type: 'target_1rm' }, { goal_type: 'weekly_volume' }), {
    permissions: ['training:write'],
    scopes: ['training'],
  });
});

test.run();
