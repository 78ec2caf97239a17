// A record, or two bodies of one record, as markup: what the review and undo pages show of each
// change. Everything shown comes from the words layer (services/words/), which walks every field
// of the write shape; this file only lays it out. Each value carries `data-field` (the value shown,
// or the new one) or `data-field-before` (the old one) with its path in the record, so that a test
// can find every field of a body on the page.
import { html, scrollTable, type Html } from './html.ts';
import type { FieldWords, ItemWords, ListWords, RecordWords } from '../words/record-fields.ts';
import { itemName } from '../words/changes.ts';

/** Which sides a card shows: one body (a new record, one to be removed, a proposal never saved), or a change. */
export type Sides = 'one' | 'both';

/** A value as shown: text the client wrote is boxed as theirs; either way it is text, never markup. */
function value(f: FieldWords, side: 'before' | 'after', attribute: 'data-field' | 'data-field-before'): Html {
  const text = side === 'before' ? f.before : f.after;
  const attr = html` ${attribute}="${attribute === 'data-field-before' ? f.beforePath : f.path}"`;
  return f.written && text !== '—' ? html`<span class="written"${attr}>${text}</span>` : html`<span${attr}>${text}</span>`;
}

/** The one side a one-sided card shows. */
const shownSide = (f: FieldWords): 'before' | 'after' => (f.after !== null ? 'after' : 'before');

/** A field's cell in a change: the new value, and the old one struck through when it differs. */
function changedValue(f: FieldWords): Html {
  if (!f.changed) return value(f, shownSide(f), 'data-field');
  return html`<span class="visually-hidden">was </span><del>${value(f, 'before', 'data-field-before')}</del> <span class="visually-hidden">now </span><ins>${value(f, 'after', 'data-field')}</ins>`;
}

/** The fields shown in their own right: not places in a list, not parts of another field. */
const standalone = (fields: FieldWords[]) => fields.filter((f) => !f.order && f.within === null);

/** A field shown within another gets its attribute on its host's value, so that its path is on the page too. */
function hosted(fields: FieldWords[], host: FieldWords, side: 'before' | 'after'): Html {
  return html`${fields.filter((f) => f.within === host.name).map((f) => html`<span hidden ${side === 'after' ? 'data-field' : 'data-field-before'}="${side === 'after' ? f.path : f.beforePath}"></span>`)}`;
}

/** Fields as a list of labels and values; `all` holds the fields shown within them (a goal's unit). */
function fieldList(fields: FieldWords[], all: FieldWords[], side: 'after' | 'shown'): Html {
  return html`<dl class="fields">${standalone(fields).map((f) => {
    const s = side === 'shown' ? shownSide(f) : side;
    const attribute = s === 'after' || side === 'shown' ? 'data-field' : 'data-field-before';
    return html`<dt>${f.label}</dt><dd>${value(f, s, attribute)}${hosted(all, f, attribute === 'data-field' ? 'after' : 'before')}</dd>`;
  })}</dl>`;
}

/**
 * A record's own fields: all of them for one body; for a change, those that change as Now/After
 * rows (or Before/After once saved), the rest folded away.
 */
export function recordFields(words: RecordWords, sides: Sides, beforeWord: 'Now' | 'Before'): Html {
  if (sides === 'one') return fieldList(words.fields, words.fields, 'shown');
  const changed = standalone(words.fields).filter((f) => f.changed || words.fields.some((w) => w.within === f.name && w.changed));
  const same = standalone(words.fields).filter((f) => !changed.includes(f));
  return html`${
    changed.length
      ? html`<table class="diff"><thead><tr><th scope="col">Field</th><th scope="col">${beforeWord}</th><th scope="col">After</th></tr></thead><tbody>${changed.map(
          (f) =>
            html`<tr class="changed"><th scope="row">${f.label}</th><td><del>${value(f, 'before', 'data-field-before')}${hosted(words.fields, f, 'before')}</del></td><td><ins>${value(f, 'after', 'data-field')}${hosted(words.fields, f, 'after')}</ins></td></tr>`,
        )}</tbody></table>`
      : ''
  }${
    same.length
      ? html`<details class="unchanged"><summary>${same.length === 1 ? '1 field stays as it is' : `${same.length} fields stay as they are`}</summary>${fieldList(same, words.fields, 'after')}</details>`
      : ''
  }`;
}

/** Lists of a record (a workout's exercises, a routine's): tables, and sections for items that hold lists. */
export function recordLists(words: RecordWords, sides: Sides): Html {
  return html`${words.lists.map((list) => listOf(list, sides))}`;
}

const STATUS_BADGES: Record<ItemWords['status'], string | null> = { same: null, changed: 'Changed', added: 'Added', removed: 'Removed' };

function listOf(list: ListWords, sides: Sides): Html {
  if (list.items.length === 0) return html`<p class="meta">${list.label}: none.</p>`;
  const nested = list.items.some((i) => i.lists.length > 0);
  if (!nested) return html`<h3>${list.label}</h3>${itemTable(list, list.items, sides, list.label)}`;
  const shown = sides === 'both' ? list.items.filter((i) => i.status !== 'same') : list.items;
  const same = sides === 'both' ? list.items.filter((i) => i.status === 'same') : [];
  return html`${shown.map((item) => itemSection(list, item, sides))}${
    same.length
      ? html`<details class="unchanged"><summary>${same.length === 1 ? `1 ${list.noun} stays as it is` : `${same.length} ${list.noun}s stay as they are`}</summary>${same.map((item) => itemSection(list, item, 'one'))}</details>`
      : ''
  }`;
}

/** An item that holds a list (an exercise with its sets): a heading, its other fields, its list as a table. */
function itemSection(list: ListWords, item: ItemWords, sides: Sides): Html {
  const order = item.fields.find((f) => f.order);
  const heading = item.fields.find((f) => f.name === 'exercise_id');
  const rest = standalone(item.fields).filter((f) => f !== heading && (!plain(f) || f.changed));
  const badge = sides === 'both' ? STATUS_BADGES[item.status] : null;
  const side = item.status === 'removed' ? 'before' : 'after';
  const rank = order ? (side === 'before' ? order.before : order.after) : null;
  const orderAttr = order ? html` ${side === 'after' ? 'data-field' : 'data-field-before'}="${order.path}" data-rank="${rank}"` : '';
  return html`<section class="item${sides === 'both' ? ` ${item.status}` : ''}"${orderAttr}><h3>${rank ? `${rank}. ` : ''}${heading ? (sides === 'both' && item.status === 'changed' ? changedValue(heading) : value(heading, side, side === 'after' ? 'data-field' : 'data-field-before')) : itemName(list.noun, item)}${badge ? html` <span class="badge ${item.status}">${badge}</span>` : ''}</h3>
${rest.length ? html`<dl class="fields">${rest.map((f) => html`<dt>${f.label}</dt><dd>${sides === 'both' && item.status === 'changed' ? changedValue(f) : value(f, side, side === 'after' ? 'data-field' : 'data-field-before')}</dd>`)}</dl>` : ''}
${item.lists.map((inner) => (inner.items.length ? itemTable(inner, inner.items, sides === 'both' && item.status === 'changed' ? 'both' : 'one', `${inner.label} of ${heading?.after ?? heading?.before ?? list.noun}`) : html`<p class="meta">No ${inner.noun}s.</p>`))}</section>`;
}

/** Whether a field holds nothing worth a column: no value, or the usual one, on every side. */
const plain = (f: FieldWords) => f.plain;

/**
 * Items as rows (sets, a routine's exercises), one column per field that some item fills: a column
 * every item leaves empty, or at its usual value (a normal set), is left out, as on the workout
 * page. Changed cells show old and new; added and removed rows are marked.
 */
function itemTable(list: ListWords, items: ItemWords[], sides: Sides, caption: string): Html {
  const first = items[0]!;
  const names = standalone(first.fields).map((f) => f.name);
  const columns = names.filter((name) => items.some((i) => i.fields.some((f) => f.name === name && (!f.plain || f.changed))));
  const notes = list.noun === 'set' && !columns.includes('completed') ? html`<p class="meta">Every set is marked done.</p>` : '';
  const labelOf = (name: string) => first.fields.find((f) => f.name === name)!.label;
  const orderOf = (item: ItemWords) => item.fields.find((f) => f.order);
  const table = html`<table class="sets"><caption class="visually-hidden">${caption}</caption><thead><tr>${columns.map((c) => html`<th scope="col">${labelOf(c)}</th>`)}${sides === 'both' ? html`<th scope="col"><span class="visually-hidden">Change</span></th>` : ''}</tr></thead><tbody>${items.map(
    (item) => {
      const side = item.status === 'removed' ? 'before' : 'after';
      const order = orderOf(item);
      const rank = order ? (side === 'before' ? order.before : order.after) : null;
      const orderAttr = order ? html` ${side === 'after' ? 'data-field' : 'data-field-before'}="${order.path}" data-rank="${rank}"` : '';
      const badge = sides === 'both' ? STATUS_BADGES[item.status] : null;
      return html`<tr${sides === 'both' && item.status !== 'same' ? html` class="${item.status}"` : ''}${orderAttr}>${columns.map((c, i) => {
        const f = item.fields.find((x) => x.name === c)!;
        const cell = sides === 'both' && item.status === 'changed' ? changedValue(f) : value(f, side, side === 'after' ? 'data-field' : 'data-field-before');
        return i === 0
          ? html`<th scope="row"${f.changed && item.status === 'changed' ? html` class="changed"` : ''}>${cell}</th>`
          : html`<td${f.changed && item.status === 'changed' ? html` class="changed"` : ''}>${cell}</td>`;
      })}${sides === 'both' ? html`<td>${badge ? html`<span class="badge ${item.status}">${badge}</span>` : ''}</td>` : ''}</tr>`;
    },
  )}</tbody></table>`;
  return html`${scrollTable(caption, table)}${notes}`;
}
