// Shared helpers of the inspector page: the API client (bearer token,
// JSON errors), DOM building, formatting, hash links and chart bookkeeping.
// Nothing here knows about a particular view.

// ---------------------------------------------------------------- API

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const TOKEN_KEY = 'ctxkit.inspector.token';

export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// Called on a 401 with the refused token; resolves once the user gave a
// new one. Set by app.js.
let askForToken = async () => { throw new ApiError(401, 'unauthenticated', 'a token is required'); };
let pendingTokenPrompt = null;

export function onTokenNeeded(fn) {
  askForToken = fn;
}

// GET ../api/PATH?PARAMS (empty params left out); answers the parsed JSON or
// throws ApiError with the API's {"error": {"code", "message"}}.
export async function api(path, params = {}, { signal } = {}) {
  const url = new URL('../api/' + path, document.baseURI);
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  for (;;) {
    const token = getToken();
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = await fetch(url, { headers, signal, cache: 'no-store' });
    if (res.status === 401) {
      if (!pendingTokenPrompt) {
        pendingTokenPrompt = askForToken(token).finally(() => { pendingTokenPrompt = null; });
      }
      await pendingTokenPrompt;
      continue;
    }
    let body = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok) {
      const err = body && body.error;
      throw new ApiError(res.status, (err && err.code) || 'http_' + res.status,
                         (err && err.message) || res.statusText || 'request failed');
    }
    return body;
  }
}

export function describeError(e) {
  if (e instanceof ApiError) return `${e.code}: ${e.message}`;
  return String((e && e.message) || e);
}

// ---------------------------------------------------------------- DOM

// h('a', {href, class, 'data-testid'}, child, ...): children are nodes,
// strings (as text, never HTML), arrays, or null/false (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  appendChildren(el, children);
  return el;
}

export function appendChildren(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// A table with a caption (visually hidden unless shown), column headers
// (th scope=col) and rows; a row's first cell is a th scope=row.
// columns: [{label, num}]; rows: arrays of cell contents.
export function table({ caption, columns, rows, testid, showCaption = false, rowAttrs }) {
  const thead = h('thead', null, h('tr', null, columns.map((c) =>
    h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label))));
  const tbody = h('tbody');
  fillRows(tbody, columns, rows, rowAttrs);
  return h('table', { 'data-testid': testid },
    caption ? h('caption', { class: showCaption ? null : 'visually-hidden' }, caption) : null,
    thead, tbody);
}

export function fillRows(tbody, columns, rows, rowAttrs) {
  const frag = document.createDocumentFragment();
  rows.forEach((cells, i) => {
    const tr = h('tr', rowAttrs ? rowAttrs(i) : null);
    cells.forEach((cell, j) => {
      const cls = columns[j] && columns[j].num ? 'num' : null;
      tr.append(j === 0 ? h('th', { scope: 'row', class: cls }, cell) : h('td', { class: cls }, cell));
    });
    frag.append(tr);
  });
  tbody.replaceChildren(frag);
}

// A <dl> of [label, value] pairs (value null/'' shown as an em dash).
export function facts(pairs, testid) {
  return h('dl', { class: 'facts', 'data-testid': testid }, pairs.map(([k, v]) => [
    h('dt', null, k),
    h('dd', null, v === null || v === undefined || v === '' ? '—' : v),
  ]));
}

// A labelled form field: label for + input/select with that id.
export function field(label, control) {
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
}

export function select(id, options, value) {
  return h('select', { id, name: id }, options.map(([v, label]) =>
    h('option', { value: v, selected: String(v) === String(value ?? '') }, label)));
}

export function textInput(id, value, attrs = {}) {
  return h('input', { id, name: id, type: 'text', value: value ?? '', ...attrs });
}

// ---------------------------------------------------------------- links

// '#/path?k=v' with empty parameters left out.
export function href(path, params = {}) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return '#' + path + (s ? '?' + s : '');
}

export function link(path, params, text, attrs = {}) {
  return h('a', { href: href(path, params), ...attrs }, text);
}

// The link to an object page: by key and scope, with the view (session or
// agent) that can see that scope.
export function objectHref(key, scope, view = {}) {
  const p = { key, scope };
  if (scope && scope.startsWith('session:')) p.session = scope.slice(8);
  else if (scope && scope.startsWith('agent:')) p.agent = scope.slice(6);
  if (view.session && !p.session) p.session = view.session;
  if (view.agent && !p.agent) p.agent = view.agent;
  return href('/object', p);
}

// Replaces one parameter of the current hash without a history entry or a
// re-render (view state such as a range offset).
export function replaceHashParam(changes) {
  const raw = location.hash.replace(/^#/, '');
  const i = raw.indexOf('?');
  const path = i < 0 ? raw : raw.slice(0, i);
  const qs = new URLSearchParams(i < 0 ? '' : raw.slice(i + 1));
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === null || v === '') qs.delete(k);
    else qs.set(k, String(v));
  }
  const s = qs.toString();
  history.replaceState(history.state, '', '#' + path + (s ? '?' + s : ''));
}

// ---------------------------------------------------------------- format

const intFormat = new Intl.NumberFormat('en-US');

export function fmtInt(n) {
  return n === null || n === undefined ? '—' : intFormat.format(n);
}

export function fmtBytes(n) {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function fmtPct(x, digits = 0) {
  return x === null || x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(digits)}%`;
}

// RFC 3339 with nanoseconds -> "2025-01-02 03:04:05Z" (a <time> element).
export function fmtTime(s) {
  if (!s) return '—';
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(s);
  return h('time', { datetime: s, title: s }, m ? `${m[1]} ${m[2]}Z` : s);
}

export function code(text, attrs = {}) {
  return h('code', attrs, text);
}

// ---------------------------------------------------------------- charts

const charts = [];

// new Chart(canvas, config), destroyed when the view is replaced.
export function makeChart(canvas, config) {
  const chart = new window.Chart(canvas, config);
  charts.push(chart);
  return chart;
}

export function destroyCharts() {
  while (charts.length) charts.pop().destroy();
}

// The parts of a render's token breakdown, in request order.
export const PARTS = [
  ['system', 'System', '#4e79a7'],
  ['pinned', 'Pinned', '#f28e2b'],
  ['index', 'Index', '#76b7b2'],
  ['compactions', 'Compactions', '#b07aa1'],
  ['chat', 'Chat', '#59a14f'],
  ['active_outputs', 'Active outputs', '#d4a72c'],
  ['placeholders', 'Placeholders', '#9c755f'],
];
export const BUDGET_COLOR = '#c9302c';
