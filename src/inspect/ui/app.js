// The ctxkit inspector: hash router, live refresh and the bearer token form.
// Views live in sessions.js, objects.js, search.js and notes.js; each is an
// async function (params, query) -> {title, node, mounted?} that reads the
// API and builds its DOM.

import { api, describeError, destroyCharts, h, onTokenNeeded, setToken } from './lib.js';
import { sessionsView, sessionView, renderView } from './sessions.js';
import { objectsView, objectView } from './objects.js';
import { searchView } from './search.js';
import { notesView, noteView } from './notes.js';

const main = document.getElementById('main');
const alertBox = document.getElementById('alert');
const liveStatus = document.getElementById('live-status');

const ROUTES = [
  [/^\/sessions$/, 'sessions', (m, q) => sessionsView(q)],
  [/^\/sessions\/([^/]+)$/, 'sessions', (m, q) => sessionView(decodeURIComponent(m[1]), q)],
  [/^\/sessions\/([^/]+)\/renders\/(\d+)$/, 'sessions',
    (m, q) => renderView(decodeURIComponent(m[1]), Number(m[2]), q)],
  [/^\/objects$/, 'objects', (m, q) => objectsView(q)],
  [/^\/object$/, 'objects', (m, q) => objectView(q)],
  [/^\/search$/, 'search', (m, q) => searchView(q)],
  [/^\/notes$/, 'notes', (m, q) => notesView(q)],
  [/^\/note$/, 'notes', (m, q) => noteView(q)],
];

function parseHash() {
  const raw = location.hash.replace(/^#/, '');
  const i = raw.indexOf('?');
  return {
    path: (i < 0 ? raw : raw.slice(0, i)) || '/sessions',
    query: new URLSearchParams(i < 0 ? '' : raw.slice(i + 1)),
  };
}

// ---------------------------------------------------------------- alerts

export function showAlert(message) {
  alertBox.replaceChildren(h('p', null, message));
  alertBox.hidden = false;
}

function clearAlert() {
  alertBox.replaceChildren();
  alertBox.hidden = true;
}

// ---------------------------------------------------------------- routing

let navigation = 0;
let firstPage = true;

// Renders the view the hash names. live: a refresh after a store change,
// which keeps the scroll position, focus and what the user typed.
async function show({ live = false } = {}) {
  const seq = ++navigation;
  const { path, query } = parseHash();
  const route = ROUTES.find(([re]) => re.test(path));
  markNav(route ? route[1] : null);
  main.setAttribute('aria-busy', 'true');
  if (!live) main.dataset.state = 'loading';
  try {
    if (!route) throw new Error(`no page at #${path}`);
    const view = await route[2](route[0].exec(path), query);
    if (seq !== navigation) return;
    const scroll = window.scrollY;
    const edits = live ? captureEdits() : null;
    destroyCharts();
    main.replaceChildren(view.node);
    if (view.mounted) view.mounted();
    document.title = `${view.title} · ctxkit inspector`;
    clearAlert();
    if (live) {
      restoreEdits(edits);
      window.scrollTo(0, scroll);
    } else {
      window.scrollTo(0, 0);
      // After an in-page navigation, move focus to the new page's heading
      // (screen readers announce it); the first page keeps the browser's.
      const heading = main.querySelector('h1');
      if (heading && !firstPage) heading.focus({ preventScroll: true });
      firstPage = false;
    }
    main.dataset.route = location.hash;
    main.dataset.state = 'ready';
  } catch (e) {
    if (seq !== navigation) return;
    showAlert(describeError(e));
    if (!live) {
      destroyCharts();
      main.replaceChildren(h('h1', { tabindex: '-1' }, 'Could not load this page'),
                          h('p', null, h('a', { href: '#/sessions' }, 'Back to sessions')));
    }
    main.dataset.route = location.hash;
    main.dataset.state = 'error';
  } finally {
    if (seq === navigation) main.removeAttribute('aria-busy');
  }
}

function markNav(section) {
  for (const a of document.querySelectorAll('nav a[data-section]')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

// What the user typed into the current view's fields (and where the focus
// is), so that a live refresh does not throw it away.
function captureEdits() {
  const edits = { focus: document.activeElement && document.activeElement.id, values: [], open: [] };
  for (const d of main.querySelectorAll('details[id]')) if (d.open) edits.open.push(d.id);
  for (const el of main.querySelectorAll('input[id], select[id], textarea[id]')) {
    const edited = el.tagName === 'SELECT'
      ? [...el.options].some((o) => o.selected !== o.defaultSelected)
      : el.type === 'checkbox' ? el.checked !== el.defaultChecked : el.value !== el.defaultValue;
    if (edited) edits.values.push([el.id, el.type === 'checkbox' ? el.checked : el.value]);
  }
  return edits;
}

function restoreEdits(edits) {
  for (const [id, value] of edits.values) {
    const el = document.getElementById(id);
    if (!el || !main.contains(el)) continue;
    if (el.type === 'checkbox') el.checked = value;
    else el.value = value;
  }
  for (const id of edits.open) {
    const d = document.getElementById(id);
    if (d && main.contains(d)) d.open = true;
  }
  if (edits.focus) {
    const el = document.getElementById(edits.focus);
    if (el && main.contains(el)) el.focus({ preventScroll: true });
  }
}

// ---------------------------------------------------------------- token

// Shows the "Bearer token" form in place of the view; resolves when the
// user submits a token.
function promptForToken(refused) {
  return new Promise((resolve) => {
    const input = h('input', { id: 'token-input', type: 'password', autocomplete: 'off', required: true });
    const form = h('form', { class: 'token-form', 'data-testid': 'token-form' },
      h('h1', { tabindex: '-1' }, 'This inspector needs a token'),
      h('p', null, refused
        ? 'The token was refused. Enter the token ctxkit serve was started with.'
        : 'Enter the token ctxkit serve was started with (--token or $CTXKIT_TOKEN). It is kept in this tab only.'),
      h('div', { class: 'field' }, h('label', { for: 'token-input' }, 'Bearer token'), input),
      h('button', { type: 'submit' }, 'Use token'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      setToken(input.value.trim());
      resolve();
    });
    destroyCharts();
    main.replaceChildren(form);
    main.dataset.state = 'token';
    input.focus();
  });
}

// ---------------------------------------------------------------- live

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function setLive(state, text) {
  liveStatus.dataset.state = state;
  liveStatus.textContent = text;
}

// Long-polls /api/changes; when the store's change counter moves, the
// current view is rendered again. Errors back off a few seconds.
async function liveLoop() {
  let since = null;
  let failures = 0;
  for (;;) {
    try {
      if (since === null) {
        since = (await api('store')).change;
      } else {
        const r = await api('changes', { since, wait_ms: 25000 });
        if (r.change !== since) {
          since = r.change;
          await show({ live: true });
        }
      }
      failures = 0;
      setLive('live', 'Live');
    } catch (e) {
      failures++;
      setLive('offline', 'Reconnecting…');
      await sleep(Math.min(3000 * failures, 15000));
    }
  }
}

// ---------------------------------------------------------------- start

function start() {
  // #token=... : keep it in this tab, then show the sessions.
  const m = /^#token=(.+)$/.exec(location.hash);
  if (m) {
    let token = m[1];
    try {
      token = decodeURIComponent(token);
    } catch {
      // A stray '%': the token as written.
    }
    setToken(token);
    history.replaceState(null, '', '#/sessions');
  } else if (!location.hash || location.hash === '#' || location.hash === '#/') {
    history.replaceState(null, '', '#/sessions');
  }
  // Once a token is given, the view is drawn again (the form replaced it,
  // and the live loop may have been the one refused).
  onTokenNeeded((refused) => promptForToken(refused).then(() => { show(); }));
  window.addEventListener('hashchange', () => show());
  show();
  liveLoop();
}

start();
