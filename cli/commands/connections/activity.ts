import { Flags } from '@oclif/core';
import { ACCESS_HISTORY_DAYS, ACCESS_HISTORY_FLUSH_EVERY_MS } from '../../../contracts/policy.ts';
import type { ConnectionHistory } from '../../../services/operations/access-history.ts';
import { DomainError } from '../../../services/domain/errors.ts';
import { athleteFlag, findAthlete } from '../../athlete.ts';
import { table } from '../../audit.ts';
import { AppCommand } from '../../base.ts';

interface ConnectionActivity extends ConnectionHistory {
  grant_id: string;
  client_id: string;
  client_name: string;
  status: 'connected' | 'disconnected';
}

export default class ConnectionsActivity extends AppCommand {
  static override description =
    `What an athlete's connected AI clients read (each operation: calls, items, last call) and proposed (how many, what came of them) over the last ${ACCESS_HISTORY_DAYS} days, the period the counts are kept. Counts a running server has not written yet (at most ${ACCESS_HISTORY_FLUSH_EVERY_MS / 1000} seconds' worth) are not included.`;

  static override flags = {
    athlete: athleteFlag,
    connection: Flags.string({ description: 'only this connection: its grant id (as --json shows it as grant_id)', parse: async (id) => id.toLowerCase() }),
    days: Flags.integer({ description: `the last N days, 1 to ${ACCESS_HISTORY_DAYS}`, default: ACCESS_HISTORY_DAYS, min: 1, max: ACCESS_HISTORY_DAYS }),
  };

  static override examples = [
    '<%= config.bin %> connections activity --athlete ada@example.com',
    '<%= config.bin %> connections activity --athlete ada@example.com --connection 0b6f6e62-3f5c-4d43-9a51-1f3c2a7d9e10 --days 7 --json',
  ];

  async run(): Promise<{ athlete_id: string; timezone: string; connections: ConnectionActivity[] }> {
    const { flags } = await this.parse(ConnectionsActivity);
    const app = await this.app();
    const athlete = await findAthlete(app, flags.athlete);
    const tz = athlete.profile.timezone;
    const all = await app.connections.list(athlete.athlete_id);
    const chosen = flags.connection === undefined ? all : all.filter((c) => c.id === flags.connection);
    if (flags.connection !== undefined && chosen.length === 0)
      throw new DomainError('not_found', `athlete ${athlete.athlete_id} has no connection ${flags.connection}`);
    const connections: ConnectionActivity[] = [];
    for (const c of chosen) {
      const history = await app.access.connection(athlete.athlete_id, c.id, tz, flags.days);
      connections.push({ grant_id: c.id, client_id: c.client_id, client_name: c.client_name, status: c.status, ...history });
    }
    if (!this.jsonEnabled()) {
      if (connections.length === 0) this.log('no connections');
      for (const c of connections) {
        this.log(`${c.client_name} (${c.grant_id}, ${c.status}), the last ${c.days} days, times in ${tz}`);
        const rows = c.reads.operations.map((o) => [o.operation, o.scope ?? '-', String(o.calls), String(o.items), localTime(o.last_at, tz)]);
        if (rows.length) for (const line of table(['OPERATION', 'AREA', 'CALLS', 'ITEMS', 'LAST CALL'], rows)) this.log(`  ${line}`);
        else this.log('  read nothing');
        const p = c.proposals;
        const outcomes = Object.entries(p.counts)
          .filter(([, n]) => n > 0)
          .map(([s, n]) => `${n} ${s}`);
        this.log(`  proposals: ${p.total}${outcomes.length ? ` (${outcomes.join(', ')})` : ''}`);
        this.log('');
      }
    }
    return { athlete_id: athlete.athlete_id, timezone: tz, connections };
  }
}

/** An instant in the athlete's zone, as `2026-11-26 14:02`. */
function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('sv-SE', { dateStyle: 'short', timeStyle: 'short', timeZone }).format(new Date(iso));
}
