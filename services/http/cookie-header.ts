// Reading one cookie where the cookie plugin does not run: it is registered for the web pages
// alone, so that the API surfaces (which take a bearer and never a cookie) do not parse one on
// every request.

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) {
      try {
        return decodeURIComponent(pair.slice(at + 1).trim()) || null;
      } catch {
        return null;
      }
    }
  }
  return null;
}
