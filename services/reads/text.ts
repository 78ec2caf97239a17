import type { TextWrapper } from '../../contracts/agent-access.ts';

/** Athlete-written text as the spec hands it to clients: data, never instructions. */
export function recordText(value: string): TextWrapper {
  return { value, handling: 'untrusted_record_text' };
}

/** The name shown for an exercise the catalog does not hold (exercises are never deleted, so only a damaged store). */
export const UNKNOWN_EXERCISE = 'Unknown exercise';
