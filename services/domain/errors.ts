/** A refusal by the domain: a stable code, a message for people, and where it applies. */
export type DomainErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'already_exists'
  | 'revision_conflict'
  | 'date_taken'
  | 'unknown_reference'
  | 'not_supported'
  /** The record kept changing while a command was decided; safe to retry. */
  | 'busy';

export interface Issue {
  path: string;
  message: string;
}

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly issues: Issue[];
  constructor(code: DomainErrorCode, message: string, issues: Issue[] = []) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.issues = issues;
  }
}
