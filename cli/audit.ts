// Flags and output shared by the operators' and auditors' commands (`proposals …`, `receipts …`).
import { Args, Flags } from '@oclif/core';
import { PROPOSAL_STATUSES } from '../contracts/policy.ts';
import type { App } from '../services/app.ts';
import { DomainError } from '../services/domain/errors.ts';
import { findAthlete } from './athlete.ts';

export const auditFlags = {
  athlete: Flags.string({ description: "only this athlete: the id (as `athletes create` prints it) or e-mail; all athletes when absent" }),
};

export const listFlags = {
  ...auditFlags,
  client: Flags.string({ description: 'only proposals of this client: its client id or its name, exactly' }),
  since: Flags.string({ description: 'only proposals prepared at or after this time (ISO date or date-time, UTC when no offset)' }),
  until: Flags.string({ description: 'only proposals prepared at or before this time (a date alone means the end of that day)' }),
  limit: Flags.integer({ description: 'at most this many, newest first', default: 100, min: 1, max: 10_000 }),
};

export const statusFlag = Flags.string({ description: 'only proposals in this state', options: [...PROPOSAL_STATUSES] });

export const commandIdArg = Args.string({ name: 'COMMAND_ID', required: true, description: "the proposal's command id (a uuid)" });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function commandIdOf(value: string): string {
  if (!UUID.test(value)) throw new DomainError('invalid_input', `COMMAND_ID must be a uuid, not "${value}"`);
  return value.toLowerCase();
}

/** The athlete `--athlete` names, as an id; undefined for all athletes. */
export async function athleteIdOf(app: App, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : (await findAthlete(app, ref)).athlete_id;
}

/** An ISO instant from `--since`/`--until`: a bare date is the start (or, for `until`, the end) of that UTC day. */
export function instantOf(flag: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(dateOnly ? `${value}T${flag === 'since' ? '00:00:00.000' : '23:59:59.999'}Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) throw new DomainError('invalid_input', `--${flag} must be an ISO date or date-time (2026-01-31 or 2026-01-31T12:00:00Z), not "${value}"`);
  return new Date(ms).toISOString();
}

/** Rows as aligned columns, the header first. */
export function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}
