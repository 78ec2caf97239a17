// What a browser sends for a form of our pages: every named input (checkboxes only when checked),
// the selected option of each select (else its first), each textarea's text; the button pressed
// adds its own name and value. Our pages are made by one template function, so their markup is
// regular enough to read with patterns; a form of another shape fails loudly here, not silently.
export type FormValues = Array<[name: string, value: string]>;

const unescapeHtml = (s: string) => s.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeHtml(m[1]!) : null;
};

/** The form posting to `action` on the page, as a browser would send it without any button pressed. */
export function formValues(page: string, action: string): FormValues {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action} on the page`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const values: FormValues = [];
  for (const m of form.matchAll(/<(input|select|textarea)\b[^>]*>/g)) {
    const tag = m[0];
    const name = attr(tag, 'name');
    if (!name) continue;
    if (m[1] === 'input') {
      const type = attr(tag, 'type') ?? 'text';
      if (type === 'checkbox' || type === 'radio') {
        if (/\schecked\b/.test(tag)) values.push([name, attr(tag, 'value') ?? 'on']);
      } else if (type !== 'submit' && type !== 'button') values.push([name, attr(tag, 'value') ?? '']);
    } else if (m[1] === 'select') {
      const body = form.slice(m.index! + tag.length, form.indexOf('</select>', m.index!));
      const options = [...body.matchAll(/<option\b[^>]*>/g)].map((o) => o[0]);
      const chosen = options.find((o) => /\sselected\b/.test(o)) ?? options[0];
      if (chosen) values.push([name, attr(chosen, 'value') ?? '']);
    } else {
      const body = form.slice(m.index! + tag.length, form.indexOf('</textarea>', m.index!));
      values.push([name, unescapeHtml(body)]);
    }
  }
  return values;
}

/** `values` with each named field set to the given text (added when absent); a list of texts sets every box of that name in turn. */
export function withValues(values: FormValues, set: Record<string, string | string[]>): FormValues {
  const out = values.filter(([name]) => !(name in set) || Array.isArray(set[name]));
  for (const [name, value] of Object.entries(set)) {
    if (!Array.isArray(value)) {
      out.push([name, value]);
      continue;
    }
    let i = 0;
    for (const pair of out) if (pair[0] === name) pair[1] = value[i++] ?? '';
    for (; i < value.length; i++) out.push([name, value[i]!]);
  }
  return out;
}
