// Flags and output shared by the operators' and auditors' commands (`proposals …`, `receipts …`).
import { Args, Flags } from '@oclif/core';
import { PROPOSAL_STATUSES } from '../contracts/policy.ts';
import type { App } from '../services/app.ts';
import { DomainError } from '../services/domain/errors.ts';
import { findAthlete } from './athlete.ts';

export const auditFlags = {
  athlete: Flags.string({ description: 'only this athlete: the id (as `athletes create` prints it) or e-mail; all athletes when absent' }),
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

/** `2026-01-31`, or a date-time to the minute, second or millisecond, with or without an offset. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * An ISO instant from `--since`/`--until`: a bare date is the start (or, for `until`, the end) of
 * that UTC day, and a date-time without an offset is UTC, whatever the machine's timezone (as
 * `Date.parse` would not have it). A date that does not exist (30 February) is refused, not rolled
 * over into the next month.
 */
export function instantOf(flag: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const refused = () => new DomainError('invalid_input', `--${flag} must be an ISO date or date-time (2026-01-31 or 2026-01-31T12:00:00Z), not "${value}"`);
  const m = ISO_INSTANT.exec(value);
  if (!m) throw refused();
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour <= 23 && minute <= 59 && second <= 59;
  if (!real) throw refused();
  if (m[4] === undefined) return `${value}T${flag === 'since' ? '00:00:00.000' : '23:59:59.999'}Z`;
  const ms = Date.parse(m[7] === undefined ? `${value}Z` : value);
  if (Number.isNaN(ms)) throw refused();
  return new Date(ms).toISOString();
}

/** Rows as aligned columns, the header first. */
export function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}
