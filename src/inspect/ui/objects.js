// Object views: the filtered list of objects (a page at a time) and one
// object (metadata, versions, a diff of two versions, content a range at a
// time, the sessions that hold it).

import {
  api, code, describeError, facts, field, fmtBytes, fmtInt, fmtTime, h, href, link,
  objectHref, replaceHashParam, select, table, textInput,
} from './lib.js';

const RANGE = 65536; // bytes of content per request; never the whole value
const TYPES = ['text', 'json', 'memory', 'result', 'stream', 'toolcall', 'file', 'note', 'chat'];
const FILTERS = ['scope', 'type', 'tag', 'kind', 'prefix', 'agent', 'session'];

// The agent/session view that sees a scope.
function viewOf(scope) {
  if (scope && scope.startsWith('session:')) return { session: scope.slice(8) };
  if (scope && scope.startsWith('agent:')) return { agent: scope.slice(6) };
  return {};
}

// ---------------------------------------------------------------- list

export async function objectsView(query) {
  const filters = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) || '']));
  const cursor = query.get('cursor') || '';
  const res = await api('objects', { ...filters, cursor, limit: 100 });
  const objects = res.objects || [];

  const form = h('form', { class: 'filters', 'data-testid': 'objects-filter', role: 'search', 'aria-label': 'Filter objects' },
    field('Key prefix', textInput('f-prefix', filters.prefix, { placeholder: 'e.g. docs/' })),
    field('Scope', textInput('f-scope', filters.scope, { placeholder: 'global, agent:ID, session:ID' })),
    field('Type', select('f-type', [['', 'any'], ...TYPES.map((t) => [t, t])], filters.type)),
    field('Tag', textInput('f-tag', filters.tag)),
    field('Kind', textInput('f-kind', filters.kind, { list: 'kinds', placeholder: 'note, toolcall, …' })),
    h('datalist', { id: 'kinds' }, ['note', 'toolcall', 'capture', 'chat'].map((k) => h('option', { value: k }))),
    field('Agent view', textInput('f-agent', filters.agent)),
    field('Session view', textInput('f-session', filters.session)),
    h('div', { class: 'form-actions' },
      h('button', { type: 'submit' }, 'Filter'),
      h('a', { href: '#/objects', class: 'button-link' }, 'Clear')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const params = {};
    for (const k of FILTERS) params[k] = form.querySelector(`#f-${k}`).value.trim();
    location.hash = href('/objects', params);
  });

  // Without an agent or session view the list holds every scope: each
  // object opens through the view that sees its scope.
  const chosen = filters.agent || filters.session;
  const view = { agent: filters.agent, session: filters.session };
  const rows = objects.map((o) => [
    h('a', { href: objectHref(o.key, o.scope, chosen ? view : viewOf(o.scope)), 'data-testid': 'object-link' }, o.key),
    o.scope, o.type, fmtInt(o.version), fmtBytes(o.size_bytes), fmtInt(o.tokens), fmtTime(o.updated),
    (o.tags || []).join(', '),
  ]);
  const pager = h('div', { class: 'pager' },
    cursor ? h('a', { href: href('/objects', filters), 'data-testid': 'objects-first' }, '← First page') : h('span'),
    h('span', { class: 'pager-status', 'data-testid': 'objects-count' },
      `${fmtInt(objects.length)} ${objects.length === 1 ? 'object' : 'objects'} on this page` + (cursor ? '' : ' · first page')),
    res.next_cursor
      ? h('a', { href: href('/objects', { ...filters, cursor: res.next_cursor }), 'data-testid': 'objects-next' }, 'Next page →')
      : h('span', { class: 'muted' }, 'Last page'));

  const node = h('div', null,
    h('h1', { tabindex: '-1' }, 'Objects'),
    form,
    pager,
    objects.length
      ? h('div', { class: 'table-scroll' }, table({
        caption: 'Objects, ordered by key then scope',
        columns: [{ label: 'Key' }, { label: 'Scope' }, { label: 'Type' }, { label: 'Version', num: true },
          { label: 'Size', num: true }, { label: 'Tokens', num: true }, { label: 'Updated' }, { label: 'Tags' }],
        rows, testid: 'objects-table',
      }))
      : h('p', null, 'No objects match.'));
  return { title: 'Objects', node };
}

// ---------------------------------------------------------------- object

export async function objectView(query) {
  const sel = query.get('ref')
    ? { ref: query.get('ref') }
    : { key: query.get('key'), scope: query.get('scope'), agent: query.get('agent'), session: query.get('session') };
  const data = await api('object', sel);
  const obj = data.object;
  const versions = data.versions || [];
  const present = versions.filter((v) => v.ref);

  const wanted = Number(query.get('cv')) || 0;
  const shown = versions.find((v) => v.version === wanted && v.ref) || present[present.length - 1] || null;
  const content = contentViewer(shown, Number(query.get('offset')) || 0);
  const diff = diffPanel(obj, present, query);
  await Promise.all([content.ready, diff.ready]);

  const versionRows = versions.map((v) => [
    String(v.version), v.state, fmtBytes(v.size_bytes), fmtInt(v.tokens), fmtTime(v.created), v.producer,
    h('code', { title: v.sha256 }, (v.sha256 || '').slice(0, 12) || '—'),
    v.ref ? h('button', {
      type: 'button', class: 'small', 'data-testid': 'show-version',
      onclick: () => content.show(v, 0),
    }, `Show v${v.version}`) : '—',
  ]);

  const node = h('div', null,
    h('p', { class: 'crumbs' }, h('a', { href: '#/objects' }, 'Objects'), ' / ', obj.scope),
    h('h1', { tabindex: '-1', 'data-testid': 'object-heading' }, obj.key),
    facts([
      ['Scope', obj.scope],
      ['Type', obj.type],
      ['Latest version', h('span', { 'data-testid': 'object-version' }, String(obj.version))],
      ['Size', `${fmtBytes(obj.size_bytes)} (${fmtInt(obj.size_bytes)} bytes)`],
      ['Tokens', fmtInt(obj.tokens)],
      ['Created', fmtTime(obj.created)],
      ['Updated', fmtTime(obj.updated)],
      ['Tags', (obj.tags || []).length ? (obj.tags || []).map((t, i) => [i ? ', ' : '', link('/objects', { tag: t }, t)]) : null],
      ['Persistent', obj.persistent ? 'yes' : 'no (session-only)'],
      ['Ref', code(obj.ref, { class: 'wrap' })],
    ], 'object-meta'),
    h('section', { 'aria-labelledby': 'versions-h' },
      h('h2', { id: 'versions-h' }, 'Versions ', h('span', { class: 'count' }, String(versions.length))),
      h('div', { class: 'table-scroll' }, table({
        caption: `Versions of ${obj.key}, oldest first`,
        columns: [{ label: 'Version', num: true }, { label: 'State' }, { label: 'Size', num: true }, { label: 'Tokens', num: true },
          { label: 'Created' }, { label: 'Producer' }, { label: 'SHA-256' }, { label: 'Content' }],
        rows: versionRows, testid: 'versions-table',
        rowAttrs: (i) => ({ 'data-testid': 'version-row', 'data-version': versions[i].version }),
      }))),
    diff.node,
    content.node,
    h('section', { 'aria-labelledby': 'holders-h' },
      h('h2', { id: 'holders-h' }, 'Sessions holding it'),
      (data.sessions || []).length
        ? h('ul', { class: 'inline-list', 'data-testid': 'object-sessions' },
          data.sessions.map((s) => h('li', null, link(`/sessions/${encodeURIComponent(s)}`, {}, s))))
        : h('p', { class: 'muted' }, 'No session pool holds this object.'),
      data.sessions_truncated ? h('p', { class: 'muted' }, 'Only the first sessions of the store were looked at; others may hold it too.') : null));
  return { title: obj.key, node };
}

// Two version selectors and a line diff (from /api/diff) between them.
function diffPanel(obj, present, query) {
  const out = h('div', { 'data-testid': 'diff-view', 'aria-live': 'polite' });
  const node = h('section', { 'aria-labelledby': 'diff-h' }, h('h2', { id: 'diff-h' }, 'Compare versions'));
  if (present.length < 2) {
    node.append(h('p', { class: 'muted' }, 'Only one version has content: nothing to compare.'));
    return { node, ready: Promise.resolve() };
  }
  const options = present.map((v) => [v.version, `v${v.version} (${fmtBytes(v.size_bytes)})`]);
  const last = present[present.length - 1].version;
  const from = select('diff-from', options, query.get('from') || present[present.length - 2].version);
  const to = select('diff-to', options, query.get('to') || last);
  const button = h('button', { type: 'submit', 'data-testid': 'diff-show' }, 'Show diff');
  const form = h('form', { class: 'inline-form' }, field('From version', from), field('To version', to), button);

  const load = async (a, b) => {
    out.replaceChildren(h('p', { class: 'muted' }, 'Loading the diff…'));
    try {
      const d = await api('diff', { key: obj.key, scope: obj.scope, ...viewOf(obj.scope), from: a, to: b });
      out.replaceChildren(renderLineDiff(d));
    } catch (e) {
      out.replaceChildren(h('p', { role: 'alert', class: 'inline-error' }, describeError(e)));
    }
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    replaceHashParam({ from: from.value, to: to.value });
    load(from.value, to.value);
  });
  node.append(form, out);
  const ready = query.get('from') && query.get('to') ? load(query.get('from'), query.get('to')) : Promise.resolve();
  return { node, ready };
}

function renderLineDiff(d) {
  const hunks = d.hunks || [];
  if (!hunks.length) return h('p', null, `Versions ${d.from} and ${d.to} have the same content.`);
  let added = 0;
  let removed = 0;
  const body = h('tbody');
  for (const hunk of hunks) {
    body.append(h('tr', { class: 'hunk' }, h('td', { colspan: '4' },
      `@@ −${hunk.from_line},${hunk.from_count} +${hunk.to_line},${hunk.to_count} @@`)));
    let a = hunk.from_line;
    let b = hunk.to_line;
    for (const line of hunk.lines) {
      const op = line.op;
      if (op === '+') added++;
      if (op === '-') removed++;
      const cls = op === '+' ? 'add' : op === '-' ? 'del' : 'ctx';
      body.append(h('tr', { class: cls, 'data-op': op, 'data-testid': `diff-line-${cls}` },
        h('td', { class: 'ln' }, op === '+' ? '' : String(a)),
        h('td', { class: 'ln' }, op === '-' ? '' : String(b)),
        h('td', { class: 'op', 'aria-label': op === '+' ? 'added' : op === '-' ? 'removed' : 'unchanged' }, op === ' ' ? '' : op === '-' ? '−' : '+'),
        h('td', { class: 'text' }, line.text,
          line.no_newline ? h('span', { class: 'muted' }, ' (no newline at end)') : null)));
      if (op !== '+') a++;
      if (op !== '-') b++;
    }
  }
  return h('div', null,
    h('p', { 'data-testid': 'diff-summary' },
      `v${d.from} → v${d.to}: ${added} lines added, ${removed} removed (${fmtBytes(d.from_bytes)} → ${fmtBytes(d.to_bytes)}).`),
    h('div', { class: 'table-scroll' }, h('table', { class: 'linediff' },
      h('caption', { class: 'visually-hidden' }, `Line diff of versions ${d.from} and ${d.to}`),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, `v${d.from}`), h('th', { scope: 'col' }, `v${d.to}`),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Change')), h('th', { scope: 'col' }, 'Line'))),
      body)));
}

// The content of one version, RANGE bytes at a time, with the offset shown.
function contentViewer(initial, initialOffset) {
  const title = h('h2', { id: 'content-h' }, 'Content');
  const info = h('p', { class: 'range-info', 'aria-live': 'polite' });
  const text = h('pre', { class: 'content', 'data-testid': 'content-text', tabindex: '0', 'aria-labelledby': 'content-h' });
  const prev = h('button', { type: 'button', 'data-testid': 'content-prev' }, '← Previous range');
  const next = h('button', { type: 'button', 'data-testid': 'content-next' }, 'Next range →');
  const first = h('button', { type: 'button', 'data-testid': 'content-first' }, 'Start');
  const node = h('section', { 'aria-labelledby': 'content-h', 'data-testid': 'content' }, title,
    h('div', { class: 'pager' }, h('span', { class: 'buttons' }, first, prev), info, next), text);

  let version = initial;
  let offset = initialOffset;
  let nextOffset = null;
  const trail = []; // offsets of the ranges shown before, for "previous"

  const load = async (v, o) => {
    version = v;
    if (!v) {
      title.textContent = 'Content';
      info.textContent = 'No version of this object has content (deleted).';
      text.hidden = true;
      prev.disabled = next.disabled = first.disabled = true;
      return;
    }
    try {
      const c = await api('content', { ref: v.ref, offset: o, length: RANGE });
      offset = c.offset;
      nextOffset = c.offset + c.length;
      title.textContent = `Content of version ${v.version}`;
      info.replaceChildren(
        'Bytes ', h('span', { 'data-testid': 'content-offset', 'data-value': c.offset }, fmtInt(c.offset)),
        '–', h('span', { 'data-testid': 'content-end', 'data-value': c.offset + c.length }, fmtInt(c.offset + c.length)),
        ' of ', h('span', { 'data-testid': 'content-total', 'data-value': c.total_bytes }, fmtInt(c.total_bytes)),
        ` (${fmtBytes(c.total_bytes)})`,
        c.binary ? ' · not UTF-8: shown with U+FFFD' : '');
      text.hidden = false;
      text.textContent = c.text;
      prev.disabled = first.disabled = c.offset === 0;
      next.disabled = nextOffset >= c.total_bytes || c.length === 0;
    } catch (e) {
      info.replaceChildren(h('span', { role: 'alert', class: 'inline-error' }, describeError(e)));
    }
  };
  const go = (o, remember = true) => {
    if (remember) trail.push(offset);
    replaceHashParam({ offset: o || null });
    return load(version, o);
  };
  next.addEventListener('click', () => { if (nextOffset !== null) go(nextOffset); });
  prev.addEventListener('click', () => {
    const o = trail.length ? trail.pop() : Math.max(0, offset - RANGE);
    go(o, false);
  });
  first.addEventListener('click', () => { trail.length = 0; go(0, false); });

  const show = (v, o) => {
    trail.length = 0;
    replaceHashParam({ cv: v.version, offset: o || null });
    node.scrollIntoView({ block: 'start' });
    return load(v, o);
  };
  return { node, ready: load(initial, initialOffset), show };
}
