import AthletesCreate from './commands/athletes/create.ts';
import AthletesList from './commands/athletes/list.ts';
import AthletesSetPassword from './commands/athletes/set-password.ts';
import BotTokensCreate from './commands/bot-tokens/create.ts';
import BotTokensList from './commands/bot-tokens/list.ts';
import BotTokensRevoke from './commands/bot-tokens/revoke.ts';
import ConnectionsActivity from './commands/connections/activity.ts';
import Export from './commands/export.ts';
import ImportHevy from './commands/import/hevy.ts';
import ImportRepledger from './commands/import/repledger.ts';
import ImportStrong from './commands/import/strong.ts';
import MaintenancePause from './commands/maintenance/pause.ts';
import MaintenanceResume from './commands/maintenance/resume.ts';
import MaintenanceStatus from './commands/maintenance/status.ts';
import ProjectionsReplay from './commands/projections/replay.ts';
import ProjectionsRun from './commands/projections/run.ts';
import ProjectionsStatus from './commands/projections/status.ts';
import ProposalsHistory from './commands/proposals/history.ts';
import ProposalsList from './commands/proposals/list.ts';
import ProposalsPurge from './commands/proposals/purge.ts';
import ProposalsShow from './commands/proposals/show.ts';
import ReceiptsExport from './commands/receipts/export.ts';
import ReceiptsHead from './commands/receipts/head.ts';
import ReceiptsList from './commands/receipts/list.ts';
import ReceiptsShow from './commands/receipts/show.ts';
import ReceiptsVerify from './commands/receipts/verify.ts';
import Serve from './commands/serve.ts';
import Status from './commands/status.ts';
import SubscriptionsSet from './commands/subscriptions/set.ts';

export const COMMANDS = {
  serve: Serve,
  status: Status,
  'athletes:create': AthletesCreate,
  'athletes:list': AthletesList,
  'athletes:set-password': AthletesSetPassword,
  'subscriptions:set': SubscriptionsSet,
  'bot-tokens:create': BotTokensCreate,
  'bot-tokens:list': BotTokensList,
  'bot-tokens:revoke': BotTokensRevoke,
  'connections:activity': ConnectionsActivity,
  'import:hevy': ImportHevy,
  'import:strong': ImportStrong,
  'import:repledger': ImportRepledger,
  export: Export,
  'maintenance:pause': MaintenancePause,
  'maintenance:resume': MaintenanceResume,
  'maintenance:status': MaintenanceStatus,
  'projections:replay': ProjectionsReplay,
  'projections:status': ProjectionsStatus,
  'projections:run': ProjectionsRun,
  'proposals:list': ProposalsList,
  'proposals:show': ProposalsShow,
  'proposals:history': ProposalsHistory,
  'proposals:purge': ProposalsPurge,
  'receipts:list': ReceiptsList,
  'receipts:show': ReceiptsShow,
  'receipts:export': ReceiptsExport,
  'receipts:verify': ReceiptsVerify,
  'receipts:head': ReceiptsHead,
};
