import { Command, Flags } from '@oclif/core';
export default class Hello extends Command {
  static override description = 'hi';
  static override flags = { name: Flags.string() };
  async run(): Promise<void> { const { flags } = await this.parse(Hello); this.log(`hello ${flags.name}`); }
}
