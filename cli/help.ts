// oclif's help (`oclif.helpClass`), except for a subject that is neither a command nor a topic:
// `repledger help athlets` (or `repledger athlets --help`) was oclif's "Command athlets not found."
// with exit 2; it is now our command_not_found sentence, naming the nearest one
// (`Did you mean repledger help athletes?`), with exit 127, as `repledger athlets` is. Never a
// prompt: help only says.
import { Errors, Help } from '@oclif/core';
import { getHelpFlagAdditions, standardizeIDFromArgv } from '@oclif/core/help';
import { notFoundMessage } from './suggest.ts';

export default class RepLedgerHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    const subject = helpSubject(argv, this.config);
    if (subject && !this.config.findCommand(subject) && !this.config.findTopic(subject)) {
      Errors.error(notFoundMessage(this.config, subject, { help: true }), { exit: 127 });
    }
    return super.showHelp(argv);
  }
}

/** The command id or topic that oclif's `Help.showHelp` looks up for `argv` (its `getHelpSubject`, not exported). */
function helpSubject(argv: string[], config: Help['config']): string | undefined {
  const flags = getHelpFlagAdditions(config);
  let args = argv.filter((arg) => !flags.includes(arg));
  if (config.topicSeparator !== ':') args = standardizeIDFromArgv([...args], config);
  for (const arg of args) {
    if (arg === '--' || arg.startsWith('-')) return undefined;
    if (arg !== 'help') return arg;
  }
  return undefined;
}
