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
  main { max-width: 34rem; margin: 1.5rem auto; padding: 0 1rem; overflow-wrap: break-word; }
  .card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.25rem; margin-bottom: 1rem; }
  .card > :first-child { margin-top: 0; }
  .card > :last-child { margin-bottom: 0; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  h2 { font-size: 1.2rem; margin: 0 0 .25rem; }
  label { display: block; font-weight: 600; margin: .9rem 0 .3rem; }
  input[type=text], input[type=email], input[type=password], select { width: 100%; padding: .65rem .75rem; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
  .hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 0; }
  button, .button { display: inline-block; margin-top: 1.2rem; padding: .7rem 1.1rem; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; cursor: pointer; text-decoration: none; }
  button:disabled { opacity: .6; cursor: progress; }
  button.secondary, a.button.secondary { background: #fff; color: var(--ink); border: 1px solid var(--line); margin-top: 0; }
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
  /* Field names break between words only: breaking anywhere let the table squeeze their column to a letter a line. */
  table.diff th { overflow-wrap: normal; }
  .receipt td:last-child, .receipt th:last-child, .receipt code { white-space: nowrap; }
  ul.proposals, ul.undo { padding-left: 1.1rem; }
  ul.proposals li, ul.undo li { margin: .6rem 0; }
  ul.proposals .hint { display: block; }
  /* The review of a proposal: removals look destructive, changed values stand out, the client's own words are boxed. */
  .card.change { border-left: 6px solid var(--line); }
  .card.change-create { border-left-color: var(--accent); }
  .card.change-update { border-left-color: #1a56db; }
  .card.change-delete { border-left-color: var(--bad); background: #fffafa; }
  p.op { margin: 0 0 .25rem; font-size: .8rem; font-weight: 700; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); }
  p.op.delete { color: var(--bad); }
  .written { border: 1px dashed #8a93a6; border-radius: 4px; padding: 0 .25rem; white-space: pre-wrap; }
  blockquote.written { display: block; margin: .25rem 0 0; padding: .5rem .75rem; }
  figure.reason { margin: .75rem 0; }
  figure.reason figcaption { color: var(--muted); font-size: .9rem; }
  ol.summary { padding-left: 1.3rem; margin: .5rem 0; }
  ol.summary li { margin: .3rem 0; }
  ol.summary li.op-delete a { color: var(--bad); }
  del { text-decoration: line-through; color: var(--muted); }
  ins { text-decoration: none; font-weight: 700; background: #fff3bf; border-radius: 3px; padding: 0 .15rem; }
  td.changed, th.changed, tr.changed > td { background: #fffbe6; }
  tr.added > td, tr.added > th { background: #eef8f4; }
  tr.removed > td, tr.removed > th { background: #fbeceb; text-decoration: line-through; }
  section.item { border-top: 1px solid var(--line); padding-top: .5rem; margin-top: .75rem; }
  section.item h3 { font-size: 1rem; margin: .25rem 0; }
  section.item.removed h3 { text-decoration: line-through; color: var(--bad); }
  .badge.added { background: #e8f4f0; color: #14513f; border-color: #bfe0d5; }
  .badge.removed { background: #fbeceb; color: var(--bad); border-color: #f0c4be; }
  .badge.changed { background: #e8effd; color: #1d3f8f; border-color: #c3d3f7; }
  details.unchanged, details.ids { margin-top: .75rem; }
  details.unchanged > summary, details.ids > summary { cursor: pointer; color: var(--muted); }
  table.sets th, table.sets td { white-space: nowrap; }
  .notice.neutral { background: #f1f3f6; border-color: var(--line); }
  .notice.pending { background: #e8effd; border-color: #c3d3f7; }
  div.error { margin-bottom: 1rem; }
  .stale h2 { font-size: 1.1rem; }
  .stale ul { padding-left: 1.1rem; }
  button.danger { background: var(--bad); }
  .decide { position: sticky; bottom: 0; z-index: 1; background: #fff; border: 1px solid var(--line); border-radius: 12px 12px 0 0; box-shadow: 0 -4px 12px rgba(29, 36, 51, .12); padding: .6rem .75rem; margin: 1rem -.5rem 0; display: flex; flex-wrap: wrap; align-items: flex-end; gap: .5rem; }
  .decide form { margin: 0; }
  /* The confirmation takes its own line; Approve and Reject share the next one. */
  .decide > form:first-child { display: contents; }
  .decide label.confirm { flex: 1 1 100%; }
  .decide button[data-approve] { flex: 1 1 10rem; }
  .decide button { margin-top: 0; padding: .6rem .9rem; }
  .decide .hint { flex: 1 1 100%; margin: 0; }
  label.confirm { display: flex; gap: .5rem; align-items: flex-start; font-weight: 600; margin: 0; color: var(--bad); }
  label.confirm input { flex: none; width: 1.1rem; height: 1.1rem; margin-top: .2rem; }
  nav.main .count { display: inline-block; min-width: 1.3rem; padding: 0 .35rem; margin-left: .3rem; border-radius: 999px; background: var(--bad); color: #fff; font-size: .8rem; font-weight: 700; text-align: center; }
  .actions form { display: inline-block; margin: 0 .75rem .5rem 0; }
  .actions button { margin-top: 0; }
  code.token { display: block; overflow-wrap: anywhere; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem; font-size: .9rem; }
  ul.tokens { list-style: none; padding: 0; margin: 0; }
  ul.tokens li { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 0; border-top: 1px solid var(--line); }
  ul.tokens li:first-child { border-top: 0; }
  ul.tokens .what { flex: 1 1 14rem; min-width: 0; overflow-wrap: anywhere; }
  ul.tokens .what .hint { display: block; }
  /* May shrink: a long token name in its Revoke button wraps inside the card instead of widening the page. */
  ul.tokens form { flex: 0 1 auto; min-width: 0; margin-left: auto; }
  ul.tokens form button { max-width: 100%; overflow-wrap: anywhere; }
  label.area { display: flex; gap: .6rem; align-items: flex-start; font-weight: 400; margin: .8rem 0; }
  label.area input { flex: none; margin-top: .35rem; width: 1.1rem; height: 1.1rem; }
  label.area .hint { display: block; margin: 0; }
  .card > form + form { margin-top: .75rem; }
  fieldset { border: 0; padding: 0; margin: .5rem 0 0; }
  legend { padding: 0; }
  :focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .skip { position: absolute; left: -999px; top: .5rem; background: #fff; padding: .5rem .75rem; border-radius: 8px; z-index: 1; }
  .skip:focus { left: .5rem; }
  nav.main { background: #fff; border-bottom: 1px solid var(--line); padding: .4rem .75rem .55rem; }
  nav.main ul { list-style: none; margin: 0 auto; padding: 0; max-width: 60rem; display: flex; flex-wrap: wrap; gap: .3rem; }
  nav.main a { display: block; padding: .35rem .65rem; border-radius: 999px; color: var(--ink); text-decoration: none; font-size: .95rem; white-space: nowrap; }
  nav.main a:hover { background: #eef1f5; }
  nav.main a[aria-current=page] { background: var(--accent); color: #fff; font-weight: 600; }
  main.wide { max-width: 60rem; }
  .subnav { display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin: 0 0 1rem; }
  .subnav a[aria-current=page] { font-weight: 700; color: var(--ink); text-decoration: none; }
  .stats { display: grid; grid-template-columns: repeat(3, 1fr); gap: .5rem; margin-bottom: .5rem; }
  .stat { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: .75rem; }
  .stat .value { display: block; font-size: 2rem; font-weight: 700; line-height: 1.1; }
  .stat .label { display: block; color: var(--muted); font-size: .85rem; line-height: 1.3; }
  section + section, .stats + .hint { margin-bottom: 1rem; }
  ul.plain { list-style: none; padding: 0; margin: 0; }
  ul.plain > li { padding: .6rem 0; border-top: 1px solid var(--line); }
  ul.plain > li:first-child { border-top: 0; padding-top: 0; }
  .nowrap { white-space: nowrap; }
  .meta { color: var(--muted); font-size: .9rem; }
  .table-wrap { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; font-size: .95rem; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; color: var(--muted); font-size: .85rem; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  .badge { display: inline-block; font-size: .75rem; font-weight: 600; padding: .05rem .45rem; border-radius: 999px; background: #fdf0d5; color: #6b4a00; border: 1px solid #ecd29a; margin: .1rem .2rem .1rem 0; white-space: nowrap; }
  .copy { display: flex; gap: .5rem; align-items: stretch; flex-wrap: wrap; }
  .copy input { flex: 1 1 14rem; min-width: 0; font-family: ui-monospace, monospace; }
  .copy button { margin-top: 0; }
  ol.steps { padding-left: 1.25rem; margin: .25rem 0 0; }
  details.client { border-top: 1px solid var(--line); padding: .5rem 0; }
  details.client summary { cursor: pointer; font-weight: 600; }
  .card h3 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
  ul.activity .hint { display: block; }
  .pager { display: flex; justify-content: space-between; gap: 1rem; margin-top: 1rem; }
  @media (max-width: 40rem) {
    /* Narrower cells, and badges that may wrap, on a phone: a workout's set table (set, weight,
       reps, RPE, its record badges) fits the card instead of hiding its last column. */
    th, td { padding: .4rem .35rem; }
    th:first-child, td:first-child { padding-left: 0; }
    .badge { white-space: normal; border-radius: .6rem; }
    table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    table.stack, table.stack tbody, table.stack tr { display: block; }
    table.stack tr { padding: .5rem 0; border-bottom: 1px solid var(--line); }
    table.stack td, table.stack th { display: inline; border: 0; padding: 0 .6rem 0 0; white-space: normal; }
    table.stack td.lead { display: block; font-weight: 600; }
    table.stack td[data-label]::before { content: attr(data-label) " "; color: var(--muted); font-size: .85rem; }
  }
  input[type=file] { width: 100%; font: inherit; }
  /* The athlete's record forms */
  textarea, input[type=date], input[type=datetime-local] { width: 100%; max-width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
  input[aria-invalid=true], select[aria-invalid=true], textarea[aria-invalid=true] { border: 2px solid var(--bad); }
  .with-unit { display: flex; gap: .5rem; align-items: center; }
  .with-unit input { flex: 1 1 auto; min-width: 0; }
  .with-unit select { width: auto; flex: none; }
  .unit { color: var(--muted); flex: none; min-width: 2.2rem; }
  .default-submit { position: absolute; left: -9999px; width: 1px; height: 1px; overflow: hidden; }
  fieldset.list { margin-top: 1.25rem; }
  fieldset.list > legend { font-weight: 700; font-size: 1.1rem; }
  fieldset.item { border: 1px solid var(--line); border-radius: 10px; padding: .25rem .75rem .75rem; margin: .75rem 0; }
  fieldset.item > legend { font-weight: 600; padding: 0 .3rem; }
  fieldset.item-set { background: #fafbfc; }
  /* A set's fields side by side, each label above its box, the boxes of a row level however their labels wrap. */
  fieldset.item-set .fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(7rem, 1fr)); gap: 0 .75rem; }
  fieldset.item-set .field { display: flex; flex-direction: column; justify-content: flex-end; min-width: 0; }
  fieldset.item-set label { margin: .5rem 0 .2rem; font-size: .9rem; }
  fieldset.item-set label.check { margin: .5rem 0 0; min-height: 2.75rem; }
  fieldset.texts > legend { font-weight: 600; margin: .9rem 0 .3rem; }
  fieldset.texts input { margin-bottom: .4rem; }
  details.new-exercise { margin: .5rem 0; }
  details.new-exercise summary { cursor: pointer; color: var(--accent); }
  button.small { padding: .45rem .8rem; font-size: .9rem; margin-top: .6rem; }
  label.check { display: flex; gap: .5rem; align-items: center; }
  label.check input { flex: none; width: 1.1rem; height: 1.1rem; }
  .form-actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1.2rem; }
  .form-actions button, .form-actions .button { margin-top: 0; }
  a.danger { color: var(--bad); font-weight: 600; }
  .edit-links { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .95rem; }
  .last-change ul { margin: .25rem 0; padding-left: 1.1rem; }
  progress { display: block; width: 100%; height: 1.25rem; margin: .75rem 0 .25rem; accent-color: var(--accent); }
  svg.chart { display: block; width: 100%; max-width: 36rem; height: auto; margin: .5rem 0; }
  svg.chart text { font: 20px system-ui, -apple-system, "Segoe UI", sans-serif; fill: var(--muted); }
  @media (min-width: 40rem) { svg.chart text { font-size: 15px; } }
  svg.chart .grid { stroke: #e4e8ef; stroke-width: 1; }
  svg.chart .tick { stroke: var(--muted); stroke-width: 1; }
  svg.chart .line { fill: none; stroke-width: 3; stroke-linejoin: round; }
  svg.chart .first { stroke: var(--accent); fill: var(--accent); }
  svg.chart .second { stroke: #9a4d0b; fill: #9a4d0b; }
  svg.chart .line.second { stroke-dasharray: 8 5; fill: none; }
  svg.chart .line.first { fill: none; }
  svg.chart .record { fill: #f2b705; stroke: #4a3700; stroke-width: 2; }
  svg.chart .bar { fill: var(--accent); }
  .legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0; list-style: none; font-size: .9rem; color: var(--muted); }
  .legend li { display: flex; align-items: center; gap: .4rem; }
  .key { display: inline-block; width: 1.5rem; height: 0; border-top: 3px solid var(--accent); }
  .key.second { border-top: 3px dashed #9a4d0b; }
  .key.record { width: .8rem; height: .8rem; border: 2px solid #4a3700; background: #f2b705; transform: rotate(45deg); }
  details.figures { margin-top: .75rem; }
  details.figures summary { cursor: pointer; font-weight: 600; }
  ul.columns { columns: 16rem; column-gap: 1.5rem; list-style: none; padding: 0; margin: 0; }
  ul.columns li { padding: .3rem 0; break-inside: avoid; }
  input[type=radio] { width: 1.1rem; height: 1.1rem; }
  /* connections, consent, workout page */
  p.notes { white-space: pre-line; }
  .exercise-notes h3 { font-size: .9rem; font-weight: 600; color: var(--muted); margin: .75rem 0 .1rem; }
  .exercise-notes p { margin: 0 0 .5rem; }
  .connection a.button.secondary { margin-top: .5rem; }
  .connection h2 .meta { font-weight: 400; }
  details.rename { margin: .75rem 0; }
  details.rename summary { cursor: pointer; color: var(--accent); }
  details.rename .error { margin: .5rem 0 0; }
  @media (max-width: 40rem) {
    table.sets-stack th[scope=row] { display: block; color: var(--ink); font-size: 1rem; }
    table.sets-stack th[data-label]::before { content: attr(data-label) " "; }
    table.sets-stack td { display: inline-block; }
    table.sets-stack td.num { white-space: nowrap; }
    table.sets-stack td.empty { display: none; }
  }
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

/**
 * The copy buttons of the home page: each is shown (it starts `hidden`) and copies the value of
 * the input it names. Without script the address is still there to select and copy by hand.
 */
const COPY_SOURCE = `(function () {
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    (function (button) {
      var input = document.getElementById(button.getAttribute('data-copy'));
      var status = document.getElementById(button.getAttribute('data-copy') + '-status');
      if (!input) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        var done = function () { if (status) status.textContent = 'Copied.'; };
        input.select();
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand('copy'); done(); });
        } else {
          document.execCommand('copy');
          done();
        }
      });
    })(buttons[i]);
  }
})();`;
export const COPY_SCRIPT = new Html(COPY_SOURCE);

/**
 * The import form's progress: sends the form itself so that the bar can show the upload's bytes,
 * then says the file is being saved until the server answers. The answer is the summary (the
 * upload was redirected to it: that page is opened) or the form with the refusal (shown in place
 * of this page, its alert focused). Without script the form posts as any other.
 */
const IMPORT_PROGRESS_SOURCE = `(function () {
  if (!window.XMLHttpRequest || !window.FormData || !window.DOMParser) return;
  var forms = document.querySelectorAll('form[data-upload]');
  for (var i = 0; i < forms.length; i++) watch(forms[i]);
  function watch(form) {
  var box = form.querySelector('[data-upload-progress]');
  if (!box) return;
  var bar = box.querySelector('progress');
  var words = box.querySelector('[aria-live]');
  var button = form.querySelector('button[type=submit]');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var request = new XMLHttpRequest();
    request.open('POST', form.action);
    box.hidden = false;
    bar.hidden = false;
    button.disabled = true;
    words.textContent = 'Uploading the file…';
    request.upload.onprogress = function (e) {
      if (!e.lengthComputable) return;
      bar.max = e.total;
      bar.value = e.loaded;
      words.textContent = 'Uploading the file: ' + Math.floor((e.loaded / e.total) * 100) + '%';
    };
    request.upload.onload = function () {
      bar.removeAttribute('value');
      words.textContent = 'Uploaded. Reading the file and saving your workouts…';
    };
    request.onload = function () {
      if (request.status === 200 && request.responseURL && request.responseURL.indexOf('/import?') >= 0) {
        window.location.assign(request.responseURL);
        return;
      }
      var answer = new DOMParser().parseFromString(request.responseText, 'text/html');
      document.title = answer.title;
      document.body.replaceWith(document.adoptNode(answer.body));
      var alert = document.querySelector('[role=alert]');
      if (alert) {
        alert.setAttribute('tabindex', '-1');
        alert.focus();
      }
    };
    request.onerror = function () {
      bar.hidden = true;
      button.disabled = false;
      words.textContent = 'The upload did not reach RepLedger: nothing was imported. Check your connection and try again.';
    };
    request.send(new FormData(form));
  });
  }
})();`;
export const IMPORT_PROGRESS_SCRIPT = new Html(IMPORT_PROGRESS_SOURCE);

/**
 * A proposal's expiry, live: each `<time data-countdown>` (which says "at 14:32" without script)
 * says how many minutes are left, and once the time has passed, that it expired, and the Approve
 * button is disabled (the server refuses it anyway).
 */
const COUNTDOWN_SOURCE = `(function () {
  var times = document.querySelectorAll('time[data-countdown]');
  if (!times.length) return;
  function tick() {
    var now = Date.now();
    for (var i = 0; i < times.length; i++) {
      var time = times[i];
      var left = Math.ceil((Date.parse(time.getAttribute('datetime')) - now) / 60000);
      if (left > 0) {
        time.textContent = 'in ' + left + (left === 1 ? ' minute' : ' minutes') + ' (at ' + time.getAttribute('data-at') + ')';
      } else {
        time.textContent = 'at ' + time.getAttribute('data-at') + ': it has expired, so it can no longer be approved';
        var approve = document.querySelectorAll('button[data-approve]');
        for (var j = 0; j < approve.length; j++) approve[j].disabled = true;
      }
    }
  }
  tick();
  setInterval(tick, 15000);
})();`;
export const COUNTDOWN_SCRIPT = new Html(COUNTDOWN_SOURCE);

/** The only inline scripts, allowed by hash: pages work without them. */
export const SCRIPT_HASH = `${hashOf(TIME_ZONE_SOURCE)} ${hashOf(COPY_SOURCE)} ${hashOf(IMPORT_PROGRESS_SOURCE)} ${hashOf(COUNTDOWN_SOURCE)}`;

/**
 * A table that scrolls sideways on a narrow screen when it must: the scrolling region is
 * focusable and named, so it can be scrolled from the keyboard too.
 */
export function scrollTable(label: string, table: Html): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}">${table}</div>`;
}

export interface PageOptions {
  title: string;
  signedInAs?: string | null;
  csrf?: string;
  /** The path of the page, so that the navigation marks where the athlete is. */
  path?: string;
  /** Record pages with tables and charts use the width of a desktop screen. */
  wide?: boolean;
  /** Show the navigation without a known session (error pages of a browser that has a session cookie). */
  navigation?: boolean;
  /** Proposals waiting for the athlete's review, counted beside Proposals in the navigation. */
  pending?: number;
}

/** The app's places, in the order the navigation lists them; `match` says which paths belong to each. */
export const NAVIGATION: ReadonlyArray<{ href: string; label: string; match: RegExp }> = [
  { href: '/account', label: 'Home', match: /^\/account\/?$/ },
  { href: '/workouts', label: 'Workouts', match: /^\/(workouts|routines|goals|preferences|record\/(workout|routine|goal|equipment|preferences))(\/|$)/ },
  { href: '/progress', label: 'Progress', match: /^\/progress(\/|$)/ },
  { href: '/recovery', label: 'Recovery & nutrition', match: /^\/(recovery|nutrition|record\/(checkin|meal))(\/|$)/ },
  { href: '/body', label: 'Body', match: /^\/(body|record\/measurement)(\/|$)/ },
  { href: '/proposals', label: 'Proposals', match: /^\/proposals(\/|$)/ },
  { href: '/connections', label: 'Connected apps', match: /^\/connections(\/|$)/ },
  { href: '/bot-tokens', label: 'Bot tokens', match: /^\/bot-tokens(\/|$)/ },
  { href: '/settings', label: 'Settings', match: /^\/(settings|account\/password|import|export)(\/|$)/ },
];

/** The navigation of a signed-in athlete's pages; also on error pages, where the path is unknown. */
export function navigation(path: string | null, pending = 0): Html {
  const here = path?.split('?')[0] ?? null;
  return html`<nav class="main" aria-label="Main"><ul>${NAVIGATION.map(
    (item) =>
      html`<li><a href="${item.href}"${here !== null && item.match.test(here) ? html` aria-current="page"` : ''}>${item.label}${
        item.href === '/proposals' && pending > 0
          ? html`<span class="count"><span class="visually-hidden">, </span>${pending}<span class="visually-hidden"> waiting for your review</span></span>`
          : ''
      }</a></li>`,
  )}</ul></nav>`;
}

export function page(options: PageOptions, body: Html): string {
  const signedIn = !!options.signedInAs;
  const nav = signedIn
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
<a class="skip" href="#content">Skip to content</a>
<header><a class="brand" href="/account">RepLedger</a>${nav}</header>
${signedIn || options.navigation ? navigation(options.path ?? null, options.pending ?? 0) : ''}
<main id="content"${options.wide ? html` class="wide"` : ''}>${body}</main>
</body>
</html>`.value;
}
