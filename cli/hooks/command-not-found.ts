// A command that does not exist (`repledger athlets list`): name the nearest one and exit 127, the
// shell's "command not found". @oclif/plugin-not-found (4.x) does this only at a terminal, where it
// asks "Did you mean …?" and runs the suggestion if confirmed; without one (a script, CI, a pipe) it
// prints no suggestion at all. So at a terminal its hook runs as it is; elsewhere, and under --json,
// this one names the suggestion without asking, and runs nothing.
import { type Hook, toConfiguredId } from '@oclif/core';
import notFound from '@oclif/plugin-not-found';

/** Edits (insertions, deletions, substitutions) between two strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The command id or topic nearest to what was typed, as the plugin picks it; '' when even the
 * nearest is too far to be a typo (more than a third of what was typed, or 2, apart).
 */
export function closestCommand(id: string, ids: string[]): string {
  let best = '';
  let bestDistance = Math.max(2, Math.floor(id.length / 3)) + 1;
  for (const candidate of ids) {
    const d = distance(id, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

const hook: Hook.CommandNotFound = async function (opts) {
  const interactive = process.stdin.isTTY && process.stdout.isTTY && !process.argv.includes('--json');
  if (interactive) return notFound.call(this, opts);
  const hidden = new Set(opts.config.commands.filter((c) => c.hidden).map((c) => c.id));
  const ids = [...opts.config.commandIDs, ...opts.config.commands.flatMap((c) => c.aliases)].filter((c) => !hidden.has(c));
  // A topic too (`athlets` → `athletes`), after the commands: a command at the same distance wins.
  ids.push(...opts.config.topics.filter((t) => !t.hidden).map((t) => t.name));
  const typed = toConfiguredId(opts.id, opts.config);
  const topic = opts.config.findTopic(opts.id.split(':')[0]!);
  const help = `${opts.config.bin} help${topic ? ` ${topic.name}` : ''}`;
  const suggestion = closestCommand(opts.id, ids);
  const didYouMean = suggestion ? ` Did you mean ${opts.config.bin} ${toConfiguredId(suggestion, opts.config)}?` : '';
  this.error(`${typed} is not a ${opts.config.bin} command.${didYouMean} Run ${help} for a list of available commands.`, { exit: 127 });
};

export default hook;
