// Charts drawn on the server as inline SVG: no script (the pages' CSP allows none of ours), a
// viewBox so that a chart scales to the width of a phone or a desktop, labels large enough to
// read at 390 px, and an accessible name and description. Each chart's figures are also on the
// page as a table, which is what a screen reader reads.
import { dateOfDayNumber, dayNumber } from '../domain/time.ts';
import { html, type Html } from './html.ts';

/** The drawing's own units: at 390 px a chart is ~316 px wide, so a 20-unit label is ~12 px. */
const WIDTH = 520;
const HEIGHT = 260;
const MARGIN = { top: 14, right: 14, bottom: 36, left: 64 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

export interface Point {
  /** A local date, YYYY-MM-DD. */
  date: string;
  value: number;
  /** Drawn with the record marker. */
  marked?: boolean;
}

export interface Series {
  points: Point[];
  /** The CSS class that colours it: `first` (solid) or `second` (dashed). */
  look: 'first' | 'second';
}

interface ChartText {
  id: string;
  title: string;
  description: string;
}

/** About `count` round values spanning min..max: steps of 1, 2, 2.5 or 5 times a power of ten. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  // One value: a span around it, in proportion, since ±1 is lost on a large enough number.
  if (max <= min) {
    const pad = Math.max(1, Math.abs(min) * 0.1);
    return niceTicks(min - pad, max + pad, count);
  }
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v < max + step; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Dates to label along a span of days: first days of months (at most five), or days of a short span. */
export function dateTicks(from: string, to: string): Array<{ date: string; label: string }> {
  const days = dayNumber(to) - dayNumber(from);
  if (days <= 45) {
    const step = Math.max(1, Math.ceil(days / 4));
    const out = [];
    for (let d = dayNumber(from); d <= dayNumber(to); d += step) {
      const date = dateOfDayNumber(d);
      out.push({ date, label: `${Number(date.slice(8))} ${MONTHS[Number(date.slice(5, 7)) - 1]}` });
    }
    return out;
  }
  const months: string[] = [];
  let [y, m] = [Number(from.slice(0, 4)), Number(from.slice(5, 7))];
  if (from.slice(8) !== '01') [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  for (let date = monthStart(y, m); date <= to; [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1], date = monthStart(y, m)) months.push(date);
  const step = [1, 2, 3, 4, 6, 12, 24].find((s) => Math.ceil(months.length / s) <= 5) ?? Math.ceil(months.length / 5);
  // The year on the first tick and on each tick in a year the one before is not in: a step of six
  // or twelve months may never land on a January.
  return months
    .filter((_, i) => i % step === 0)
    .map((date, i, ticks) => {
      const month = MONTHS[Number(date.slice(5, 7)) - 1]!;
      return { date, label: i === 0 || date.slice(0, 4) !== ticks[i - 1]!.slice(0, 4) ? `${month} ${date.slice(0, 4)}` : month };
    });
}

const monthStart = (y: number, m: number) => `${y}-${String(m).padStart(2, '0')}-01`;

const fmt = (n: number) => String(Math.round(n * 100) / 100);

function frame(text: ChartText, body: Html): Html {
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${text.id}-title ${text.id}-desc"><title id="${text.id}-title">${text.title}</title><desc id="${text.id}-desc">${text.description}</desc>${body}</svg>`;
}

// Two decimals at most, so that a tick (a round number: 12,500, 1,250,000) is never rounded.
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 2 });

/**
 * A value axis label: from 10,000 up in compact notation (10K, 250K, 1.5M), which the margin holds
 * at a phone's label size. Written out, five digits and more were cut off (600,000 read "00000").
 */
export const valueLabel = (v: number) => (Math.abs(v) >= 10_000 ? compact.format(v) : fmt(v));

function yAxis(ticks: number[], y: (v: number) => number): Html {
  return html`${ticks.map(
    (t) =>
      html`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${fmt(y(t))}" y2="${fmt(y(t))}"></line><text class="axis" x="${MARGIN.left - 8}" y="${fmt(y(t) + 7)}" text-anchor="end">${valueLabel(t)}</text>`,
  )}`;
}

/**
 * A label's width in the drawing's units, at the largest size the page sets (20px on a phone),
 * from its length: generous, so that two labels judged apart are apart in any sans-serif font.
 */
export const labelWidth = (label: string) => label.length * 11.5;
/** Space kept between two labels. */
const LABEL_GAP = 10;

/**
 * Where each date tick's label goes, or null where it would run into the label before it (the
 * tick is still drawn). The first label starts at its tick and the last ends at its tick, so that
 * neither leaves the drawing.
 */
export function placeLabels(ticks: ReadonlyArray<{ label: string; at: number }>): Array<{ anchor: 'start' | 'middle' | 'end' } | null> {
  let lastRight = -Infinity;
  return ticks.map((t, i) => {
    const anchor = ticks.length > 1 && i === 0 && t.at - MARGIN.left < 40 ? 'start' : t.at > WIDTH - 60 ? 'end' : 'middle';
    const width = labelWidth(t.label);
    const left = anchor === 'start' ? t.at : anchor === 'end' ? t.at - width : t.at - width / 2;
    if (left < lastRight + LABEL_GAP) return null;
    lastRight = left + width;
    return { anchor };
  });
}

function xAxis(from: string, to: string, x: (date: string) => number): Html {
  const ticks = dateTicks(from, to).map((t) => ({ ...t, at: x(t.date) }));
  const placed = placeLabels(ticks);
  return html`${ticks.map((t, i) => {
    const label = placed[i];
    return html`<line class="tick" x1="${fmt(t.at)}" x2="${fmt(t.at)}" y1="${MARGIN.top + PLOT_H}" y2="${MARGIN.top + PLOT_H + 6}"></line>${
      label ? html`<text class="axis" x="${fmt(t.at)}" y="${HEIGHT - 8}" text-anchor="${label.anchor}">${t.label}</text>` : ''
    }`;
  })}`;
}

/** Lines over time sharing one value axis; marked points get a diamond. */
export function lineChart(text: ChartText, series: Series[]): Html {
  const points = series.flatMap((s) => s.points);
  if (points.length === 0) return html``;
  const dates = points.map((p) => p.date).sort();
  // A single day is drawn in the middle of a week around it.
  const [from, to] =
    dates[0] === dates[dates.length - 1]
      ? [dateOfDayNumber(dayNumber(dates[0]!) - 3), dateOfDayNumber(dayNumber(dates[0]!) + 3)]
      : [dates[0]!, dates[dates.length - 1]!];
  const values = points.map((p) => p.value);
  const ticks = niceTicks(Math.min(...values), Math.max(...values));
  const [low, high] = [ticks[0]!, ticks[ticks.length - 1]!];
  const x = (date: string) => MARGIN.left + ((dayNumber(date) - dayNumber(from)) / (dayNumber(to) - dayNumber(from))) * PLOT_W;
  const y = (v: number) => MARGIN.top + PLOT_H - ((v - low) / (high - low)) * PLOT_H;
  return frame(
    text,
    html`${yAxis(ticks, y)}${xAxis(from, to, x)}${series.map((s) => {
      const ordered = [...s.points].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      const path = ordered.map((p, i) => `${i === 0 ? 'M' : 'L'}${fmt(x(p.date))} ${fmt(y(p.value))}`).join(' ');
      return html`<path class="line ${s.look}" d="${path}"></path>${ordered.length <= 60 ? ordered.filter((p) => !p.marked).map((p) => html`<circle class="dot ${s.look}" cx="${fmt(x(p.date))}" cy="${fmt(y(p.value))}" r="4"></circle>`) : ''}${ordered
        .filter((p) => p.marked)
        .map((p) => html`<path class="record ${s.look}" d="M${fmt(x(p.date))} ${fmt(y(p.value) - 8)} l8 8 l-8 8 l-8 -8 z"></path>`)}`;
    })}`,
  );
}

/** One bar a week (`date` is its Monday), from zero. */
export function weekBarChart(text: ChartText, bars: Point[]): Html {
  if (bars.length === 0) return html``;
  const ticks = niceTicks(0, Math.max(4, ...bars.map((b) => b.value)), 4).filter((t) => Number.isInteger(t));
  const high = ticks[ticks.length - 1]!;
  const slot = PLOT_W / bars.length;
  const y = (v: number) => MARGIN.top + PLOT_H - (v / high) * PLOT_H;
  const from = bars[0]!.date;
  const to = bars[bars.length - 1]!.date;
  const x = (date: string) => MARGIN.left + ((dayNumber(date) - dayNumber(from)) / 7) * slot + slot / 2;
  return frame(
    text,
    html`${yAxis(ticks, y)}${xAxis(from, to, x)}${bars.map((b, i) =>
      b.value > 0
        ? html`<rect class="bar" x="${fmt(MARGIN.left + i * slot + slot * 0.15)}" y="${fmt(y(b.value))}" width="${fmt(slot * 0.7)}" height="${fmt(y(0) - y(b.value))}"></rect>`
        : '',
    )}`,
  );
}
