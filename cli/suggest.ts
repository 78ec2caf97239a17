// The nearest command or topic to one that does not exist, and the sentence that names it: said by
// our command_not_found hook (`repledger athlets list`, cli/hooks/command-not-found.ts) and by our
// help class (`repledger help athlets`, cli/help.ts). Apart from both so that the help class, which
// every `--help` loads, does not load @oclif/plugin-not-found with the hook.
import { type Interfaces, toConfiguredId } from '@oclif/core';

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

/**
 * `<typed> is not a repledger command. Did you mean repledger <nearest>? Run repledger help for a
 * list of available commands.` (`help` then the topic typed, when it is one). `id` is oclif's
 * (`athlets:list`); under `help`, the suggestion is `repledger help <nearest>`.
 */
export function notFoundMessage(config: Interfaces.Config, id: string, { help = false } = {}): string {
  const hidden = new Set(config.commands.filter((c) => c.hidden).map((c) => c.id));
  const ids = [...config.commandIDs, ...config.commands.flatMap((c) => c.aliases)].filter((c) => !hidden.has(c));
  // A topic too (`athlets` → `athletes`), after the commands: a command at the same distance wins.
  ids.push(...config.topics.filter((t) => !t.hidden).map((t) => t.name));
  const typed = toConfiguredId(id, config);
  const topic = config.findTopic(id.split(':')[0]!);
  const list = `${config.bin} help${topic ? ` ${topic.name}` : ''}`;
  const suggestion = closestCommand(id, ids);
  const didYouMean = suggestion ? ` Did you mean ${config.bin}${help ? ' help' : ''} ${toConfiguredId(suggestion, config)}?` : '';
  return `${typed} is not a ${config.bin} command${help ? ' or topic' : ''}.${didYouMean} Run ${list} for a list of available commands.`;
}
