// Which folders beside a target are the staging folders of a backup or restore for it: only those
// for the same name and label, named by a process id; anything else there is not ours to remove.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stagingFolders } from '../../services/backup/staging.ts';

test('staging folders for a target, by the process each names', () => {
  const names = [
    '.nightly.partial-123',
    '.nightly.partial-7',
    '.nightly.restore-55',
    '.nightly-2.partial-9',
    '.nightly.partial-9.partial-10',
    '.nightly.partial-0',
    '.nightly.partial-12a',
    '.nightly.partial-',
    'nightly',
    '.other.partial-4',
  ];
  assert.equal(stagingFolders(names, '/backups/nightly', 'partial'), [
    { name: '.nightly.partial-123', pid: 123 },
    { name: '.nightly.partial-7', pid: 7 },
  ]);
  assert.equal(stagingFolders(names, '/backups/nightly/', 'restore'), [{ name: '.nightly.restore-55', pid: 55 }]);
});

test.run();
