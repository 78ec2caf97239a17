// A command that does not exist (`repledger athlets list`): name the nearest one and exit 127, the
// shell's "command not found". @oclif/plugin-not-found (4.x) does this only at a terminal, where it
// asks "Did you mean …?" and runs the suggestion if confirmed; without one (a script, CI, a pipe) it
// prints no suggestion at all. So at a terminal its hook runs as it is; elsewhere, and under --json,
// this one names the suggestion without asking, and runs nothing. (`repledger help athlets` is
// cli/help.ts's, with the same suggestion.)
import type { Hook } from '@oclif/core';
import notFound from '@oclif/plugin-not-found';
import { notFoundMessage } from '../suggest.ts';

const hook: Hook.CommandNotFound = async function (opts) {
  const interactive = process.stdin.isTTY && process.stdout.isTTY && !process.argv.includes('--json');
  if (interactive) return notFound.call(this, opts);
  this.error(notFoundMessage(opts.config, opts.id), { exit: 127 });
};

export default hook;
