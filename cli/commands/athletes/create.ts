import { Flags } from '@oclif/core';
import { AppCommand } from '../../base.ts';

export default class AthletesCreate extends AppCommand {
  static override description = 'Create an athlete account; prints the athlete id';
  static override examples = [
    '<%= config.bin %> athletes create --email ada@example.com --password "correct horse battery" --display-name Ada --timezone Europe/London --unit-preference kg --tier pro',
  ];
  static override flags = {
    email: Flags.string({ required: true }),
    password: Flags.string({ required: true, description: 'at least 12 characters' }),
    'display-name': Flags.string({ required: true }),
    timezone: Flags.string({ required: true, description: 'IANA time zone, e.g. Europe/Berlin' }),
    'unit-preference': Flags.string({ options: ['kg', 'lbs'], default: 'kg' }),
    'height-unit-preference': Flags.string({ options: ['cm', 'ft_in'], default: 'cm' }),
    'bodyweight-unit-preference': Flags.string({ options: ['kg', 'lbs', 'stone'] }),
    tier: Flags.string({ options: ['free', 'pro'], default: 'free' }),
  };

  async run(): Promise<{ athlete_id: string }> {
    const { flags } = await this.parse(AthletesCreate);
    const app = await this.app();
    const result = await app.athletes.register(
      {
        email: flags.email,
        password: flags.password,
        tier: flags.tier,
        profile: {
          display_name: flags['display-name'],
          timezone: flags.timezone,
          unit_preference: flags['unit-preference'],
          height_unit_preference: flags['height-unit-preference'],
          bodyweight_unit_preference: flags['bodyweight-unit-preference'] ?? flags['unit-preference'],
        },
      },
      { type: 'operator', id: 'cli' },
    );
    this.log(result.athlete_id);
    return result;
  }
}
