// One error for every surface: a stable code, a message for people, and what HTTP needs to say
// (status, challenge, Retry-After). REST renders it; MCP will render the same.
import { AGENT_ACCESS_ERROR_STATUS, type AgentAccessErrorCode } from '../../contracts/agent-access.ts';

export class ApiError extends Error {
  readonly code: AgentAccessErrorCode;
  readonly status: number;
  /** The `WWW-Authenticate` value for 401 and 403. */
  readonly challenge: string | null;
  /** Seconds, for 429 and 503. */
  readonly retryAfter: number | null;

  constructor(code: AgentAccessErrorCode, message: string, options: { challenge?: string; retryAfter?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = AGENT_ACCESS_ERROR_STATUS[code];
    this.challenge = options.challenge ?? null;
    this.retryAfter = options.retryAfter ?? null;
  }
}
