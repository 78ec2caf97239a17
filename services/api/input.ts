// What both routers' procedures share once their checks have passed: reading their input.
import type { z } from 'zod';
import { ApiError } from './errors.ts';

/**
 * An operation's input, parsed by its schema after the procedure's checks; refused as
 * `invalid_input`, naming every field that was wrong (and, in a proposal, the action it is in).
 */
export function parsedInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input instanceof BodyNotAnObject)
    throw new ApiError('invalid_input', `the request body must be a JSON object, not ${input.sent}`, { details: { field: 'body' } });
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput(parsed.error.issues);
  return parsed.data;
}

/** What a surface hands over for an operation whose body is not a JSON object (an array, a string, null). */
export class BodyNotAnObject {
  readonly sent: string;
  constructor(body: unknown) {
    this.sent = body === null ? 'null' : Array.isArray(body) ? 'an array' : body === undefined ? 'an empty body' : `a ${typeof body}`;
  }
}

function invalidInput(issues: ReadonlyArray<{ path?: PropertyKey[]; message: string; keys?: string[] }>): ApiError {
  const described = issues.map((i) => (i.keys?.length ? unknownKeys(i.path ?? [], i.keys) : `${i.path?.map(String).join('.') || 'input'}: ${i.message}`));
  // A proposal's refusal names the action and the field, as its other refusals do.
  const first = issues[0]?.path?.map(String) ?? [];
  const field = [...first, ...(issues[0]?.keys?.slice(0, 1) ?? [])].join('.');
  const details = first[0] === 'actions' && first[1] !== undefined ? { action_index: Number(first[1]), field } : field ? { field } : {};
  return new ApiError('invalid_input', described.join('; ') || 'the request is not valid', { details });
}

/** `unknown parameter verbose` at the top; inside the input, each field by its whole path. */
function unknownKeys(path: PropertyKey[], keys: string[]): string {
  if (path.length === 0) return `unknown parameter ${keys.join(', ')}`;
  return `unknown field${keys.length === 1 ? '' : 's'} ${keys.map((k) => [...path, k].map(String).join('.')).join(', ')}`;
}
