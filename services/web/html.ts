import { createHash } from 'node:crypto';

// Server-rendered pages. Every interpolated value is escaped unless it is itself markup made
// here (`Html`), so record text written by an athlete or a client name is always shown as text.

export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Value = Html | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}

const STYLE = `
  :root { color-scheme: light; --ink: #1d2433; --muted: #5b6475; --line: #d9dee8; --accent: #1f6f5c; --bad: #a23a2a; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f7f9; }
  header { background: #fff; border-bottom: 1px solid var(--line); padding: .75rem 1rem; display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
  header a.brand { font-weight: 700; color: var(--ink); text-decoration: none; }
  main { max-width: 34rem; margin: 1.5rem auto; padding: 0 1rem; }
  .card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.25rem; margin-bottom: 1rem; }
  .card > :first-child { margin-top: 0; }
  .card > :last-child { margin-bottom: 0; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  h2 { font-size: 1.2rem; margin: 0 0 .25rem; }
  label { display: block; font-weight: 600; margin: .9rem 0 .3rem; }
  input[type=text], input[type=email], input[type=password], select { width: 100%; padding: .65rem .75rem; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
  .hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 0; }
  button, .button { display: inline-block; margin-top: 1.2rem; padding: .7rem 1.1rem; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; cursor: pointer; text-decoration: none; }
  button.secondary { background: #fff; color: var(--ink); border: 1px solid var(--line); margin-top: 0; }
  .error { background: #fbeceb; border: 1px solid #f0c4be; color: var(--bad); border-radius: 8px; padding: .75rem; }
  .notice { background: #e8f4f0; border: 1px solid #bfe0d5; border-radius: 8px; padding: .75rem; margin-bottom: 1rem; }
  .notice > :first-child { margin-top: 0; }
  .notice > :last-child { margin-bottom: 0; }
  a { color: var(--accent); }
  form.inline { display: inline; }
  dl.fields { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: .25rem .75rem; margin: .75rem 0 0; }
  dl.fields dt { color: var(--muted); }
  dl.fields dd { margin: 0; overflow-wrap: anywhere; }
  table.diff { width: 100%; border-collapse: collapse; margin-top: .75rem; font-size: .95rem; }
  table.diff th, table.diff td { text-align: left; vertical-align: top; padding: .4rem .5rem .4rem 0; border-top: 1px solid var(--line); overflow-wrap: anywhere; }
  table.diff thead th { border-top: 0; color: var(--muted); font-weight: 600; }
  .receipt td:last-child, .receipt th:last-child, .receipt code { white-space: nowrap; }
  ul.proposals, ul.undo { padding-left: 1.1rem; }
  ul.proposals li, ul.undo li { margin: .6rem 0; }
  ul.proposals .hint { display: block; }
  .actions form { display: inline-block; margin: 0 .75rem .5rem 0; }
  .actions button { margin-top: 0; }
  code.token { display: block; overflow-wrap: anywhere; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem; font-size: .9rem; }
  ul.tokens { list-style: none; padding: 0; margin: 0; }
  ul.tokens li { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 0; border-top: 1px solid var(--line); }
  ul.tokens li:first-child { border-top: 0; }
  ul.tokens .what { flex: 1 1 14rem; min-width: 0; overflow-wrap: anywhere; }
  ul.tokens .what .hint { display: block; }
  ul.tokens form { flex: none; margin-left: auto; }
  label.area { display: flex; gap: .6rem; align-items: flex-start; font-weight: 400; margin: .8rem 0; }
  label.area input { flex: none; margin-top: .35rem; width: 1.1rem; height: 1.1rem; }
  label.area .hint { display: block; margin: 0; }
  .card > form + form { margin-top: .75rem; }
  fieldset { border: 0; padding: 0; margin: .5rem 0 0; }
  legend { padding: 0; }
`;

const hashOf = (source: string) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`;

/** The page's only inline style, allowed by hash in the content security policy. */
export const STYLE_HASH = hashOf(STYLE);

/**
 * Preselects the browser's timezone on the sign-up form, unless the athlete already chose one.
 * Browsers may report a zone by an older name, which each option lists in `data-aliases`.
 */
const TIME_ZONE_SOURCE = `(function () {
  var select = document.getElementById('timezone');
  if (!select || select.dataset.chosen) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (var i = 0; i < select.options.length; i++) {
    var option = select.options[i];
    if (option.value === zone || (' ' + (option.dataset.aliases || '') + ' ').indexOf(' ' + zone + ' ') >= 0) {
      select.selectedIndex = i;
      return;
    }
  }
})();`;
export const TIME_ZONE_SCRIPT = new Html(TIME_ZONE_SOURCE);

/** The only inline script, allowed by hash: pages work without it. */
export const SCRIPT_HASH = hashOf(TIME_ZONE_SOURCE);

export interface PageOptions {
  title: string;
  signedInAs?: string | null;
  csrf?: string;
}

export function page(options: PageOptions, body: Html): string {
  const nav = options.signedInAs
    ? html`<form class="inline" method="post" action="/sign-out"><input type="hidden" name="_csrf" value="${options.csrf}"><button class="secondary" type="submit">Sign out</button></form>`
    : html`<a href="/sign-in">Sign in</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · RepLedger</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<header><a class="brand" href="/account">RepLedger</a>${nav}</header>
<main>${body}</main>
</body>
</html>`.value;
}
