// What both routers' procedures share once their checks have passed: reading their input.
import { TRPCError } from '@trpc/server';
import type { z } from 'zod';

/**
 * An operation's input, parsed by its schema after the procedure's checks; refused as the
 * BAD_REQUEST tRPC's own input parser throws, the schema's issues as its cause, which the
 * surfaces turn into their `invalid_input` answers.
 */
export function parsedInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error });
  return parsed.data;
}
