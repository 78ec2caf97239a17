import type { TextWrapper } from '../../contracts/agent-access.ts';

/** Athlete-written text as the spec hands it to clients: data, never instructions. */
export function recordText(value: string): TextWrapper {
  return { value, handling: 'untrusted_record_text' };
}
