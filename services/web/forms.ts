// What the web app accepts from a form or a query string. Every form is read through a schema, so
// a field sent twice (which arrives as an array), sent empty or too long gets the form back with
// what was wrong, never a 500 from a handler that assumed a string.
import { z } from 'zod';
import { isVisibleText } from '../../contracts/common.ts';

/** One text field, given at most once, at most `max` characters. */
export function text(label: string, max: number) {
  return z.string({ error: `${label}: give it once, as text` }).max(max, `${label}: at most ${max} characters`);
}

/** A required text field: present, once, and not blank. */
export function requiredText(label: string, max: number) {
  // Spaces or invisible characters alone (a zero-width space) fill nothing in.
  return text(label, max).refine(isVisibleText, `${label}: this field is required`);
}

export type FormResult<T> = { ok: true; data: T } | { ok: false; message: string };

/** The form's values, or one sentence naming each field that was wrong. */
export function readForm<S extends z.ZodType>(schema: S, body: unknown): FormResult<z.output<S>> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, message: parsed.error.issues.map((i) => i.message).join('. ') };
}

/**
 * Control, format (bidirectional overrides among them) and separator characters, and backslashes.
 * Browsers drop tabs and newlines from a Location and read backslashes as slashes, so a path
 * holding any of them can mean another origin than the one it appears to name.
 */
const AMBIGUOUS = /[\p{Cc}\p{Cf}\p{Z}\\]/u;

/**
 * A path on this service to go back to after signing in, or null. It must parse, against this
 * service's origin, to this origin: never another site, never a protocol-relative URL. What comes
 * back is the parsed URL's own path, query and fragment, which are percent-encoded and so always
 * safe in a header. Parsing removes dot segments (`/.//evil.example` becomes `//evil.example`), so
 * what comes back is checked again: it must itself be a path that stays on this origin.
 */
export function safeReturnTo(value: unknown, origin: string): string | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.length > 2048 || AMBIGUOUS.test(value)) return null;
  const path = pathOnOrigin(value, origin);
  return path !== null && pathOnOrigin(path, origin) === path ? path : null;
}

/** The path, query and fragment `value` resolves to on `origin`; null if it leaves it or names a host. */
function pathOnOrigin(value: string, origin: string): string | null {
  if (/^[/\\]{2}/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === origin && !/^[/\\]{2}/.test(path) ? path : null;
}
