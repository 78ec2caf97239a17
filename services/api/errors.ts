// One error for every surface: a stable code, a message for people, and what HTTP needs to say
// (status, challenge, Retry-After). REST, MCP and the Read API render it, each in its own shape.
import type { z } from 'zod';
import { AGENT_ACCESS_ERROR_STATUS, type AgentAccessErrorCode, type errorDetails } from '../../contracts/agent-access.ts';
import type { AccessKind } from '../../contracts/common.ts';
import { DomainError } from '../domain/errors.ts';
import type { Quota } from './quota.ts';

/** What a caller waits before retrying a command on a record that kept changing (`busy`). */
export const BUSY_RETRY_SECONDS = 1;

export class ApiError extends Error {
  readonly code: AgentAccessErrorCode;
  readonly status: number;
  /** The `WWW-Authenticate` value for 401 and 403. */
  readonly challenge: string | null;
  /** Seconds, for 429 and 503. */
  readonly retryAfter: number | null;
  /** Where a refusal applies (a write's action and field) and what to do about it; part of the error body. */
  readonly details: ErrorDetails;

  constructor(code: AgentAccessErrorCode, message: string, options: { challenge?: string; retryAfter?: number; details?: ErrorDetails } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = AGENT_ACCESS_ERROR_STATUS[code];
    this.challenge = options.challenge ?? null;
    this.retryAfter = options.retryAfter ?? null;
    this.details = options.details ?? {};
  }

  /** The shared error body. */
  body(requestId: string) {
    return { error: { code: this.code, message: this.message, request_id: requestId, ...this.details } };
  }
}

export type ErrorDetails = Partial<{ [K in keyof typeof errorDetails]: z.infer<(typeof errorDetails)[K]> }>;

/** The 503 while reads or writes are paused for maintenance. */
export function unavailable(access: AccessKind, seconds: number): ApiError {
  return new ApiError('unavailable', `${access === 'read' ? 'reading' : 'changing'} the record is paused for maintenance; try again in ${seconds} seconds`, {
    retryAfter: seconds,
  });
}

/** The 429 for a credential (`holder`: "this connection", "this bot token") that must wait `seconds` for its quota. */
export function rateLimited(quota: Quota, seconds: number, holder = 'this connection'): ApiError {
  return new ApiError(
    'rate_limited',
    `${holder} has used its quota of ${quota.policy.units} units per ${quota.policy.windowMs / 1000} seconds; try again in ${seconds} seconds`,
    { retryAfter: seconds },
  );
}

/**
 * A domain refusal as every surface answers it: a record that kept changing while a command was
 * decided is a 503 to retry after BUSY_RETRY_SECONDS; a refusal the API has a code for keeps it;
 * any other is the request's fault (400). Anything else is passed through as it is.
 */
export function apiErrorOf(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  switch (error.code) {
    case 'busy':
      return new ApiError('unavailable', error.message, { retryAfter: BUSY_RETRY_SECONDS });
    case 'not_found':
    case 'invalid_input':
    case 'revision_conflict':
      return new ApiError(error.code, error.message);
    default:
      return new ApiError('invalid_input', error.message);
  }
}
