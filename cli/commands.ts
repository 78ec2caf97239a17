import AthletesCreate from './commands/athletes/create.ts';
import AthletesList from './commands/athletes/list.ts';
import ImportHevy from './commands/import/hevy.ts';
import ImportStrong from './commands/import/strong.ts';
import ProjectionsReplay from './commands/projections/replay.ts';
import ProjectionsRun from './commands/projections/run.ts';
import ProjectionsStatus from './commands/projections/status.ts';
import Serve from './commands/serve.ts';
import SubscriptionsSet from './commands/subscriptions/set.ts';

export const COMMANDS = {
  serve: Serve,
  'athletes:create': AthletesCreate,
  'athletes:list': AthletesList,
  'subscriptions:set': SubscriptionsSet,
  'import:hevy': ImportHevy,
  'import:strong': ImportStrong,
  'projections:replay': ProjectionsReplay,
  'projections:status': ProjectionsStatus,
  'projections:run': ProjectionsRun,
};
