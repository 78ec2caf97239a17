// Shared by the maintenance commands: which side an operator names, and how the state reads.
import { Args } from '@oclif/core';
import type { AccessKind } from '../contracts/common.ts';
import { MAINTENANCE_CHECK_EVERY_MS } from '../contracts/policy.ts';
import type { MaintenanceState } from '../services/operations/maintenance.ts';

export const sideArg = Args.string({ required: true, options: ['reads', 'writes'], description: 'reads (Agent Access and the Read API) or write proposals' });

export function accessOf(side: string): AccessKind {
  return side === 'reads' ? 'read' : 'write';
}

export function describeState(state: MaintenanceState): string[] {
  return (['read', 'write'] as const).map((access) => {
    const pause = state[access];
    const side = `${access}s`.padEnd(6);
    return pause ? `${side} paused since ${pause.since} by ${pause.by} (callers are told to retry after ${pause.retry_after_seconds} s)` : `${side} open`;
  });
}

export const TAKES_EFFECT = `every running instance sees the change within ${MAINTENANCE_CHECK_EVERY_MS / 1000} seconds`;
